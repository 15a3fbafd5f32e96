"""Bootstrap confidence intervals and standard errors for pass@k, single-run and paired.

Method `bootstrap` (the default) resamples at two levels, as the record was drawn: tasks with
replacement within each slice (so the slice mix stays as declared), then, for each drawn task,
its n candidates with replacement, which gives Binomial(n, c/n) passes. `bootstrap_tasks`
resamples tasks only. The interval is the percentile interval of the replicates; the standard
error is their standard deviation.

The candidate level is drawn exactly (one binomial per drawn task) while replicates x tasks is at
most `EXACT_CELLS`. Beyond that (thousands of tasks) one binomial per cell would dominate the
report's time, so each replicate's slice sum gets one normal draw whose variance is the number of
tasks drawn times the slice's mean variance of its tasks' binomial resamples (computed exactly per
task): the same mean and, up to the spread of that sum, the same variance as the exact draw, with
the sum over many tasks taken as normal (central limit). The report records which was used
(`candidate_level`). Either way the candidate level is recentred on each task's own estimate
(see `_Run`), so it widens the interval without moving it.

Everything comes from `numpy.random.default_rng([seed, stream])` in chunks whose size depends
only on the number of tasks (the moments mode's noise from one stream per k), so a seed
reproduces the figures exactly. Callers go through `core/score/estimate.py`, which puts the
tasks in one order, so every command and screen prints the same interval.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Iterator, Mapping, Sequence

import numpy as np

from passgate.core.manifest import IntervalSpec

from .report_types import IntervalRecord
from .scoring import AGGREGATIONS, PassAtKLookup, Strata, pass_at_k_table

EXACT_CELLS = 1_000_000     # replicates x tasks up to which candidates are redrawn one by one
_CHUNK_CELLS = 500_000      # replicate x task cells per chunk: small enough to stay in cache


def interval_dict(spec: IntervalSpec, tasks: int | None = None) -> IntervalRecord:
    """The specification as the report records it beside a figure."""
    d = asdict(spec)
    d["resampled"] = ("tasks within slices, then candidates within tasks"
                      if spec.method == "bootstrap" else "tasks within slices")
    d["interval"] = "percentile"
    if tasks is not None:
        d["candidate_level"] = candidate_level(spec, tasks)
    return d


def candidate_level(spec: IntervalSpec, tasks: int) -> str:
    """How the candidate level is drawn for this many tasks: exact | moments | none."""
    if spec.method != "bootstrap":
        return "none"
    return "exact" if spec.resamples * tasks <= EXACT_CELLS else "moments"


# ---- resampling machinery -------------------------------------------------------------------

def _chunks(total: int, tasks: int) -> Iterator[int]:
    size = max(1, _CHUNK_CELLS // max(tasks, 1))
    done = 0
    while done < total:
        step = min(size, total - done)
        yield step
        done += step


@dataclass(frozen=True)
class _Blocks:
    """Tasks grouped by stratum; each replicate redraws every stratum's tasks from that stratum."""

    members: tuple[np.ndarray, ...]
    codes: tuple[int, ...]

    @classmethod
    def of(cls, strata_codes: np.ndarray) -> "_Blocks":
        codes = tuple(int(s) for s in np.unique(strata_codes))
        return cls(tuple(np.flatnonzero(strata_codes == s) for s in codes), codes)

    def draw(self, rng: np.random.Generator, reps: int) -> list[np.ndarray]:
        """Per stratum, (reps, size) indices into that stratum's own tasks."""
        return [rng.integers(0, m.size, size=(reps, m.size)) for m in self.members]


def _sum_count(values: np.ndarray, all_valid: bool) -> tuple[np.ndarray, np.ndarray]:
    """Row sums of the non-NaN values and their count."""
    if all_valid:
        return values.sum(axis=1), np.full(values.shape[0], float(values.shape[1]))
    ok = ~np.isnan(values)
    return np.where(ok, values, 0.0).sum(axis=1), ok.sum(axis=1).astype(np.float64)


