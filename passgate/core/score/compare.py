"""Paired comparison of two runs on the same tasks: candidate model against baseline model.

The difference is pass@k(candidate) - pass@k(baseline) over the tasks both runs counted, with a
paired bootstrap interval (one draw of tasks for both runs). The scoring contract (k, aggregation,
weights, interval) is the candidate run's; slices come from the candidate run's tasks.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import replace
from typing import Sequence

import numpy as np

from .chained import chained_section
from .context import run_section
from .data import RunRecords, load_records
from .edits import compare_sections
from .estimate import paired_intervals
from .intervals import IntervalSpec, interval_dict
from .report import load_manifest, scoring_contract
from .scoring import Strata, aggregate, pass_at_k_array

SCHEMA = "passgate.comparison/1"
LIST_LIMIT = 200   # largest pass@1 drops / gains listed


def _aligned(base: RunRecords, cand: RunRecords) -> tuple[list[str], np.ndarray, np.ndarray, dict]:
    """Task ids counted by both runs, and the indices of each in its run's arrays."""
    pos_a = {t: i for i, t in enumerate(base.task_ids.tolist())}
    pos_b = {t: i for i, t in enumerate(cand.task_ids.tolist())}
    shared = [t for t in cand.task_ids.tolist() if t in pos_a]
    both = [t for t in shared if base.n[pos_a[t]] > 0 and cand.n[pos_b[t]] > 0]
    info = {"shared": len(shared), "paired": len(both),
            "only_baseline": sorted(set(pos_a) - set(pos_b)), "only_candidate": sorted(set(pos_b) - set(pos_a)),
            "not_counted_in_one": sorted(set(shared) - set(both))}
    return both, np.array([pos_a[t] for t in both], dtype=np.int64), \
        np.array([pos_b[t] for t in both], dtype=np.int64), info


def build_comparison(store, baseline_id: str, candidate_id: str, *, k: Sequence[int] | None = None,
                     interval: IntervalSpec | None = None, parallel: bool = True) -> dict:
    """Paired pass@k difference with its interval, per slice, and the tasks that changed."""
    base_run, cand_run = store.run(baseline_id), store.run(candidate_id)
    config = scoring_contract(load_manifest(store, cand_run))
    if interval is not None:
        config = replace(config, interval=interval)
    if k:
        config = replace(config, k=tuple(sorted({int(x) for x in k})))
    base = load_records(store, base_run["run_id"], parallel=parallel)
    cand = load_records(store, cand_run["run_id"], parallel=parallel)
    ids, ia, ib, info = _aligned(base, cand)
    n_a, c_a, n_b, c_b = base.n[ia], base.c[ia], cand.n[ib], cand.c[ib]
    slices = cand.slices[ib]
    strata = Strata.from_slices(slices, config.weights)
    rule = config.aggregation
    boot = paired_intervals(ids, (n_a, c_a), (n_b, c_b), slices, config.k, config.interval, rule,
                            config.weights) if ids else {}
    rows = []
    for kk in config.k:
        va, vb = pass_at_k_array(n_a, c_a, kk), pass_at_k_array(n_b, c_b, kk)
        both = np.isfinite(va) & np.isfinite(vb)
        pa = aggregate(np.where(both, va, np.nan), strata, rule) if ids else float("nan")
        pb = aggregate(np.where(both, vb, np.nan), strata, rule) if ids else float("nan")
        rows.append({"k": int(kk), "baseline": _num(pa), "candidate": _num(pb), "difference": _num(pb - pa),
                     **(boot.get(kk) or {"ci_low": None, "ci_high": None, "se": None}),
                     "tasks": int(both.sum()), "not_estimable_tasks": int((~both).sum())})
    return {
        "schema": SCHEMA,
        "generated_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "baseline": run_section(base_run),
        "candidate": run_section(cand_run),
        "aggregation": rule,
        "weights": {name: float(w) for name, w in zip(strata.names, strata.weights)},
        "interval": {**interval_dict(config.interval, len(ids)), "paired": "one draw of tasks for both runs"},
        "tasks": info,
        "pass_at_k": rows,
        "by_slice": _by_slice(slices, n_a, c_a, n_b, c_b, config.k),
        "changed": _changed(ids, n_a, c_a, n_b, c_b),
        "chained": _chained(base, cand, config.interval),
        **compare_sections(store.db.conn, base_run["run_id"], cand_run["run_id"], config.interval.level),
    }


