"""What sits beside a score: configuration, counts, execution time and classes, cost, flaky
candidates, and every omission with its reason. Pure functions of the record."""

from __future__ import annotations

import json
import re
from typing import Any, Mapping, Sequence

import numpy as np

from passgate.core.manifest import Manifest, frozen_form
from passgate.core.record.queries import sections as q

from .contract import import_policy
from .data import RunRecords
from .report_types import (ConfigSection, CostSection, CountsSection, ExecutionSection, FlakySection, Histogram,
                           OmissionsSection, OutcomeOmissions, RunSection)

# Failure classes grouped the way a release ticket reads them.
CATEGORIES = {
    "syntax": ("syntax_error",),
    "compile": ("compile_error",),
    "runtime": ("runtime_error", "premature_exit", "not_plain_data"),
    "wrong_answer": ("wrong_answer",),
    "resource": ("timeout", "memory_exceeded", "output_exceeded"),
    "violation": ("sandbox_violation",),
    "repository": ("patch_failed", "build_failed", "test_failed", "tests_missing", "unlisted_package"),
    "tampering": ("tampering", "secret_introduced"),
    "contract": ("disallowed_import",),
}
# shown only when a run has them (repository tasks, the task contract, tasks in other languages): a run
# without keeps its categories
SHOWN_WHEN_PRESENT = ("repository", "tampering", "contract", "compile")
_HISTOGRAM_BINS = 24


def parse_json(text: Any) -> Any:
    """A stored JSON column as data; text that is not JSON comes back as given; NULL as None."""
    if text is None or text == "":
        return None
    if not isinstance(text, str):
        return text
    try:
        return json.loads(text)
    except ValueError:
        return text


def run_section(run: Mapping) -> RunSection:
    keys = ("run_id", "name", "status", "manifest_id", "model", "operator", "policy", "runtime", "image",
            "image_digest", "worker_sha256", "created_at", "started_at", "finished_at", "passgate_version",
            "error")
    out = {k: run.get(k) for k in keys}
    out["seeds"] = parse_json(run.get("seeds_json"))
    out["host"] = parse_json(run.get("host_json"))
    return out


def config_section(store, run: Mapping, manifest: Manifest | None, recs: RunRecords) -> ConfigSection:
    """Model, decoding, benchmark revisions and hashes, test/timeout/package policy, image. The frozen
    sections are quoted as the record holds them; without a manifest they are empty (None)."""
    sets = [{"set_id": s.set_id, "revision": s.revision, "sha256": s.sha256, "tasks": s.tasks}
            for s in q.task_sets(store, run["run_id"])]
    limits = np.asarray(recs.cpu_limit, dtype=float)
    calibrated = limits[np.isfinite(limits)]
    ex = manifest.execution if manifest is not None else None
    packages = list(ex.packages) if ex is not None else []
    return {
        "model": run.get("model") or _model_name(manifest),
        "candidates_source": manifest.candidates.source if manifest is not None else None,
        "decoding": _decoding(manifest),
        "benchmarks": sets,
        "tasks_contract": _frozen(manifest, "tasks"),
        "test_policy": {
            "headline_suite": "protected",
            "verifier": recs.rescore.verifier,
            "tasks_with_public_tests": int(recs.has_public.sum()),
            "tasks_without_public_tests": int((~recs.has_public).sum()),
            "rule": "a candidate passes when its protected (full) suite passes; public tests are what the "
                    "model saw and are scored apart",
        },
        "timeout_policy": {
            "timeout": _frozen(ex, "timeout"),
            "cpu_limit_s": ex.limits.cpu_s if ex is not None else None,
            "wall_factor": ex.limits.wall_factor if ex is not None else None,
            "reruns": _frozen(ex, "reruns"),
            "task_cpu_limit_s": {"calibrated_tasks": int(calibrated.size),
                                 "min": float(calibrated.min()) if calibrated.size else None,
                                 "median": float(np.median(calibrated)) if calibrated.size else None,
                                 "max": float(calibrated.max()) if calibrated.size else None},
            "runner_limits": parse_json(run.get("limits_json")),
        },
        "import_policy": import_policy(manifest),
        "package_policy": {"packages": packages,
                           "rule": "listed packages on top of the pinned image's standard library"
                           if packages else "the pinned image's standard library only"},
        "sandbox": {"runtime": run.get("runtime"), "image": run.get("image"), "image_digest": run.get("image_digest"),
                    **{key: getattr(ex, key) if ex is not None else None
                       for key in ("network", "filesystem", "isolation")}},
        "scoring": _frozen(manifest, "scoring"),
    }