def _within_moments(n: np.ndarray, c: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Per task, mean and variance of pass@k(n, X) with X ~ Binomial(n, c/n) (exact, by pmf)."""
    mean = np.full(n.shape, np.nan)
    var = np.full(n.shape, np.nan)
    for nv in np.unique(n):
        if nv < k:
            continue
        at = n == nv
        cs, inverse = np.unique(c[at], return_inverse=True)
        pmf = _binomial_pmf(int(nv), cs / nv)             # (len(cs), nv + 1)
        table = pass_at_k_table(int(nv), k)
        m1 = pmf @ table
        m2 = pmf @ (table * table)
        mean[at] = m1[inverse]
        var[at] = np.maximum(m2 - m1 * m1, 0.0)[inverse]
    return mean, var


def _binomial_pmf(n: int, p: np.ndarray) -> np.ndarray:
    """Rows: Binomial(n, p_i) probabilities of 0..n, via log-factorials (no scipy)."""
    j = np.arange(n + 1)
    logfact = np.concatenate(([0.0], np.cumsum(np.log(np.arange(1, n + 1)))))
    log_choose = logfact[n] - logfact[j] - logfact[n - j]
    p = np.asarray(p, dtype=np.float64)[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        logp = np.where(j > 0, j * np.log(p), 0.0) + np.where(j < n, (n - j) * np.log1p(-p), 0.0)
    pmf = np.exp(log_choose + logp)
    return pmf / pmf.sum(axis=1, keepdims=True)


class _Run:
    """One run's tasks under resampling: per chunk, per k, slice sums and counts of pass@k.

    Arrays are cut per stratum once, so a replicate only gathers from its stratum's small arrays.
    The candidate level is recentred per task: pass@k is not linear in c, so raw binomial redraws
    would pull every k > 1 figure down (Jensen); shifting each task's redraws by
    pass@k(n, c) - E[pass@k(n, X)] keeps their spread and the task's own estimate as centre.
    """

    def __init__(self, n: np.ndarray, c: np.ndarray, blocks: _Blocks, level: str, valid: Mapping[int, np.ndarray]):
        self.blocks, self.level = blocks, level
        rate = np.where(n > 0, c / np.maximum(n, 1), 0.0)
        self.n = [n[m] for m in blocks.members]
        self.rate = [rate[m] for m in blocks.members]
        self.per_k = {k: self._cut(n, c, k, v) for k, v in valid.items()}
        self.c_b: list[np.ndarray] = []

    def _cut(self, n: np.ndarray, c: np.ndarray, k: int, valid: np.ndarray) -> list[dict]:
        lookup = PassAtKLookup(n, k)
        point = lookup(n, c)
        mean, var = _within_moments(n, c, k) if self.level != "none" else (point, np.zeros_like(point))
        offsets = lookup.offsets_for(n)
        cut = []
        for m in self.blocks.members:
            ok = valid[m]
            cut.append({"all": bool(ok.all()), "valid": ok, "point": np.where(ok, point[m], np.nan),
                        "shift": (point - mean)[m], "offsets": offsets[m], "flat": lookup.flat,
                        "var": float(var[m][ok].mean()) if ok.any() else 0.0})
        return cut

    def draw(self, rng: np.random.Generator, local: list[np.ndarray]) -> None:
        if self.level == "exact":
            self.c_b = [rng.binomial(n[loc], rate[loc]) for n, rate, loc in zip(self.n, self.rate, local)]

    def stats(self, rng, local: list[np.ndarray], k: int) -> tuple[np.ndarray, np.ndarray]:
        """(reps, strata) sums of pass@k over the drawn tasks, and how many were estimable."""
        reps = local[0].shape[0] if local else 0
        sums, counts = np.empty((reps, len(local))), np.empty((reps, len(local)))
        for j, (loc, cut) in enumerate(zip(local, self.per_k[k])):
            if self.level == "exact":
                values = np.clip(cut["flat"][cut["offsets"][loc] + self.c_b[j]] + cut["shift"][loc], 0.0, 1.0)
                if not cut["all"]:
                    values = np.where(cut["valid"][loc], values, np.nan)
            else:
                values = cut["point"][loc]
            sums[:, j], counts[:, j] = _sum_count(values, cut["all"])
        if self.level == "moments":
            # the candidate-level noise of a slice sum: the drawn tasks' summed variance, taken as
            # the count drawn times the slice's mean variance (moments mode means thousands of tasks)
            mean_var = np.array([cut["var"] for cut in self.per_k[k]])
            sums = np.clip(sums + rng.normal(0.0, np.sqrt(counts * mean_var)), 0.0, counts)
        return sums, counts


def _combine(sums: np.ndarray, counts: np.ndarray, weights: np.ndarray, rule: str) -> np.ndarray:
    """Micro (weighted task mean) or macro (weighted mean of stratum means) per replicate."""
    with np.errstate(invalid="ignore", divide="ignore"):
        if rule == "micro":
            den = (counts * weights).sum(axis=1)
            return np.where(den > 0, (sums * weights).sum(axis=1) / np.where(den > 0, den, 1), np.nan)
        has = (counts > 0) & (weights > 0)
        means = np.where(has, sums / np.where(counts > 0, counts, 1), 0.0)
        den = np.where(has, weights, 0.0).sum(axis=1)
        return np.where(den > 0, (means * weights).sum(axis=1) / np.where(den > 0, den, 1), np.nan)


def _summary(reps: np.ndarray, level: float) -> dict:
    reps = reps[np.isfinite(reps)]
    if reps.size < 2:
        return {"ci_low": None, "ci_high": None, "se": None}
    alpha = (1.0 - level) / 2.0
    lo, hi = np.quantile(reps, [alpha, 1.0 - alpha])
    return {"ci_low": float(lo), "ci_high": float(hi), "se": float(np.std(reps, ddof=1))}


def _noise_streams(spec: IntervalSpec, stream: int, ks: Sequence[int]) -> dict[int, np.random.Generator]:
    """One stream per k for the moments mode's noise, so the ks asked together never move each other."""
    return {k: np.random.default_rng([spec.seed, stream, 1_000_003 + k]) for k in ks}


# ---- public entry points --------------------------------------------------------------------

def bootstrap_pass_at_k(n: np.ndarray, c: np.ndarray, strata: Strata, ks: Sequence[int],
                        spec: IntervalSpec, stream: int = 0) -> dict:
    """Intervals for micro and macro pass@k per k, and for each slice on its own.

    Returns {k: {"micro": {ci_low, ci_high, se}, "macro": {...}, "strata": {slice: {...}}}}.
    Tasks with no counted candidates never enter a replicate. `stream` picks an independent
    random stream for the same seed (groups bootstrapped on their own use their own stream).
    """
    n, c = np.asarray(n, dtype=np.int64), np.asarray(c, dtype=np.int64)
    keep = n > 0
    n, c, codes = n[keep], c[keep], strata.codes[keep]
    blocks = _Blocks.of(codes)
    weights = strata.weights[list(blocks.codes)]
    ks = [int(k) for k in ks]
    run = _Run(n, c, blocks, candidate_level(spec, n.size), {k: n >= k for k in ks})
    parts: dict[int, list] = {k: [] for k in ks}
    rng = np.random.default_rng([spec.seed, stream])
    noise = _noise_streams(spec, stream, ks)
    for reps in (_chunks(spec.resamples, n.size) if n.size else ()):
        local = blocks.draw(rng, reps)
        run.draw(rng, local)
        for k in ks:
            parts[k].append(run.stats(noise[k], local, k))
    out = {}
    for k in ks:
        width = len(blocks.codes)
        sums = np.concatenate([p[0] for p in parts[k]]) if parts[k] else np.zeros((0, width))
        counts = np.concatenate([p[1] for p in parts[k]]) if parts[k] else np.zeros((0, width))
        out[k] = {rule: _summary(_combine(sums, counts, weights, rule), spec.level) for rule in AGGREGATIONS}
        with np.errstate(invalid="ignore", divide="ignore"):
            means = sums / counts
        out[k]["strata"] = {strata.names[code]: _summary(means[:, j], spec.level)
                            for j, code in enumerate(blocks.codes)}
    return out


def paired_bootstrap(n_base: np.ndarray, c_base: np.ndarray, n_cand: np.ndarray, c_cand: np.ndarray,
                     strata: Strata, ks: Sequence[int], spec: IntervalSpec, rule: str, *,
                     runs: bool = False) -> dict:
    """Interval of pass@k(candidate) - pass@k(baseline) on the same tasks, drawn as pairs.

    Each replicate draws one set of tasks for both runs; candidates are redrawn within each run
    independently. Per k, only tasks estimable in both runs (n >= k in each) count.
    Returns {k: {ci_low, ci_high, se}}.
    """
    if rule not in AGGREGATIONS:
        raise ValueError(f"aggregation must be one of {AGGREGATIONS}, got {rule!r}")
    n_a, c_a, n_b, c_b = (np.asarray(x, dtype=np.int64) for x in (n_base, c_base, n_cand, c_cand))
    keep = (n_a > 0) & (n_b > 0)
    n_a, c_a, n_b, c_b, codes = n_a[keep], c_a[keep], n_b[keep], c_b[keep], strata.codes[keep]
    blocks = _Blocks.of(codes)
    weights = strata.weights[list(blocks.codes)]
    ks = [int(k) for k in ks]
    level = candidate_level(spec, n_a.size)
    valid = {k: (n_a >= k) & (n_b >= k) for k in ks}
    base, cand = _Run(n_a, c_a, blocks, level, valid), _Run(n_b, c_b, blocks, level, valid)
    collected: dict[int, dict] = {k: {"diff": [], "base": [], "cand": []} for k in ks}
    rng = np.random.default_rng([spec.seed, 0])
    noise = _noise_streams(spec, 0, ks)
    for reps in (_chunks(spec.resamples, n_a.size) if n_a.size else ()):
        local = blocks.draw(rng, reps)
        base.draw(rng, local)
        cand.draw(rng, local)
        for k in ks:
            vb = _combine(*cand.stats(noise[k], local, k), weights, rule)
            va = _combine(*base.stats(noise[k], local, k), weights, rule)
            collected[k]["diff"].append(vb - va)
            collected[k]["base"].append(va)
            collected[k]["cand"].append(vb)
    out = {}
    for k in ks:
        parts = {name: np.concatenate(v) if v else np.zeros(0) for name, v in collected[k].items()}
        out[k] = _summary(parts["diff"], spec.level)
        if runs:
            out[k]["baseline"] = _summary(parts["base"], spec.level)
            out[k]["candidate"] = _summary(parts["cand"], spec.level)
    return out
