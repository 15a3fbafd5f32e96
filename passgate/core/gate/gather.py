"""Read a run's record into GateFacts: the only part of the gate that touches the store."""

from __future__ import annotations

import hashlib
import json
import re
from collections import defaultdict
from pathlib import Path

from passgate.core import kinds as kind_registry
from passgate.core.manifest import (
    ExecutionContract,
    GateSection,
    Manifest,
    ScoringContract,
    frozen_form,
    frozen_manifest,
    resolve_path,
)
from passgate.core.model import is_canary
from passgate.core.record.queries import gate as q
from passgate.core.record.store import Store, verify_chain
from passgate.core.score.fidelity import fidelity_summary
from passgate.core.score.integrity import integrity_section
from passgate.core.score.security import SEVERITIES
from passgate.core.words import plain

from . import contamination as cm
from .facts import (
    CanaryFacts,
    CheckFact,
    Contamination,
    ContractFacts,
    Counts,
    DeclaredRelaxation,
    Finding,
    GateFacts,
    IntegrityFacts,
    SecurityFacts,
    SignoffFact,
    SliceFact,
    SliceIntegrity,
)
from .policy import Policy
from .stats import score


def _json(text, default):
    if not text:
        return default
    try:
        return json.loads(text)
    except ValueError:
        return default


def _checks(blob: str | None, source: str) -> tuple[CheckFact, ...]:
    data = _json(blob, {})
    return tuple(CheckFact(c.get("name", "?"), bool(c.get("ok")), plain(c.get("saw", "")), c.get("boundary", "?"), source)
                 for c in data.get("checks", []) if isinstance(c, dict))


def gather_facts(store: Store, run_id: str, policy: Policy, *, corpus: str | Path | None = None,
                 check_contamination: bool = True) -> GateFacts:
    """Everything the verdict reads about one run.

    `corpus` overrides the manifest's contamination corpus; `check_contamination=False` skips the
    n-gram checks (sign-off and listing need only the boundaries).
    """
    run = store.run(run_id)
    rid = run["run_id"]
    stored = store.manifest(run["manifest_id"])
    m = frozen_manifest(stored["canonical_json"])
    ex, gate, sc = _sections(m)
    all_tasks = store.rows("tasks", rid, order="position")
    task_rows = [t for t in all_tasks if not is_canary(t["task_id"])]     # canaries are judged apart
    slices = _slices(m, task_rows)
    exposure = {s.name: s.exposure for s in slices}
    counts, per_task = _outcomes(store, rid, task_rows)
    interval = {**frozen_form(sc.interval), "aggregation": sc.aggregation, "weights": dict(sc.weights)}
    preflight = _checks(run.get("preflight_json"), "preflight")
    corpus_path = Path(corpus) if corpus else resolve_path(stored.get("source_path") or None,
                                                           gate.contamination_corpus or None)
    source = m.candidates.source if m is not None else ""
    return GateFacts(
        run_id=rid, status=run.get("status") or "", operator=run.get("operator") or "",
        manifest_id=run["manifest_id"], manifest_policy=gate.policy,
        model=run.get("model") or "", candidate_source=source,
        runner=ex.runner, runtime=_runtime_used(run, preflight), image=run.get("image") or "",
        image_digest=run.get("image_digest") or "", pinned_digest=_pinned_digest(ex, run),
        limits=_json(run.get("limits_json"), {}), probe=_checks(run.get("probe_json"), "probe"), preflight=preflight,
        selfcheck=_json(run.get("selfcheck_json"), {}), fidelity=_fidelity(store, rid),
        crosscheck=ex.crosscheck if run.get("grading_protocol") else "none",
        declared=tuple(DeclaredRelaxation(r.boundary, r.setting, r.justification) for r in gate.relaxations),
        packages=tuple(ex.packages), base_image_digest=ex.base_image_digest or "",
        repository=_repository(store, rid), rerun_policy=ex.reruns.policy,
        rerun_count=ex.reruns.count, slices=slices, tasks=len(task_rows),
        tasks_with_protected=sum(1 for t in task_rows if (t.get("protected_tests") or "").strip()),
        counts=counts, score=score(per_task, interval), per_task=per_task,
        chain_findings=tuple(verify_chain(store, rid)),
        signoffs=tuple(SignoffFact(r["boundary"], r["reviewer"] or "", r["decision"] or "", r["statement"] or "",
                                   r["at"] or "") for r in store.rows("signoffs", rid)),
        contamination=_contamination(store, rid, task_rows, exposure, policy, corpus_path, source)
        if check_contamination else Contamination(notes=("contamination not checked",)),
        security=_security(store, rid, policy.security.severity),
        canaries=_canaries(store, rid, len(all_tasks) - len(task_rows)),
        tamper_candidates=_tamper_candidates(store, rid), contract=_contract(store, run),
        integrity=_integrity(store, run), interval=interval, error=plain(run.get("error") or ""),
        latency=_latency(store, rid, sc.interval.level), languages=_languages(task_rows, per_task))


