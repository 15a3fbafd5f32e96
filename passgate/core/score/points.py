"""Point estimates of pass@k from the record, without intervals: the report's rows and the what-if lab's."""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from .data import RunRecords
from .scoring import Strata, aggregate, denominator, pass_at_k_array


def finite_or_none(x) -> float | None:
    """A float for JSON, or None where the estimate is not a number (no task qualifies)."""
    return None if x is None or not np.isfinite(x) else float(x)


def point_scores(recs: RunRecords, ks: Sequence[int], weights: Mapping[str, float],
                 mask: np.ndarray | None = None) -> list[dict]:
    """Micro and macro pass@k per k with denominators, no intervals (what-ifs use this)."""
    n, c = recs.n, recs.c
    if mask is not None:
        n = np.where(mask, n, 0)
        c = np.where(mask, c, 0)
    strata = Strata.from_slices(recs.slices, weights)
    out = []
    for k in ks:
        values = pass_at_k_array(n, c, k)
        out.append({"k": int(k), "micro": {"value": finite_or_none(aggregate(values, strata, "micro"))},
                    "macro": {"value": finite_or_none(aggregate(values, strata, "macro"))},
                    "denominator": denominator(n if mask is None else n[mask], k)})
    return out
