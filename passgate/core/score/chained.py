"""The report's `chained` section: pass rate per chain depth and the decay per extra building block.

For the tasks tagged `depth:D` (core/tasks/chained.py) the pass rate at each depth is the mean over
its tasks of c/n (pass@1), with a bootstrap interval over those tasks. The decay model is
p(D) = a * r^(D - 1): r is the factor each extra block multiplies the pass rate by, fitted by least
squares weighted by tasks, and its interval comes from refitting on the same bootstrap replicates.
"""

from __future__ import annotations

import numpy as np

from passgate.core.model import depth_of

from .report_types import ChainedSection

_GRID = np.linspace(0.005, 1.5, 300)        # candidate decay factors


def chained_section(recs, spec) -> ChainedSection | None:
    """Per depth and the fitted decay, or None when the run has no chained tasks."""
    depths = np.array([depth_of(t) or 0 for t in recs.tags])
    counted = (depths > 0) & (recs.n > 0)
    if not counted.any():
        return None
    rate = np.where(counted, recs.c / np.maximum(recs.n, 1), 0.0)
    levels = sorted(set(depths[counted].tolist()))
    rng = np.random.default_rng([spec.seed, 409])
    reps = np.empty((spec.resamples, len(levels)))
    rows = []
    alpha = (1 - spec.level) / 2
    for j, d in enumerate(levels):
        values = rate[counted & (depths == d)]
        picks = rng.integers(0, values.size, size=(spec.resamples, values.size))
        reps[:, j] = values[picks].mean(axis=1)
        lo, hi = np.quantile(reps[:, j], [alpha, 1 - alpha])
        at = counted & (depths == d)
        rows.append({"depth": int(d), "tasks": int(values.size), "candidates": int(recs.n[at].sum()),
                     "passed": int(recs.c[at].sum()), "pass_rate": float(values.mean()),
                     "ci_low": float(lo), "ci_high": float(hi)})
    weights = np.array([r["tasks"] for r in rows], dtype=float)
    x = np.array(levels, dtype=float) - 1
    point = _fit(np.array([r["pass_rate"] for r in rows])[None, :], x, weights)
    boot = _fit(reps, x, weights)
    lo, hi = np.quantile(boot[:, 1], [alpha, 1 - alpha]) if len(levels) > 1 else (None, None)
    return {"per_depth": rows, "level": spec.level, "resamples": spec.resamples,
            "decay": {"model": "pass_rate = a * factor ** (depth - 1)", "a": float(point[0, 0]),
                      "factor": float(point[0, 1]) if len(levels) > 1 else None,
                      "ci_low": None if lo is None else float(lo), "ci_high": None if hi is None else float(hi),
                      "depths": len(levels)}}


def _fit(p: np.ndarray, x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Per row of p (replicates x depths): (a, r) minimising sum w (p - a r^x)^2 over the grid of r."""
    basis = _GRID[:, None] ** x[None, :]                            # grid x depths
    num = (p * w) @ basis.T                                         # rows x grid
    den = (w * basis ** 2).sum(axis=1)                              # grid
    a = num / den
    resid = ((p[:, None, :] - a[:, :, None] * basis[None, :, :]) ** 2 * w).sum(axis=2)
    best = resid.argmin(axis=1)
    return np.stack([a[np.arange(p.shape[0]), best], _GRID[best]], axis=1)
