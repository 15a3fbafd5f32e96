"""The report's `latency` section: how long the model took per completion, per slice.

Three measures, each only over the candidates that recorded it (never estimated): `first_token_ms`
(time to the first streamed token), `total_ms` (the whole answer, as the client saw it) and
`tokens_per_s` (completion tokens over the whole answer's seconds). Each gets p50, p90 and p99 by
nearest rank, with a distribution-free interval from order statistics: the ranks l and u such that
P(l <= B < u) >= level for B ~ Binomial(n, q). Too few completions for a bound leave it null (for
p99 at 95% that takes about 300). Pure functions of plain rows; `latency_rows` reads the record.
"""

from __future__ import annotations

import math
from typing import Iterable, Mapping, Sequence

import numpy as np

from passgate.core.record.queries import report as queries

from .report_types import LatencyGroup, LatencySection, MeasureSummary, Quantile

MEASURES = ("first_token_ms", "total_ms", "tokens_per_s")
PERCENTILES = (50, 90, 99)
METHOD = "nearest-rank percentile; interval from order statistics (binomial, distribution-free)"


def latency_rows(store, run_id: str) -> tuple[list[dict], dict[str, int]]:
    """The run's answered candidates that recorded a timing (canaries aside), with their slice and
    source, and how many answered candidates each slice has in all. `store` is the Store, or a
    sqlite3 connection to its file."""
    rows = queries.timed_candidates(store, run_id)
    answered = queries.answered_by_slice(store, run_id) if rows else {}
    return rows, answered


def measures_of(row: Mapping) -> dict[str, float | None]:
    """A candidate's three measures (None where the record has no value)."""
    total, tokens = row.get("latency_ms"), row.get("completion_tokens")
    rate = tokens / (total / 1000) if total and tokens is not None and total > 0 else None
    return {"first_token_ms": row.get("first_token_ms"), "total_ms": total, "tokens_per_s": rate}


def quantile(values: Sequence[float], q: float, level: float) -> Quantile:
    """Nearest-rank quantile q (0-1) of `values` with its order-statistic interval at `level`."""
    x = np.sort(np.asarray(values, dtype=float))
    n = x.size
    if n == 0:
        return {"value": None, "ci_low": None, "ci_high": None}
    rank = max(1, math.ceil(q * n))
    cdf = np.cumsum(_binomial_pmf(n, q))               # P(B <= k), k = 0..n
    alpha = (1 - level) / 2
    lows = np.flatnonzero(cdf[:-1] <= alpha)            # l - 1 with P(B <= l - 1) <= alpha
    highs = np.flatnonzero(cdf[:-1] >= 1 - alpha)       # u - 1 with P(B <= u - 1) >= 1 - alpha
    low = int(lows[-1]) + 1 if lows.size else None
    high = int(highs[0]) + 1 if highs.size else None
    return {"value": float(x[rank - 1]), "ci_low": None if low is None else float(x[low - 1]),
            "ci_high": None if high is None else float(x[high - 1])}


def _binomial_pmf(n: int, p: float) -> np.ndarray:
    k = np.arange(n + 1)
    logfact = np.concatenate(([0.0], np.cumsum(np.log(np.arange(1, n + 1)))))
    with np.errstate(divide="ignore"):
        logpmf = logfact[n] - logfact[k] - logfact[n - k] + k * math.log(p) + (n - k) * math.log1p(-p)
    pmf = np.exp(logpmf)
    return pmf / pmf.sum()


def summary(values: Iterable[float | None], level: float) -> MeasureSummary:
    """n, mean and p50/p90/p99 with intervals over the values that are not None."""
    kept = [float(v) for v in values if v is not None]
    out = {"n": len(kept), "mean": float(np.mean(kept)) if kept else None}
    for p in PERCENTILES:
        out[f"p{p}"] = quantile(kept, p / 100, level)
    return out


def latency_section(rows: list[dict], level: float, pass_at_1: Mapping[str, Mapping] | None = None,
                    answered: Mapping[str, int] | None = None) -> LatencySection | None:
    """Per slice and overall, each measure's percentiles; None when no candidate recorded a latency.

    `pass_at_1` (slice -> {value, ci_low, ci_high}) is set beside each slice's figures; `answered`
    (slice -> answered candidates) counts those without a timing too (default: the rows given)."""
    rows = [r for r in rows if any(v is not None for v in measures_of(r).values())]
    if not rows:
        return None
    groups: dict[str, list[dict]] = {}
    for r in rows:
        groups.setdefault(r["slice"], []).append(r)
    answered = dict(answered or {})
    for name, members in groups.items():
        answered[name] = max(answered.get(name, 0), len(members))
    return {"level": level, "method": METHOD,
            "rule": "tokens_per_s = completion tokens / the whole answer's seconds; a candidate without a "
                    "recorded timing is left out, never estimated",
            "overall": _group("all", rows, level, None, sum(answered.values())),
            "slices": [_group(name, groups.get(name, []), level, (pass_at_1 or {}).get(name), answered[name])
                       for name in sorted(answered)]}


def _group(name: str, rows: list[dict], level: float, p1: Mapping | None, answered: int) -> LatencyGroup:
    values = [measures_of(r) for r in rows]
    sources: dict[str, int] = {}
    for r, v in zip(rows, values):
        if any(x is not None for x in v.values()):
            key = "streamed" if v["first_token_ms"] is not None else "whole answer"
            key = f"{r.get('source') or 'unknown'}, {key}"
            sources[key] = sources.get(key, 0) + 1
    out = {"slice": name, "candidates": answered, "with_latency": sum(sources.values()), "sources": sources,
           "pass_at_1": dict(p1) if p1 else None}
    for m in MEASURES:
        out[m] = summary((v[m] for v in values), level)
    return out


def budget_value(section: Mapping | None, measure: str, percentile: int, slice_name: str | None) -> dict | None:
    """One figure of the section (a budget's subject): {value, ci_low, ci_high, n} or None when absent."""
    if not section:
        return None
    group = section["overall"] if slice_name is None else next(
        (g for g in section["slices"] if g["slice"] == slice_name), None)
    if group is None:
        return None
    summ = group[measure]
    return {**summ[f"p{percentile}"], "n": summ["n"]}