def _sections(m: Manifest | None) -> tuple[ExecutionContract, GateSection, ScoringContract]:
    """The contracts the gate decides from; the model's defaults when the record holds no manifest
    (one that cannot be rebuilt is refused: core/manifest/frozen.py), as for any key the record lacks."""
    if m is None:
        return ExecutionContract(), GateSection(), ScoringContract()
    return m.execution, m.gate, m.scoring


def _contract(store: Store, run: dict) -> ContractFacts:
    from passgate.core.score.contract import contract_section
    section = contract_section(store, run)
    if not section.get("recorded"):
        return ContractFacts()
    total = section["overall"]
    return ContractFacts(True, total["candidates"], total["disallowed_import"], tuple(total["modules"]),
                         total["signature_changed"])


def _integrity(store: Store, run: dict) -> IntegrityFacts:
    """The report's integrity section as facts: the gate and the report count the same verdicts."""
    section = integrity_section(store, run)
    if not section["recorded"]:
        return IntegrityFacts(False, section["grading_protocol"])
    return IntegrityFacts(True, section["grading_protocol"], tuple(
        SliceIntegrity(s["slice"], s["candidates"], s["outside"], s["visible"], s["in_process"], s["process_control"])
        for s in section["slices"]))


def _latency(store: Store, rid: str, level: float) -> dict:
    from passgate.core.score.latency import latency_rows, latency_section
    timed, answered = latency_rows(store.db.conn, rid)
    return latency_section(timed, level, None, answered) or {}


def _languages(task_rows: list[dict], per_task: dict) -> dict:
    """Tasks in other languages by language: how many, how many decided in-process, with a reference."""
    out: dict = {}
    for t in task_rows:
        tags = _json(t.get("tags_json"), [])
        lang = next((x[9:] for x in tags if isinstance(x, str) and x.startswith("language:")), None)
        if lang is None:
            continue
        row = out.setdefault(lang, {"tasks": 0, "in_process": 0, "with_reference": 0, "counted_tasks": 0})
        row["tasks"] += 1
        row["in_process"] += "integrity:in_process" in tags
        row["with_reference"] += bool(t.get("reference_solution"))
        row["counted_tasks"] += bool((per_task.get(t["task_id"]) or (0,))[0])
    return out


def _pinned_digest(ex: ExecutionContract, run: dict) -> str:
    """The digest the manifest pins for the image the run used (tasks in other languages pin one per
    language, in execution.language_images)."""
    if ex.image_digest:
        return ex.image_digest
    used = run.get("image_digest") or ""
    return used if used and used in ex.language_images.values() else ""


def _tamper_candidates(store: Store, rid: str) -> int | None:
    """Counted candidates (canaries included: a hack there is a hack) with a tamper tripwire event."""
    return q.tampering_candidates(store, rid)


