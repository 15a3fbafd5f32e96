"""A run's report as plain data: scores with intervals and denominators, and what sits beside them.

`build_report(store, run_id)` returns a JSON-ready dict whose layout is documented in
docs/report-schema.md (`"schema": "passgate.report/1"`) and typed as `Report` in report_types.py.
Renderers (terminal, markdown, JUnit, SVG) only read this dict. Sections beside the scores
(configuration, execution, cost, omissions) are built in context.py.
"""

from __future__ import annotations

import datetime as _dt
import json
import zlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Mapping, Sequence

import numpy as np

from passgate.core.errors import ConfigError, StoreError
from passgate.core.manifest import Manifest, ScoringContract, frozen_manifest
from passgate.core.record.queries import report as queries

from .canaries import canaries_section
from .chained import chained_section
from .context import (
    config_section,
    cost_section,
    counts_section,
    execution_section,
    flaky_section,
    not_imported_lines,
    omissions_section,
    parse_json,
    run_section,
    with_not_imported,
)
from .contract import contract_section
from .data import RecordsJob, Rescore, RunRecords
from .edits import local_edit_sections
from .estimate import paired_intervals, pass_at_k_intervals
from .fidelity import fidelity_summary
from .generation import generation_section
from .integrity import integrity_section
from .intervals import IntervalSpec, interval_dict
from .languages import languages_section
from .points import finite_or_none, point_scores
from .report_types import (FidelitySection, FilteredSection, Interval, PublicProtectedSection, RankedSection,
                           RankedUnavailable, Report, ScoreGroup, ScoresSection, TaskRow)
from .repository import repository_section
from .scoring import AGGREGATIONS, Strata, aggregate, denominator, pass_at_k_array
from .security import security_section
from .tamper import tamper_section

SCHEMA = "passgate.report/1"
_NO_CI = {"ci_low": None, "ci_high": None, "se": None}


def scoring_contract(manifest: Manifest | None) -> ScoringContract:
    """The frozen manifest's scoring contract as the report applies it (k sorted, once each); the
    model's defaults when the record holds no manifest."""
    if manifest is None:
        return ScoringContract()
    ks = tuple(sorted(set(manifest.scoring.k))) or (1,)
    if ks[0] < 1:           # a frozen manifest is not cross-checked again (core/manifest/frozen.py)
        raise ConfigError(f"the run's frozen manifest has an unusable scoring section: every k must be >= 1, "
                          f"got {list(ks)}", field="scoring.k")
    return replace(manifest.scoring, k=ks)


def load_manifest(store, run: Mapping) -> Manifest | None:
    """The run's frozen manifest as the typed model; None when the record holds none, and then the
    report shows the defaults and an empty configuration. One that cannot be rebuilt is refused."""
    try:
        row = store.manifest(run["manifest_id"]) if run.get("manifest_id") else None
    except StoreError:  # no manifest row
        row = None
    return frozen_manifest(row.get("canonical_json")) if row else None


