"""pass@1 and its intervals for the gate, through core/score/scoring.py and core/score/intervals.py.

The gate asks two questions of the numbers: how wide is this run's pass@1 interval, and does the
paired interval of (run - baseline) on the same tasks exclude zero. Both use the manifest's
scoring contract (aggregation, slice weights, interval method, level, resamples, seed), so the
gate and `passgate report` / `passgate compare` agree. If those modules are unavailable the
fallback below computes the same estimates with a task-level bootstrap in numpy.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np

from .facts import Score

PerTask = Mapping[str, tuple]   # task_id -> (n counted, c passed, slice)


def _arrays(per_task: PerTask, ids: list[str]):
    n = np.array([int(per_task[t][0]) for t in ids], dtype=np.int64)
    c = np.array([int(per_task[t][1]) for t in ids], dtype=np.int64)
    slices = [str(per_task[t][2]) for t in ids]
    return n, c, slices


def _spec(interval: Mapping):
    return {"method": interval.get("method", "bootstrap"), "level": float(interval.get("level", 0.95)),
            "resamples": int(interval.get("resamples", 2000)), "seed": int(interval.get("seed", 0))}


def score(per_task: PerTask, interval: Mapping) -> Score:
    """pass@1 (micro or macro as the manifest says) with its bootstrap interval."""
    ids = sorted(t for t, v in per_task.items() if int(v[0]) > 0)
    spec = _spec(interval)
    if not ids:
        return Score(level=spec["level"])
    n, c, slices = _arrays(per_task, ids)
    rule = interval.get("aggregation", "micro")
    weights = interval.get("weights") or {}
    try:
        from passgate.core.score.intervals import IntervalSpec, bootstrap_pass_at_k
        from passgate.core.score.scoring import Strata, aggregate, pass_at_k_array
    except ImportError:
        point, lo, hi = _fallback_score(n, c, spec)
    else:
        strata = Strata.from_slices(slices, weights)
        point = aggregate(pass_at_k_array(n, c, 1), strata, rule)
        ci = bootstrap_pass_at_k(n, c, strata, [1], IntervalSpec(**spec))[1][rule]
        lo, hi = ci["ci_low"], ci["ci_high"]
    return Score(pass_at_1=float(point), ci_low=lo, ci_high=hi, level=spec["level"], tasks=len(ids))


def paired_delta(base: PerTask, run: PerTask, interval: Mapping) -> dict:
    """pass@1(run) - pass@1(baseline) on the tasks both counted, with its paired interval."""
    ids = sorted(t for t in set(base) & set(run) if int(base[t][0]) > 0 and int(run[t][0]) > 0)
    spec = _spec(interval)
    if not ids:
        return {"tasks": 0, "delta": None, "ci_low": None, "ci_high": None, "level": spec["level"]}
    n_a, c_a, slices = _arrays(base, ids)
    n_b, c_b, _ = _arrays(run, ids)
    rule = interval.get("aggregation", "micro")
    weights = interval.get("weights") or {}
    try:
        from passgate.core.score.intervals import IntervalSpec, paired_bootstrap
        from passgate.core.score.scoring import Strata, aggregate, pass_at_k_array
    except ImportError:
        delta, lo, hi = _fallback_paired(n_a, c_a, n_b, c_b, spec)
    else:
        strata = Strata.from_slices(slices, weights)
        delta = aggregate(pass_at_k_array(n_b, c_b, 1), strata, rule) - aggregate(pass_at_k_array(n_a, c_a, 1),
                                                                                  strata, rule)
        ci = paired_bootstrap(n_a, c_a, n_b, c_b, strata, [1], IntervalSpec(**spec), rule)[1]
        lo, hi = ci["ci_low"], ci["ci_high"]
    return {"tasks": len(ids), "delta": float(delta), "ci_low": lo, "ci_high": hi, "level": spec["level"]}


# ---- fallback: task-level bootstrap of the mean per-task pass rate (micro, unweighted) ----------------
def _quantiles(reps: np.ndarray, level: float) -> tuple[float | None, float | None]:
    if reps.size < 2:
        return None, None
    alpha = (1 - level) / 2
    lo, hi = np.quantile(reps, [alpha, 1 - alpha])
    return float(lo), float(hi)


def _fallback_score(n: np.ndarray, c: np.ndarray, spec: dict):
    rate = c / n
    rng = np.random.default_rng(spec["seed"])
    idx = rng.integers(0, rate.size, size=(spec["resamples"], rate.size))
    return float(rate.mean()), *_quantiles(rate[idx].mean(axis=1), spec["level"])


def _fallback_paired(n_a, c_a, n_b, c_b, spec: dict):
    diff = c_b / n_b - c_a / n_a
    rng = np.random.default_rng(spec["seed"])
    idx = rng.integers(0, diff.size, size=(spec["resamples"], diff.size))
    return float(diff.mean()), *_quantiles(diff[idx].mean(axis=1), spec["level"])
