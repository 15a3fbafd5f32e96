"""pass@1 and its intervals for the gate, through core/score/estimate.py.

The gate asks two questions of the numbers: how wide is this run's pass@1 interval, and does the
paired interval of (run - baseline) on the same tasks exclude zero. Both go through the one
function that computes every interval passgate prints (`core.score.estimate`), with the
manifest's scoring contract (aggregation, slice weights, interval method, level, resamples, seed),
so the gate, `passgate report` and `passgate compare` print the same figures.
"""

from __future__ import annotations

from typing import Mapping

from passgate.core.score.estimate import paired_pass_at_1, pass_at_1
from passgate.core.score.intervals import IntervalSpec

from .facts import Score

PerTask = Mapping[str, tuple]   # task_id -> (n counted, c passed, slice, ...)


def _spec(interval: Mapping) -> IntervalSpec:
    return IntervalSpec.from_config({k: interval[k] for k in ("method", "level", "resamples", "seed")
                                     if k in interval})


def score(per_task: PerTask, interval: Mapping) -> Score:
    """pass@1 (micro or macro as the manifest says) with its bootstrap interval."""
    spec = _spec(interval)
    s = pass_at_1(per_task, spec, interval.get("aggregation", "micro"), interval.get("weights") or {})
    if s["value"] is None:
        return Score(level=spec.level)
    return Score(pass_at_1=s["value"], ci_low=s["ci_low"], ci_high=s["ci_high"], level=spec.level, tasks=s["tasks"])


def paired_delta(base: PerTask, run: PerTask, interval: Mapping) -> dict:
    """pass@1(run) - pass@1(baseline) on the tasks both counted, with its paired interval."""
    spec = _spec(interval)
    d = paired_pass_at_1(base, run, spec, interval.get("aggregation", "micro"), interval.get("weights") or {})
    return {**d, "level": spec.level}