def build_report(store, run_id: str, *, interval: IntervalSpec | None = None, k: Sequence[int] | None = None,
                 whatif: Sequence[str] = (), parallel: bool = True) -> Report:
    """Everything a release ticket needs about one run, from its record alone.

    `interval` and `k` override the manifest's scoring contract; each `whatif` string is one
    scenario re-scored from the record (see core/score/whatif.py).
    """
    run = store.run(run_id)
    manifest = load_manifest(store, run)
    config = scoring_contract(manifest)
    if interval is not None:
        config = replace(config, interval=interval)
    if k:
        config = replace(config, k=tuple(sorted({int(x) for x in k})))
    with ThreadPoolExecutor(max_workers=5 if parallel else 1) as pool:
        job = RecordsJob(store, run["run_id"], Rescore(), pool if parallel else None)
        # pass@k needs only the outcome part: its bootstraps run while the other scans finish
        recs = job.outcomes()
        scores = pool.submit(scores_section, recs, config)
        public = pool.submit(public_protected_section, recs, config)
        generation = generation_section(store, run["run_id"], manifest)  # None unless generated
        recs = job.result()
        report: Report = {
            "schema": SCHEMA,
            "generated_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            "run": run_section(run),
            "config": config_section(store, run, manifest, recs),
            "counts": counts_section(recs),
            "scores": scores.result(),
            "public_vs_protected": public.result(),
            "filtered_pass_at_1": filtered_section(recs, config.interval),
            "ranked_pass_at_1": ranked_section(recs, config.interval),
            "execution": execution_section(recs),
            "cost": cost_section(recs),
            "flaky": flaky_section(recs),
            "omissions": with_not_imported(omissions_section(recs, config.k),
                                           not_imported_lines(store, run["run_id"])),
            "probe": parse_json(run.get("probe_json")),
            "preflight": parse_json(run.get("preflight_json")),
            "selfcheck": parse_json(run.get("selfcheck_json")),
            "fidelity": fidelity_section(store, run),
            "integrity": integrity_section(store, run),
            "security": security_section(store, run),
            "canaries": canaries_section(store, run),
            "tamper": tamper_section(store, run),
            "contract": contract_section(store, run),
            "chained": chained_section(recs, config.interval),
            "languages": languages_section(store, run["run_id"], recs, config.interval),
            "repository": repository_section(store, run["run_id"]),
            **local_edit_sections(store.db.conn, run["run_id"], scores.result(), config.interval.level),
            "generation": generation,
            "tasks": task_rows(recs, config.k),
            "whatif": [],
        }
    if whatif:
        from .whatif import run_whatifs
        report["whatif"] = run_whatifs(store, run["run_id"], recs, config, whatif, parallel=parallel)
    return report


def fidelity_section(store, run: Mapping) -> FidelitySection:
    """The grading protocol, and the cross-check's agreement with each disagreement (score/fidelity.py)."""
    rows = queries.cross_checked_executions(store, run["run_id"])
    notes = queries.execution_notes(store, run["run_id"])
    return {"grading_protocol": run.get("grading_protocol") or 1, **fidelity_summary(rows),
            "notes": [{"task_id": r.task_id, "candidate_index": r.candidate_index,
                       "notes": json.loads(r.evidence_json).get("notes", [])} for r in notes][:200]}


# ---- scores --------------------------------------------------------------------------------

def scores_section(recs: RunRecords, config: ScoringContract) -> ScoresSection:
    """pass@k for every declared k: micro and macro over slices, per slice, per set, per tag."""
    strata = Strata.from_slices(recs.slices, config.weights)
    spec = config.interval
    n, c = recs.n, recs.c
    boot = pass_at_k_intervals(recs.task_ids, n, c, recs.slices, config.k, spec, config.weights)
    rows = point_scores(recs, config.k, config.weights)
    for row in rows:
        for rule in AGGREGATIONS:
            row[rule].update(boot[row["k"]][rule])
    head = rows[0]
    groups = [_group("slice", name, recs.slices == name, recs, config, boot_by_k={
        k: boot[k]["strata"].get(name) for k in config.k}, weight=float(strata.weights[i]))
        for i, name in enumerate(strata.names)]
    groups += _other_groups(recs, config, strata)
    return {
        "verifier": recs.rescore.verifier,
        "aggregation": config.aggregation,
        "k": list(config.k),
        "weights": {name: float(w) for name, w in zip(strata.names, strata.weights)},
        "weights_for_absent_slices": {name: float(w) for name, w in sorted(config.weights.items())
                                      if name not in strata.names},
        "interval": interval_dict(spec, int((n > 0).sum())),
        "headline": {"k": head["k"], "aggregation": config.aggregation, **head[config.aggregation],
                     "denominator": head["denominator"]},
        "pass_at_k": rows,
        "groups": groups,
    }