def _chained(base: RunRecords, cand: RunRecords, spec: IntervalSpec) -> dict | None:
    """Pass rate per chain depth and the decay factor in both runs, side by side (null without chained tasks)."""
    a, b = chained_section(base, spec), chained_section(cand, spec)
    if a is None and b is None:
        return None
    rate = {"baseline": {r["depth"]: r for r in (a or {}).get("per_depth", [])},
            "candidate": {r["depth"]: r for r in (b or {}).get("per_depth", [])}}
    rows = []
    for d in sorted(set(rate["baseline"]) | set(rate["candidate"])):
        ra, rb = rate["baseline"].get(d), rate["candidate"].get(d)
        rows.append({"depth": d, "baseline": ra and ra["pass_rate"], "candidate": rb and rb["pass_rate"],
                     "difference": rb["pass_rate"] - ra["pass_rate"] if ra and rb else None})
    return {"per_depth": rows, "decay": {"baseline": (a or {}).get("decay"), "candidate": (b or {}).get("decay")}}


def _num(x) -> float | None:
    return None if x is None or not np.isfinite(x) else float(x)


def _by_slice(slices, n_a, c_a, n_b, c_b, ks) -> list[dict]:
    out = []
    for name in sorted(set(slices.tolist())):
        m = slices == name
        for kk in ks:
            va, vb = pass_at_k_array(n_a[m], c_a[m], kk), pass_at_k_array(n_b[m], c_b[m], kk)
            both = np.isfinite(va) & np.isfinite(vb)
            a = float(va[both].mean()) if both.any() else None
            b = float(vb[both].mean()) if both.any() else None
            out.append({"slice": name, "k": int(kk), "baseline": a, "candidate": b,
                        "difference": None if a is None else b - a, "tasks": int(both.sum())})
    return out


def _changed(ids: list[str], n_a, c_a, n_b, c_b) -> dict:
    """Tasks solved by one run and not the other (solved = at least one counted candidate passed),
    and the largest pass@1 moves either way."""
    solved_a, solved_b = c_a > 0, c_b > 0
    p1_a = np.where(n_a > 0, c_a / np.maximum(n_a, 1), np.nan)
    p1_b = np.where(n_b > 0, c_b / np.maximum(n_b, 1), np.nan)

    def rows(mask: np.ndarray) -> list[dict]:
        return [{"task_id": ids[i], "baseline": f"{int(c_a[i])}/{int(n_a[i])}",
                 "candidate": f"{int(c_b[i])}/{int(n_b[i])}",
                 "pass_at_1_change": float(p1_b[i] - p1_a[i])} for i in np.flatnonzero(mask)]

    delta = p1_b - p1_a
    order = np.argsort(delta, kind="stable")
    drops = [i for i in order[:LIST_LIMIT] if delta[i] < 0]
    gains = [i for i in order[::-1][:LIST_LIMIT] if delta[i] > 0]
    pick = lambda idx: rows(np.isin(np.arange(len(ids)), idx)) if len(idx) else []  # noqa: E731
    return {
        "rule": "solved = at least one counted candidate passed the protected tests",
        "pass_to_fail": rows(solved_a & ~solved_b),
        "fail_to_pass": rows(~solved_a & solved_b),
        "counts": {"pass_to_fail": int((solved_a & ~solved_b).sum()), "fail_to_pass": int((~solved_a & solved_b).sum()),
                   "both_pass": int((solved_a & solved_b).sum()), "both_fail": int((~solved_a & ~solved_b).sum()),
                   "pass_at_1_down": int((delta < 0).sum()), "pass_at_1_up": int((delta > 0).sum())},
        "largest_drops": sorted(pick(drops), key=lambda r: r["pass_at_1_change"]),
        "largest_gains": sorted(pick(gains), key=lambda r: -r["pass_at_1_change"]),
    }
