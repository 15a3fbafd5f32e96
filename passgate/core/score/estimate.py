"""The one computation behind every pass@k interval passgate prints.

`passgate report` (terminal, JSON, Markdown), `passgate gate` (text and JSON), `passgate compare`
and the console's report, verdict and compare screens print the intervals these functions return,
so one run under one scoring contract shows one interval everywhere.

Two things made the same figures differ before: the resampling draws depend on the order the
tasks enter them (the gate read tasks sorted by id, the report in record order), and with the
moments approximation each k drew its noise from the one shared stream (a report with k = 1, 10
moved pass@1). Here tasks always enter in task-id order, whatever order the caller read them in,
and each k draws its noise from its own stream (core/score/intervals.py).
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from .intervals import IntervalSpec, bootstrap_pass_at_k, paired_bootstrap
from .scoring import Strata, aggregate, pass_at_k_array


def task_order(task_ids: Sequence[str]) -> np.ndarray:
    """Indices that put tasks in the canonical order of every bootstrap: by task id."""
    return np.argsort(np.asarray([str(t) for t in task_ids], dtype=object), kind="stable")


def pass_at_k_intervals(task_ids: Sequence[str], n: np.ndarray, c: np.ndarray, slices: Sequence[str],
                        ks: Sequence[int], spec: IntervalSpec, weights: Mapping[str, float] | None = None,
                        *, stream: int = 0) -> dict:
    """Intervals of micro and macro pass@k per k, and of each slice: {k: {micro, macro, strata}}."""
    order = task_order(task_ids)
    strata = Strata.from_slices(np.asarray(list(slices), dtype=object)[order], weights)
    return bootstrap_pass_at_k(np.asarray(n)[order], np.asarray(c)[order], strata, ks, spec, stream=stream)


def paired_intervals(task_ids: Sequence[str], base: tuple[np.ndarray, np.ndarray],
                     cand: tuple[np.ndarray, np.ndarray], slices: Sequence[str], ks: Sequence[int],
                     spec: IntervalSpec, rule: str, weights: Mapping[str, float] | None = None,
                     *, runs: bool = False) -> dict:
    """Interval of pass@k(cand) - pass@k(base) on the same tasks, per k: {k: {ci_low, ci_high, se}}."""
    order = task_order(task_ids)
    strata = Strata.from_slices(np.asarray(list(slices), dtype=object)[order], weights)
    n_a, c_a = (np.asarray(x)[order] for x in base)
    n_b, c_b = (np.asarray(x)[order] for x in cand)
    return paired_bootstrap(n_a, c_a, n_b, c_b, strata, ks, spec, rule, runs=runs)


def pass_at_1(per_task: Mapping[str, tuple], spec: IntervalSpec, aggregation: str = "micro",
              weights: Mapping[str, float] | None = None) -> dict:
    """pass@1 and its interval from {task_id: (n counted, c passed, slice, ...)} (the gate's shape)."""
    ids = [t for t, v in per_task.items() if int(v[0]) > 0]
    if not ids:
        return {"value": None, "ci_low": None, "ci_high": None, "se": None, "tasks": 0}
    n = np.array([int(per_task[t][0]) for t in ids], dtype=np.int64)
    c = np.array([int(per_task[t][1]) for t in ids], dtype=np.int64)
    slices = [str(per_task[t][2]) for t in ids]
    point = aggregate(pass_at_k_array(n, c, 1), Strata.from_slices(slices, weights), aggregation)
    ci = pass_at_k_intervals(ids, n, c, slices, [1], spec, weights)[1][aggregation]
    return {"value": float(point), **ci, "tasks": len(ids)}


def paired_pass_at_1(base: Mapping[str, tuple], run: Mapping[str, tuple], spec: IntervalSpec,
                     aggregation: str = "micro", weights: Mapping[str, float] | None = None) -> dict:
    """pass@1(run) - pass@1(base) on the tasks both counted, with its paired interval."""
    ids = [t for t in run if t in base and int(base[t][0]) > 0 and int(run[t][0]) > 0]
    if not ids:
        return {"tasks": 0, "delta": None, "ci_low": None, "ci_high": None}
    arrays = [np.array([int(side[t][i]) for t in ids], dtype=np.int64) for side in (base, run) for i in (0, 1)]
    n_a, c_a, n_b, c_b = arrays
    slices = [str(run[t][2]) for t in ids]
    strata = Strata.from_slices(slices, weights)
    delta = (aggregate(pass_at_k_array(n_b, c_b, 1), strata, aggregation)
             - aggregate(pass_at_k_array(n_a, c_a, 1), strata, aggregation))
    ci = paired_intervals(ids, (n_a, c_a), (n_b, c_b), slices, [1], spec, aggregation, weights)[1]
    return {"tasks": len(ids), "delta": float(delta), "ci_low": ci["ci_low"], "ci_high": ci["ci_high"]}