def _canaries(store: Store, rid: str, tasks: int) -> CanaryFacts:
    if not tasks:
        return CanaryFacts()
    rows = q.counted_canary_outcomes(store, rid)
    return CanaryFacts(tasks, len(rows), tuple((r.task_id, r.candidate_index) for r in rows if r.outcome == "passed"))


def _security(store: Store, rid: str, severity: str) -> SecurityFacts:
    """Passing and failing scanned candidates, and how many carry a finding at or above `severity`."""
    if not q.was_scanned(store, rid):
        return SecurityFacts(severity=severity)
    c = q.scan_flags(store, rid, SEVERITIES.index(severity))
    return SecurityFacts(True, severity, c.passing, c.passing_flagged, c.failing, c.failing_flagged)


def _fidelity(store: Store, run_id: str) -> dict:
    return fidelity_summary(q.crosschecked_attempts(store, run_id))


def _repository(store: Store, run_id: str) -> dict:
    from passgate.core.score.repository import repository_section
    section = repository_section(store, run_id)
    return {"totals": section["totals"], "tampering": section["tampering"]} if section else {}


def _runtime_used(run: dict, preflight: tuple[CheckFact, ...]) -> str:
    """The container's runtime: the preflight's observation when it disagrees with the request."""
    for c in preflight:
        if c.name == "runtime" and not c.ok:
            seen = re.match(r"runtime '?([\w.-]+)", c.saw)
            return seen.group(1) if seen else "unknown"
    return run.get("runtime") or ""


def _slices(m: Manifest | None, task_rows: list[dict]) -> tuple[SliceFact, ...]:
    kinds = {(s.slice or s.kind): s.kind for s in (m.tasks.sets if m is not None else ())}
    by_slice: dict[str, list[dict]] = defaultdict(list)
    for t in task_rows:
        by_slice[t["slice"]].append(t)
    out, public = [], kind_registry.names(public=True)
    for name, rows in by_slice.items():
        set_id = rows[0].get("set_id") or ""
        kind = kinds.get(name) or next((k for k in sorted(public, key=len, reverse=True)
                                        if set_id == k or set_id.startswith(k + "-")), "product")
        # public benchmarks are exposed, whatever a row says; a product slice is a holdout only if declared so
        held = kind not in public and all(r.get("exposure") == "holdout" for r in rows)
        out.append(SliceFact(name, set_id, kind, "holdout" if held else "exposed", len(rows)))
    return tuple(out)


TASK_CONTENT = ("prompt", "entry_point", "public_tests", "protected_tests")


def _task_hash(t: dict) -> str:
    body = "\0".join(t.get(k) or "" for k in TASK_CONTENT)
    return hashlib.sha256(body.encode()).hexdigest()[:16]


def task_set_fingerprint(task_rows) -> str:
    """One digest of a run's task ids and contents: runs with equal fingerprints can be each other's baseline."""
    body = "\n".join(sorted(f"{t['task_id']}\0{_task_hash(t)}" for t in task_rows))
    return hashlib.sha256(body.encode()).hexdigest()


def _outcomes(store: Store, rid: str, task_rows: list[dict]) -> tuple[Counts, dict]:
    slice_of = {t["task_id"]: t["slice"] for t in task_rows}
    nc = {t["task_id"]: [0, 0] for t in task_rows}
    tally: dict[str, int] = defaultdict(int)
    violators = q.violating_candidates(store, rid)
    for o in q.scored_outcomes(store, rid):
        tally["candidates"] += 1
        tally[o.outcome] += 1
        if o.outcome in ("passed", "failed", "flaky"):
            nc.setdefault(o.task_id, [0, 0])
            nc[o.task_id][0] += 1
            nc[o.task_id][1] += int(o.protected_passed or 0)
            if o.outcome == "failed" and o.failure_class == "timeout":
                tally["timeouts"] += 1
            if o.public_passed is not None:
                tally["public_graded"] += 1
                tally["public_passed"] += int(o.public_passed)
                tally["protected_passed_of_public"] += int(o.protected_passed or 0)
        if o.failure_class == "sandbox_violation":
            violators.add((o.task_id, o.candidate_index))
    counts = Counts(candidates=tally["candidates"], passed=tally["passed"], failed=tally["failed"],
                    flaky=tally["flaky"], infra_error=tally["infra_error"], excluded=tally["excluded"],
                    timeouts=tally["timeouts"], sandbox_violations=len(violators),
                    public_graded=tally["public_graded"], public_passed=tally["public_passed"],
                    protected_passed_of_public=tally["protected_passed_of_public"])
    hashes = {t["task_id"]: _task_hash(t) for t in task_rows}
    per_task = {tid: (n, c, slice_of.get(tid, ""), hashes.get(tid, "")) for tid, (n, c) in nc.items()}
    return counts, per_task


