"""pass@k estimators and their aggregation over tasks and slices (numpy, no per-row Python loops).

The estimator is the unbiased one of Chen et al. (2021), "Evaluating Large Language Models Trained
on Code", in its numerically stable product form:

    pass@k = 1 - C(n-c, k) / C(n, k) = 1 - prod_{i=n-c+1}^{n} (1 - k/i)

with n the counted candidates of a task and c those that passed. The plug-in estimator
1 - (1 - c/n)^k is biased low for k > 1 and is never used here (tests/core/test_scoring.py shows
the difference). A task with n < k has no estimate: its value is NaN and reports count it as
"not estimable" instead of dropping it.

Aggregation: `micro` is the (slice-weighted) mean over tasks, `macro` the weighted mean over
slices of each slice's mean. A slice's weight defaults to 1; weight 0 leaves the slice out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

import numpy as np

from passgate.core.model import COUNTED_OUTCOMES, EXCLUDED_OUTCOMES  # noqa: F401 - scoring's words

from .report_types import Denominator, Spread

AGGREGATIONS = ("micro", "macro")


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k for one task; NaN when k > n (not estimable)."""
    _check(n, c, k)
    if n < k:
        return float("nan")
    if n - c < k:
        return 1.0
    return float(1.0 - np.prod(1.0 - k / np.arange(n - c + 1, n + 1, dtype=np.float64)))


def pass_at_k_table(n: int, k: int) -> np.ndarray:
    """pass@k for c = 0..n at fixed n: one minus the running products of (1 - k/i), i = n, n-1, ...

    The running product over i = n..n-c+1 is exactly the product form for c passes, so one
    `cumprod` yields every c at once. Once i reaches k a factor is 0, so pass@k is 1 from
    c = n-k+1 on, as it should be.
    """
    if n < k:
        return np.full(n + 1, np.nan)
    factors = 1.0 - k / np.arange(n, 0, -1, dtype=np.float64)
    table = 1.0 - np.concatenate(([1.0], np.cumprod(factors)))
    table[n - k + 1:] = 1.0
    return table


class PassAtKLookup:
    """pass@k for any (n, c) pair among a fixed set of n values, as one flat table lookup.

    Used by the bootstraps, which evaluate pass@k for millions of resampled (n, c) pairs.
    """

    def __init__(self, n_values: Iterable[int], k: int):
        self.k = k
        self.n_values = np.unique(np.asarray(list(n_values), dtype=np.int64))
        tables = [pass_at_k_table(int(n), k) for n in self.n_values]
        sizes = np.array([len(t) for t in tables], dtype=np.int64)
        self.offsets = np.concatenate(([0], np.cumsum(sizes)[:-1])) if len(tables) else np.zeros(0, np.int64)
        self.flat = np.concatenate(tables) if tables else np.zeros(0)

    def offsets_for(self, n: np.ndarray) -> np.ndarray:
        """Table offset for each n (every n must be among `n_values`)."""
        return self.offsets[np.searchsorted(self.n_values, n)]

    def __call__(self, n: np.ndarray, c: np.ndarray, offsets: np.ndarray | None = None) -> np.ndarray:
        n = np.asarray(n)
        base = self.offsets_for(n) if offsets is None else offsets
        return self.flat[base + np.asarray(c)]


def pass_at_k_array(n: Sequence[int] | np.ndarray, c: Sequence[int] | np.ndarray, k: int) -> np.ndarray:
    """Per-task pass@k; NaN where k > n."""
    n_arr = np.asarray(n, dtype=np.int64)
    c_arr = np.asarray(c, dtype=np.int64)
    if n_arr.shape != c_arr.shape:
        raise ValueError("n and c must have the same shape")
    if n_arr.size and (c_arr.min() < 0 or (c_arr > n_arr).any()):
        raise ValueError("c must lie in 0..n for every task")
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    if n_arr.size == 0:
        return np.zeros(0)
    return PassAtKLookup(n_arr, k)(n_arr, c_arr)


def _check(n: int, c: int, k: int) -> None:
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    if n < 0 or c < 0 or c > n:
        raise ValueError(f"need 0 <= c <= n, got n={n}, c={c}")


# ---- aggregation ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Strata:
    """Tasks grouped by slice: integer codes per task and a weight per slice."""

    names: tuple[str, ...]
    codes: np.ndarray      # slice index per task
    weights: np.ndarray    # weight per slice (same order as names)

    @classmethod
    def from_slices(cls, slices: Sequence[str], weights: Mapping[str, float] | None = None) -> "Strata":
        names, codes = np.unique(np.asarray(list(slices), dtype=object).astype(str), return_inverse=True)
        names_t = tuple(str(s) for s in names)
        w = np.array([float((weights or {}).get(s, 1.0)) for s in names_t], dtype=np.float64)
        if (w < 0).any():
            raise ValueError("slice weights must be >= 0")
        return cls(names_t, codes.astype(np.int64).reshape(-1), w)

    def task_weights(self) -> np.ndarray:
        return self.weights[self.codes]


def aggregate(values: np.ndarray, strata: Strata, rule: str) -> float:
    """Micro or macro mean of per-task values, skipping NaN (not estimable) tasks."""
    out = aggregate_rows(np.asarray(values, dtype=np.float64)[None, :], strata.codes, strata, rule)
    return float(out[0])


def aggregate_rows(values: np.ndarray, codes: np.ndarray, strata: Strata, rule: str) -> np.ndarray:
    """Aggregate each row of a (replicates, tasks) matrix; `codes` gives each column's slice.

    `codes` may be a matrix of the same shape (bootstrap replicates resample columns).
    """
    if rule not in AGGREGATIONS:
        raise ValueError(f"aggregation must be one of {AGGREGATIONS}, got {rule!r}")
    codes = np.broadcast_to(codes, values.shape)
    finite = np.isfinite(values)
    vals = np.where(finite, values, 0.0)
    if rule == "micro":
        w = np.where(finite, strata.weights[codes], 0.0)
        return _ratio(np.sum(w * vals, axis=1), np.sum(w, axis=1))
    num = np.zeros(values.shape[0])
    den = np.zeros(values.shape[0])
    for s, weight in enumerate(strata.weights):
        if weight == 0:
            continue
        in_s = finite & (codes == s)
        count = in_s.sum(axis=1)
        mean_s = _ratio(np.sum(np.where(in_s, vals, 0.0), axis=1), count)
        has = count > 0
        num += np.where(has, weight * np.nan_to_num(mean_s), 0.0)
        den += np.where(has, weight, 0.0)
    return _ratio(num, den)


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    den = np.asarray(den, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def denominator(n: np.ndarray, k: int) -> Denominator:
    """What a pass@k figure is computed over: tasks, candidates per task, k, and the tasks left out
    because n < k (including tasks with no counted candidate at all)."""
    n = np.asarray(n, dtype=np.int64)
    estimable = n >= k
    per_task = n[estimable]
    return {
        "k": int(k),
        "tasks": int(estimable.sum()),
        "not_estimable_tasks": int((~estimable).sum()),
        "no_counted_candidates": int((n == 0).sum()),
        "candidates_per_task": _spread(per_task),
        "candidates": int(per_task.sum()),
    }


def _spread(x: np.ndarray) -> Spread:
    if x.size == 0:
        return {"min": None, "median": None, "max": None}
    return {"min": int(x.min()), "median": float(np.median(x)), "max": int(x.max())}