def _frozen(section: Any, name: str) -> Any:
    """A part of a frozen section as the record holds it (core/manifest frozen_form); None without one."""
    return frozen_form(getattr(section, name)) if section is not None else None


def _model_name(manifest: Manifest | None) -> str | None:
    """The model the manifest names, when the run row does not: the generation contract's, else the candidates'."""
    if manifest is None:
        return None
    return (manifest.generation.model if manifest.generation is not None else None) or manifest.candidates.model.name


def _decoding(manifest: Manifest | None) -> dict | None:
    """The decoding settings as frozen: the generation contract, else the candidates' model description."""
    if manifest is None:
        return None
    return frozen_form(manifest.generation if manifest.generation is not None else manifest.candidates.model)


def counts_section(recs: RunRecords) -> CountsSection:
    a = recs.arrays
    return {
        "tasks": int(recs.task_ids.size),
        "candidates": int(a["candidates"].sum()),
        "outcomes": int(a["outcome_rows"].sum()),
        "counted": int(a["n"].sum()),
        "passed": int(a["c"].sum()),
        "flaky": int(a["flaky"].sum()),
        "failed": int((a["n"] - a["c"] - a["flaky"]).sum()),
        "infra_error": int(a["infra_error"].sum()),
        "excluded": int(a["excluded"].sum()),
        "pending": len(recs.pending),
    }


def _percentiles(seconds: np.ndarray) -> dict:
    if seconds.size == 0:
        return {"median": None, "p95": None, "max": None}
    p50, p95 = np.percentile(seconds, [50, 95])
    return {"median": float(p50), "p95": float(p95), "max": float(seconds.max())}


def histogram(seconds: np.ndarray, bins: int = _HISTOGRAM_BINS) -> Histogram:
    """Log-spaced histogram of times (s); zero times fall in the first bin."""
    if seconds.size == 0:
        return {"scale": "log10", "unit": "s", "edges": [], "counts": []}
    positive = seconds[seconds > 0]
    lo = float(positive.min()) if positive.size else 1e-6
    hi = float(seconds.max()) if seconds.max() > lo else lo * 10
    edges = np.logspace(np.floor(np.log10(lo) * 4) / 4, np.ceil(np.log10(hi) * 4) / 4, bins + 1)
    counts, _ = np.histogram(np.clip(seconds, edges[0], edges[-1]), bins=edges)
    return {"scale": "log10", "unit": "s", "edges": [float(e) for e in edges], "counts": counts.tolist()}


def execution_section(recs: RunRecords) -> ExecutionSection:
    """Attempt times (CPU seconds of every attempt), failure classes of counted failures, timeouts."""
    a = recs.arrays
    seconds = recs.exec_times_us / 1e6
    attempts = int(a["attempts"].sum())
    by_purpose: dict[str, int] = {}
    infra_attempts = 0
    for row in recs.exec_other:
        by_purpose[row["purpose"]] = by_purpose.get(row["purpose"], 0) + row["count"]
        infra_attempts += row["count"] if row["status"] != "ok" else 0
    grade_ok = attempts - sum(r["count"] for r in recs.exec_other)
    by_purpose["grade"] = by_purpose.get("grade", 0) + grade_ok
    counted = int(a["n"].sum())
    timeouts = int(a["timeouts"].sum())
    classes = dict(recs.class_counts)
    return {
        "attempts": attempts,
        "attempts_by_purpose": dict(sorted(by_purpose.items())),
        "attempts_not_plain": recs.exec_other,
        "cpu_s": {"sum": float(seconds.sum()), **_percentiles(seconds)},
        "wall_s": {"sum": float(a["wall_s"].sum())},
        "histogram": histogram(seconds),
        "timeouts": timeouts,
        "timeout_rate": timeouts / counted if counted else None,
        "failure_classes": classes,
        "failure_categories": {cat: {cls: classes.get(cls, 0) for cls in members} | {
            "total": sum(classes.get(cls, 0) for cls in members)} for cat, members in CATEGORIES.items()
            if cat not in SHOWN_WHEN_PRESENT or any(classes.get(cls) for cls in members)},
        "infra_errors": {"candidates": int(a["infra_error"].sum()), "attempts": infra_attempts},
        "rescored_by_limit": int(a["rescored"].sum()),
    }