def _contamination(store: Store, rid: str, task_rows: list[dict], exposure: dict, policy: Policy,
                   corpus: Path | None, source: str) -> Contamination:
    settings = policy.contamination
    n = settings.ngram
    findings: list[Finding] = []
    notes: list[str] = []
    corpus_label = ""
    if corpus is not None:
        corpus_label = cm.corpus_fingerprint(corpus)
        texts = [cm.TaskText(t["task_id"], t["slice"], exposure.get(t["slice"], "exposed"), t.get("prompt") or "",
                             t.get("reference_solution") or "", t.get("protected_tests") or "") for t in task_rows]
        for t, ov in zip(texts, cm.task_overlaps(texts, cm.corpus_segments(corpus), n)):
            if ov.matched and ov.fraction >= settings.task_overlap:
                findings.append(Finding(t.task_id, t.slice, t.exposure, "task_in_corpus", round(ov.fraction, 4),
                                        ov.matched, ov.compared, f"e.g. \"{ov.example}\""))
    else:
        notes.append("no contamination corpus given: tasks were not compared with training or prompt data")
    refs_checked = source != "reference"
    if refs_checked:
        findings += _reference_findings(store, rid, task_rows, exposure, settings.reference_overlap, n)
    else:
        notes.append("the candidates are the reference solutions: reproduction of references was not checked")
    return Contamination(corpus_checked=corpus is not None, corpus=corpus_label, references_checked=refs_checked,
                         ngram=n, findings=tuple(findings), notes=tuple(notes))


def _reference_findings(store, rid, task_rows, exposure, threshold, n) -> list[Finding]:
    tasks = {t["task_id"]: t for t in task_rows if (t.get("reference_solution") or "").strip()}
    worst: dict[str, tuple[cm.Overlap, int, int]] = {}
    seen: set[tuple[str, str]] = set()
    ref_grams: dict[str, set] = {}
    for c in q.answered_programs(store, rid):
        t = tasks.get(c.task_id)
        if t is None or (c.task_id, c.program_sha256) in seen:
            continue
        seen.add((c.task_id, c.program_sha256))
        if c.task_id not in ref_grams:
            ref_grams[c.task_id] = cm.reference_grams(t.get("prompt") or "", t["reference_solution"], n,
                                                      t.get("infill_suffix") or "")
        ov = cm.reference_overlap("", "", c.program or "", n, ref=ref_grams[c.task_id])
        if ov is None:
            continue
        best, flagged, total = worst.get(c.task_id, (ov, 0, 0))
        flagged += ov.fraction >= threshold
        worst[c.task_id] = (ov if ov.fraction >= best.fraction else best, flagged, total + 1)
    out = []
    for tid, (ov, flagged, total) in worst.items():
        if flagged:
            t = tasks[tid]
            out.append(Finding(tid, t["slice"], exposure.get(t["slice"], "exposed"), "candidate_reproduces_reference",
                               round(ov.fraction, 4), ov.matched, ov.compared,
                               f"{flagged} of {total} distinct programs reproduce the reference"))
    return out