def _group(kind: str, name: str, mask: np.ndarray, recs: RunRecords, config: ScoringContract,
           boot_by_k: Mapping, weight: float | None = None) -> ScoreGroup:
    n = np.where(mask, recs.n, 0)
    entries = []
    for k in config.k:
        values = pass_at_k_array(n, np.where(mask, recs.c, 0), k)
        finite = values[np.isfinite(values)]
        entries.append({"k": int(k), "value": float(finite.mean()) if finite.size else None,
                        **(boot_by_k.get(k) or {"ci_low": None, "ci_high": None, "se": None}),
                        "denominator": denominator(n[mask], k)})
    group: ScoreGroup = {"kind": kind, "name": str(name), "tasks": int(mask.sum()), "pass_at_k": entries}
    if weight is not None:
        group["weight"] = weight
    return group


def _other_groups(recs: RunRecords, config: ScoringContract, strata: Strata) -> list[ScoreGroup]:
    """Benchmark sets and task tags, each bootstrapped over its own tasks (its own random stream)."""
    found: list[tuple[str, str, np.ndarray]] = []
    slice_sets = {tuple(np.flatnonzero(recs.slices == s)) for s in strata.names}
    for name in sorted(set(recs.set_ids.tolist()) - {""}):
        mask = recs.set_ids == name
        if tuple(np.flatnonzero(mask)) in slice_sets and name in strata.names:
            continue  # a set that is exactly a slice of the same name: already reported
        found.append(("set", name, mask))
    for tag in sorted({t for tags in recs.tags for t in tags}):
        found.append(("tag", tag, np.array([tag in tags for tags in recs.tags], dtype=bool)))
    out = []
    for kind, name, mask in found:
        stream = zlib.crc32(f"{kind}:{name}".encode())
        boot = pass_at_k_intervals(recs.task_ids[mask], recs.n[mask], recs.c[mask], ["all"] * int(mask.sum()),
                                   config.k, config.interval, stream=stream)
        out.append(_group(kind, name, mask, recs, config, boot_by_k={k: boot[k]["micro"] for k in config.k}))
    return out


def public_protected_section(recs: RunRecords, config: ScoringContract) -> PublicProtectedSection:
    """pass@k on the public (visible) tests and on the protected ones, over tasks that have both,
    and the protected-test gap (public minus protected) with a paired interval."""
    mask = recs.has_public & (recs["n_public"] > 0) & (recs["n"] > 0)
    strata = Strata.from_slices(recs.slices, config.weights)
    n_pub, c_pub = np.where(mask, recs["n_public"], 0), np.where(mask, recs["c_public"], 0)
    n_pro, c_pro = np.where(mask, recs["n"], 0), np.where(mask, recs["c"], 0)
    rule = config.aggregation
    rows = []
    # one paired bootstrap (same tasks for both suites) gives the public interval and the gap's
    gap = paired_intervals(recs.task_ids, (n_pro, c_pro), (n_pub, c_pub), recs.slices, config.k, config.interval,
                           rule, config.weights, runs=True) if mask.any() else {}
    for k in config.k:
        pub = aggregate(pass_at_k_array(n_pub, c_pub, k), strata, rule)
        pro = aggregate(pass_at_k_array(n_pro, c_pro, k), strata, rule)
        ci = gap.get(k) or {}
        rows.append({"k": int(k), "public": {"value": finite_or_none(pub), **ci.get("candidate", _NO_CI)},
                     "protected": {"value": finite_or_none(pro), **ci.get("baseline", _NO_CI)},
                     "gap": {"value": finite_or_none(pub - pro), **{key: ci.get(key) for key in _NO_CI}},
                     "denominator": denominator(n_pub[mask], k)})
    return {"aggregation": rule, "tasks": int(mask.sum()),
            "tasks_without_public_tests": int((~recs.has_public).sum()), "pass_at_k": rows,
            "note": "over tasks with public tests; gap = public - protected, paired over tasks"}


