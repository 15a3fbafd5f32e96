"""The report's `repository` section: what each graded patch touched and how it fared, from the
repo_results rows (docs/report-schema.md). None for a run without repository tasks."""

from __future__ import annotations

import json
import statistics
from typing import Mapping

from passgate.core.record.queries import sections as q

from .report_types import PatchEntry, RepositorySection, RepositoryTask, RepositoryTotals

CANDIDATE_ROWS = 500


def _latest(store, run_id: str, purpose: str) -> list[dict]:
    rows = {}
    for r in q.repo_results(store, run_id, purpose):
        rows[(r["task_id"], r["candidate_index"])] = r
    return list(rows.values())


def _tests(text: str | None) -> dict[str, int]:
    outcomes = json.loads(text or "{}")
    return {"passed": sum(o in ("passed", "xfailed") for o in outcomes.values()), "total": len(outcomes)}


def candidate_entry(r: Mapping, label: str = "") -> PatchEntry:
    scan = json.loads(r["scan_json"] or "{}")
    return {"task_id": r["task_id"], "candidate_index": r["candidate_index"], "label": label,
            "passed": r["failure_class"] is None, "failure_class": r["failure_class"], "detail": r["detail"],
            "applies": bool(r["applies"]), "apply_error": r["apply_error"], "files_changed": r["files_changed"],
            "lines_added": r["lines_added"], "lines_removed": r["lines_removed"],
            "reviewer_burden": r["reviewer_burden"], "files": [f["path"] for f in scan.get("files", [])],
            "test_files_touched": sorted(set(scan.get("test_files", [])) | set(scan.get("test_config", []))),
            "refused": json.loads(r["refused_json"] or "[]"), "dependency_files": scan.get("dependency_files", []),
            "secrets": scan.get("secrets", []), "build": r["build_status"], "build_log_tail": r["build_log_tail"],
            "public": {"status": r["public_status"], **_tests(r["public_tests_json"])},
            "protected": {"status": r["protected_status"], **_tests(r["protected_tests_json"])},
            "rollback": {"applies": _bool(r["rollback_applies"]), "restores": _bool(r["rollback_restores"])},
            "tampering": json.loads(r["tamper_json"] or "[]")}


def _bool(value):
    return None if value is None else bool(value)


def _median(values: list) -> float | None:
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def task_entry(task_id: str, slice_name: str, entries: list[PatchEntry]) -> RepositoryTask:
    return {"task_id": task_id, "slice": slice_name, "candidates": len(entries),
            "passed": sum(e["passed"] for e in entries), "applies": sum(e["applies"] for e in entries),
            "median_files_changed": _median([e["files_changed"] for e in entries]),
            "median_lines_added": _median([e["lines_added"] for e in entries]),
            "median_lines_removed": _median([e["lines_removed"] for e in entries]),
            "median_reviewer_burden": _median([e["reviewer_burden"] for e in entries]),
            "rollback_restores": sum(bool(e["rollback"]["restores"]) for e in entries)}


def repository_section(store, run_id: str) -> RepositorySection | None:
    if not q.has_table(store, "repo_results"):
        return None
    graded = _latest(store, run_id, "grade")
    refs = _latest(store, run_id, "selfcheck")
    if not graded and not refs:
        return None
    labels = q.candidate_labels(store, run_id)
    slices = q.task_slices(store, run_id)
    entries = [candidate_entry(r, labels.get((r["task_id"], r["candidate_index"]), "")) for r in graded]
    by_task: dict[str, list[PatchEntry]] = {}
    for e in entries:
        by_task.setdefault(e["task_id"], []).append(e)
    return {"totals": _totals(entries), "tasks": [task_entry(t, slices.get(t, ""), es) for t, es in by_task.items()],
            "candidates": entries[:CANDIDATE_ROWS], "candidates_omitted": max(0, len(entries) - CANDIDATE_ROWS),
            "references": [candidate_entry(r, "reference") for r in refs],
            "tampering": [{"task_id": e["task_id"], "candidate_index": e["candidate_index"], "label": e["label"],
                           "failure_class": e["failure_class"], "findings": e["tampering"]}
                          for e in entries if e["tampering"] or e["failure_class"] == "tampering"]}


def _totals(entries: list[PatchEntry]) -> RepositoryTotals:
    classes: dict[str, int] = {}
    for e in entries:
        if e["failure_class"]:
            classes[e["failure_class"]] = classes.get(e["failure_class"], 0) + 1
    return {"candidates": len(entries), "passed": sum(e["passed"] for e in entries),
            "applies": sum(e["applies"] for e in entries),
            "build_passed": sum(e["build"] == "passed" for e in entries),
            "rollback_restores": sum(bool(e["rollback"]["restores"]) for e in entries),
            "test_edits": sum(bool(e["test_files_touched"]) for e in entries),
            "refused": sum(bool(e["refused"]) for e in entries),
            "dependency_changes": sum(bool(e["dependency_files"]) for e in entries),
            "secrets": sum(bool(e["secrets"]) for e in entries),
            "tampering": sum(bool(e["tampering"]) or e["failure_class"] == "tampering" for e in entries),
            "failure_classes": dict(sorted(classes.items(), key=lambda kv: -kv[1]))}
