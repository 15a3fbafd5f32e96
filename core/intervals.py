"""Bootstrap confidence intervals and standard errors for pass@k, single-run and paired.

Method `bootstrap` (the default) resamples at two levels, as the record was drawn: tasks with
replacement within each slice (so the slice mix stays as declared), then, for each drawn task,
its n candidates with replacement, which gives Binomial(n, c/n) passes. `bootstrap_tasks`
resamples tasks only. The interval is the percentile interval of the replicates; the standard
error is their standard deviation. Everything is drawn from one `numpy.random.default_rng(seed)`,
in chunks of replicates whose size depends only on the number of tasks, so a seed reproduces
the figures exactly.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Iterator, Mapping, Sequence

import numpy as np

from .scoring import AGGREGATIONS, PassAtKLookup, Strata, aggregate_rows

METHODS = ("bootstrap", "bootstrap_tasks")
_CHUNK_CELLS = 2_000_000   # replicate x task cells held in memory at once


@dataclass(frozen=True)
class IntervalSpec:
    """How intervals are computed; recorded beside every figure."""

    method: str = "bootstrap"
    level: float = 0.95
    resamples: int = 1000
    seed: int = 0

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise ValueError(f"interval method must be one of {METHODS}, got {self.method!r}")
        if not 0 < self.level < 1:
            raise ValueError(f"interval level must lie strictly between 0 and 1, got {self.level}")
        if self.resamples < 2:
            raise ValueError(f"interval resamples must be >= 2, got {self.resamples}")

    @classmethod
    def from_config(cls, config: Mapping | None) -> "IntervalSpec":
        """From a manifest's `scoring.interval` section; missing keys take the defaults."""
        config = dict(config or {})
        method = str(config.get("method", cls.method))
        method = {"percentile": "bootstrap", "bootstrap_percentile": "bootstrap",
                  "bootstrap_tasks_candidates": "bootstrap"}.get(method, method)
        return cls(method=method, level=float(config.get("level", cls.level)),
                   resamples=int(config.get("resamples", cls.resamples)),
                   seed=int(config.get("seed", cls.seed)))

    def to_dict(self) -> dict:
        d = asdict(self)
        d["resampled"] = ("tasks within slices, then candidates within tasks"
                          if self.method == "bootstrap" else "tasks within slices")
        d["interval"] = "percentile"
        return d


def _chunks(total: int, tasks: int) -> Iterator[int]:
    size = max(1, _CHUNK_CELLS // max(tasks, 1))
    done = 0
    while done < total:
        step = min(size, total - done)
        yield step
        done += step


def _resample_tasks(rng: np.random.Generator, strata_codes: np.ndarray, reps: int) -> np.ndarray:
    """(reps, tasks) indices: each slice's columns redrawn from that slice's tasks."""
    blocks = []
    for s in np.unique(strata_codes):
        members = np.flatnonzero(strata_codes == s)
        blocks.append(members[rng.integers(0, members.size, size=(reps, members.size))])
    return np.concatenate(blocks, axis=1) if blocks else np.zeros((reps, 0), dtype=np.int64)


def _resample_passes(rng: np.random.Generator, n: np.ndarray, c: np.ndarray, idx: np.ndarray,
                     within: bool) -> np.ndarray:
    if not within:
        return c[idx]
    rate = np.where(n > 0, c / np.maximum(n, 1), 0.0)
    return rng.binomial(n[idx], rate[idx])


def _summary(reps: np.ndarray, level: float) -> dict:
    reps = reps[np.isfinite(reps)]
    if reps.size < 2:
        return {"ci_low": None, "ci_high": None, "se": None}
    alpha = (1.0 - level) / 2.0
    lo, hi = np.quantile(reps, [alpha, 1.0 - alpha])
    return {"ci_low": float(lo), "ci_high": float(hi), "se": float(np.std(reps, ddof=1))}


def _group_means(values: np.ndarray, idx: np.ndarray, mask: np.ndarray) -> np.ndarray:
    member = mask[idx] & np.isfinite(values)
    count = member.sum(axis=1)
    total = np.where(member, values, 0.0).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.maximum(count, 1), np.nan)