def _binary_interval(successes: int, tasks: int, spec: IntervalSpec, stream: int) -> Interval:
    """Bootstrap over tasks of a share of tasks: the replicate is Binomial(tasks, share)/tasks."""
    if tasks < 1:
        return {"ci_low": None, "ci_high": None, "se": None}
    rng = np.random.default_rng([spec.seed, stream])
    reps = rng.binomial(tasks, successes / tasks, size=spec.resamples) / tasks
    alpha = (1 - spec.level) / 2
    lo, hi = np.quantile(reps, [alpha, 1 - alpha])
    return {"ci_low": float(lo), "ci_high": float(hi), "se": float(np.std(reps, ddof=1))}


def filtered_section(recs: RunRecords, spec: IntervalSpec) -> FilteredSection:
    """Codex-paper filtered pass@1: per task the lowest-index candidate that passes the public
    tests is chosen; it scores when it also passes the protected tests."""
    eligible = recs.has_public & (recs["n"] > 0)
    first = recs["first_public"][eligible]
    tasks = int(eligible.sum())
    chosen_pass = int((first == 1).sum())
    none = int((first == -1).sum())
    return {"value": chosen_pass / tasks if tasks else None, **_binary_interval(chosen_pass, tasks, spec, 201),
            "tasks": tasks, "no_public_pass_tasks": none, "no_public_pass_share": none / tasks if tasks else None,
            "tasks_without_public_tests": int((~recs.has_public).sum()),
            "rule": "lowest candidate_index passing the public tests; a task where none does counts as failed"}


def ranked_section(recs: RunRecords, spec: IntervalSpec) -> RankedSection | RankedUnavailable:
    """Ranked pass@1: the candidate with the highest mean log-probability, beside random choice."""
    mask = recs["ranked"] >= 0
    tasks = int(mask.sum())
    if not tasks:
        return {"available": False, "tasks": 0, "value": None, "random_pass_at_1": None,
                "reason": "no counted candidate carries a mean log-probability"}
    wins = int((recs["ranked"][mask] == 1).sum())
    random = pass_at_k_array(recs["n"][mask], recs["c"][mask], 1)
    random_value = float(np.nanmean(random)) if np.isfinite(random).any() else None
    return {"available": True, "tasks": tasks, "value": wins / tasks, **_binary_interval(wins, tasks, spec, 301),
            "random_pass_at_1": random_value,
            "difference": None if random_value is None else wins / tasks - random_value,
            "rule": "highest mean log-probability among counted candidates (ties: lowest candidate_index); "
                    "random choice = pass@1"}


def task_rows(recs: RunRecords, ks: Sequence[int]) -> list[TaskRow]:
    """One row per task: counts, verdict columns and pass@k by k (keys are k as strings)."""
    a = recs.arrays
    values = {str(k): pass_at_k_array(recs.n, recs.c, k) for k in ks}
    cols = {name: a[name].tolist() for name in ("n", "c", "candidates", "flaky", "infra_error", "excluded",
                                                "timeouts", "n_public", "c_public", "attempts")}
    first, ranked = a["first_public"].tolist(), a["ranked"].tolist()
    cpu = np.round(a["cpu_s"], 6).tolist()
    per_k = {k: [None if not np.isfinite(v) else float(v) for v in arr] for k, arr in values.items()}
    rows = []
    for i, task_id in enumerate(recs.task_ids.tolist()):
        row = {"task_id": task_id, "slice": str(recs.slices[i]), "set_id": str(recs.set_ids[i]),
               "tags": list(recs.tags[i]), "has_public_tests": bool(recs.has_public[i])}
        row.update({name: col[i] for name, col in cols.items()})
        row["filtered_pick_passed"] = None if first[i] < 0 else bool(first[i])
        row["ranked_pick_passed"] = None if ranked[i] < 0 else bool(ranked[i])
        row["cpu_s"] = cpu[i]
        row["pass_at_k"] = {k: per_k[k][i] for k in per_k}
        rows.append(row)
    return rows