def cost_section(recs: RunRecords) -> CostSection:
    """Evaluator cost: sandbox CPU-seconds over every attempt, wall seconds, tokens; per slice."""
    a = recs.arrays
    # every step of every attempt (a compile step, both suites); under a what-if CPU limit, the
    # deciding runs' CPU capped at that limit, the only figure the limit changes
    cpu = a["cpu_s"] if recs.rescore.limited else a["cpu_total_s"]
    by_slice = {}
    for name in sorted(set(recs.slices.tolist())):
        m = recs.slices == name
        by_slice[name] = {"sandbox_cpu_s": float(cpu[m].sum()), "attempts": int(a["attempts"][m].sum())}
    return {
        "sandbox_cpu_s": float(cpu.sum()),
        "sandbox_wall_s": float(a["wall_s"].sum()),
        "attempts": int(a["attempts"].sum()),
        "prompt_tokens": int(a["prompt_tokens"].sum()),
        "completion_tokens": int(a["completion_tokens"].sum()),
        "by_slice": by_slice,
    }


def flaky_section(recs: RunRecords) -> FlakySection:
    flaky = recs["flaky"]
    tasks = [{"task_id": t, "flaky": int(f), "counted": int(n)}
             for t, f, n in zip(recs.task_ids[flaky > 0], flaky[flaky > 0], recs["n"][flaky > 0])]
    tasks.sort(key=lambda r: (-r["flaky"], r["task_id"]))
    return {"total": int(flaky.sum()), "tasks_with_flaky": len(tasks), "tasks": tasks,
            "rule": "attempts disagreed; a flaky candidate counts as not passed"}


def omissions_section(recs: RunRecords, ks: Sequence[int]) -> OutcomeOmissions:
    """Every candidate left out of pass@k and every task without an estimate, with the reason."""
    candidates = [{"task_id": r["task_id"], "candidate_index": r["candidate_index"], "outcome": r["outcome"],
                   "failure_class": r["failure_class"], "reason": r["reason"] or _default_reason(r["outcome"])}
                  for r in recs.rare if r["outcome"] in ("infra_error", "excluded")]
    candidates += [{"task_id": r["task_id"], "candidate_index": r["candidate_index"], "outcome": "pending",
                    "failure_class": None,
                    "reason": r["excluded_reason"] or r["gen_error"] or "no outcome recorded (run not finished)"}
                   for r in recs.pending]
    n, cand = recs["n"], recs["candidates"]
    tasks = []
    for i in np.flatnonzero(n == 0).tolist():
        if cand[i] == 0:
            reason = "no candidates"
        else:
            reason = (f"none of {int(cand[i])} candidates counted: {int(recs['excluded'][i])} excluded, "
                      f"{int(recs['infra_error'][i])} infra_error, "
                      f"{int(cand[i] - recs['outcome_rows'][i])} without outcome")
        tasks.append({"task_id": recs.task_ids[i], "reason": reason})
    not_estimable = [{"k": int(k), "tasks": int(((n > 0) & (n < k)).sum()),
                      "task_ids": recs.task_ids[(n > 0) & (n < k)].tolist()} for k in ks]
    return {"candidates": candidates, "tasks": tasks, "not_estimable": not_estimable,
            "counts": {"excluded": int(recs["excluded"].sum()), "infra_error": int(recs["infra_error"].sum()),
                       "pending": len(recs.pending), "tasks_without_counted_candidates": len(tasks)}}


_LEGACY_NOTE = re.compile(r"^samples line (\d+): not imported: (.*)$")


def not_imported_lines(store, run_id: str) -> list[dict]:
    """Samples-file lines that became no candidate (not JSON, an unknown task, ...), each with its reason:
    from the run's chained evidence, or from the import notes of a record written before it had one."""
    lines: list[dict] = []
    for body in q.not_imported_bodies(store, run_id):
        lines += (parse_json(body) or {}).get("lines") or []
    if lines or not q.has_table(store, "events"):
        return lines
    for message in q.input_messages(store, run_id):
        found = _LEGACY_NOTE.match(message or "")
        if found:
            lines.append({"line": int(found.group(1)), "reason": found.group(2)})
    return lines


def with_not_imported(omissions: OutcomeOmissions, lines: list[dict]) -> OmissionsSection:
    """The omissions with the samples lines that never became candidates, and their count."""
    return {**omissions, "not_imported": lines, "counts": {**omissions["counts"], "not_imported": len(lines)}}


def _default_reason(outcome: str) -> str:
    return {"infra_error": "the evaluator failed after its retries",
            "excluded": "never run"}.get(outcome, outcome)