def bootstrap_pass_at_k(n: np.ndarray, c: np.ndarray, strata: Strata, ks: Sequence[int],
                        spec: IntervalSpec, groups: Mapping[str, np.ndarray] | None = None) -> dict:
    """Intervals for micro and macro pass@k per k, and for each group (a task mask, micro mean).

    Returns {k: {"micro": {ci_low, ci_high, se}, "macro": {...}, "groups": {name: {...}}}}.
    Tasks with no counted candidates never enter a replicate.
    """
    n = np.asarray(n, dtype=np.int64)
    c = np.asarray(c, dtype=np.int64)
    keep = n > 0
    groups = {name: np.asarray(mask, dtype=bool)[keep] for name, mask in (groups or {}).items()}
    n, c, codes = n[keep], c[keep], strata.codes[keep]
    ks = [int(k) for k in ks]
    lookups = {k: PassAtKLookup(n, k) for k in ks}
    collected = {k: {"micro": [], "macro": [], "groups": {g: [] for g in groups}} for k in ks}
    rng = np.random.default_rng(spec.seed)
    for reps in (_chunks(spec.resamples, n.size) if n.size else ()):
        idx = _resample_tasks(rng, codes, reps)
        n_b = n[idx]
        c_b = _resample_passes(rng, n, c, idx, spec.method == "bootstrap")
        codes_b = codes[idx]
        for k in ks:
            values = lookups[k](n_b, c_b)
            for rule in AGGREGATIONS:
                collected[k][rule].append(aggregate_rows(values, codes_b, strata, rule))
            for name, mask in groups.items():
                collected[k]["groups"][name].append(_group_means(values, idx, mask))
    out = {}
    for k in ks:
        entry = collected[k]
        out[k] = {rule: _summary(_cat(entry[rule]), spec.level) for rule in AGGREGATIONS}
        out[k]["groups"] = {g: _summary(_cat(v), spec.level) for g, v in entry["groups"].items()}
    return out


def paired_bootstrap(n_base: np.ndarray, c_base: np.ndarray, n_cand: np.ndarray, c_cand: np.ndarray,
                     strata: Strata, ks: Sequence[int], spec: IntervalSpec, rule: str) -> dict:
    """Interval of pass@k(candidate) - pass@k(baseline) on the same tasks, drawn as pairs.

    Each replicate draws one set of tasks for both runs; candidates are redrawn within each run.
    Per k, only tasks estimable in both runs (n >= k in each) count.
    Returns {k: {ci_low, ci_high, se}}.
    """
    arrays = [np.asarray(a, dtype=np.int64) for a in (n_base, c_base, n_cand, c_cand)]
    n_a, c_a, n_b, c_b = arrays
    keep = (n_a > 0) & (n_b > 0)
    n_a, c_a, n_b, c_b, codes = n_a[keep], c_a[keep], n_b[keep], c_b[keep], strata.codes[keep]
    ks = [int(k) for k in ks]
    look_a = {k: PassAtKLookup(n_a, k) for k in ks}
    look_b = {k: PassAtKLookup(n_b, k) for k in ks}
    collected: dict[int, list] = {k: [] for k in ks}
    rng = np.random.default_rng(spec.seed)
    within = spec.method == "bootstrap"
    for reps in (_chunks(spec.resamples, n_a.size) if n_a.size else ()):
        idx = _resample_tasks(rng, codes, reps)
        pa = _resample_passes(rng, n_a, c_a, idx, within)
        pb = _resample_passes(rng, n_b, c_b, idx, within)
        codes_b = codes[idx]
        for k in ks:
            va = look_a[k](n_a[idx], pa)
            vb = look_b[k](n_b[idx], pb)
            both = np.isfinite(va) & np.isfinite(vb)
            diff = (aggregate_rows(np.where(both, vb, np.nan), codes_b, strata, rule)
                    - aggregate_rows(np.where(both, va, np.nan), codes_b, strata, rule))
            collected[k].append(diff)
    return {k: _summary(_cat(collected[k]), spec.level) for k in ks}


def _cat(parts: list) -> np.ndarray:
    return np.concatenate(parts) if parts else np.zeros(0)
