"""Record rows built from engine results: what one execution, outcome, task or candidate looks like
in the store. Pure functions of their inputs."""

from __future__ import annotations

import datetime as _dt
import json
from dataclasses import replace

from passgate.core.languages.grading import LanguageResult
from passgate.core.errors import StoreError
from passgate.core.model import LanguageJob, RepoSpec, Task
from passgate.core.record.redact import redact
from passgate.core.record.store import utcnow
from passgate.core.sandbox.runner import EvalResult, SuiteResult, WorkerLost

from .decide import Final


def execution_row(run_id: str, runtime: str, job, res: EvalResult | WorkerLost, *,
                  timeout_confirmed: bool = False) -> dict:
    """One attempt as stored: the worker's result, or an infra failure when the worker was lost."""
    now = utcnow()
    wall = 0.0 if isinstance(res, WorkerLost) else res.wall_s
    began = (_dt.datetime.fromisoformat(now) - _dt.timedelta(seconds=wall)).isoformat(timespec="milliseconds")
    base = {"run_id": run_id, "task_id": job.task_id, "candidate_index": job.candidate_index,
            "attempt": job.attempt, "purpose": job.purpose, "program_sha256": job.program_sha256,
            "started_at": began, "finished_at": now, "runtime": runtime, "image_digest": ""}
    if isinstance(res, WorkerLost):
        probe = getattr(res, "probe_passed", None)
        detail = str(res)[:700] + (f"; {res.probe_detail}" if probe is not None else "")
        return {**base, "status": "infra_error", "public_status": "not_run", "protected_status": "not_run",
                "failure_class": "infra_error", "detail": redact(detail)[:1000], "exit_reason": "worker lost",
                "evidence_json": json.dumps({"probe": None if probe is None else ("passed" if probe else "failed")}),
                "cpu_s": 0.0, "cpu_total_s": 0.0, "wall_s": 0.0, "peak_rss_kb": 0, "out_bytes": 0, "stdout": "",
                "stderr": "", "violations_json": "[]", "node": getattr(res, "node", ""), "container_id": "",
                "exc_type": None}
    pub, prot = res.public, res.protected
    prot, disagreement = _with_classic(prot, res.classic)
    head = prot if prot.status != "not_run" else pub
    detail = head.detail
    if head is prot and pub.status == "not_run" and pub.detail not in ("", "no tests"):
        detail = f"{detail} (public suite: {pub.detail})"      # e.g. left to the re-check of a timeout
    return {**base, "status": "infra_error" if head.failure_class == "infra_error" else "ok",
            "public_status": pub.status, "public_class": pub.failure_class,
            "protected_status": prot.status, "protected_class": prot.failure_class,
            "failure_class": head.failure_class, "detail": redact(detail)[:1000],
            "exc_type": head.exc_type, "exit_reason": res.exit,
            # cpu_s: the headline suite's CPU (timeouts and what-if use it); cpu_total_s: sandbox cost
            "cpu_s": head.cpu_s, "cpu_total_s": res.cpu_s, "wall_s": res.wall_s,
            "peak_rss_kb": res.maxrss_kb, "out_bytes": res.out_bytes, "stdout": redact(res.stdout), "stderr": "",
            "violations_json": json.dumps(list(res.violations)), "node": res.node,
            "tamper_json": json.dumps(list(res.tamper)) if res.tamper else None,   # telemetry; NULL: none
            "container_id": res.container_id[:12],
            "classic_status": res.classic.status if res.classic else None,
            "classic_class": res.classic.failure_class if res.classic else None,
            "integrity_json": json.dumps(dict(res.protected.integrity)) if res.protected.integrity else None,
            "imports_json": json.dumps([dict(a) for a in res.imports]) if res.imports else None,   # NULL: none
            "evidence_json": json.dumps(_evidence(res, disagreement, timeout_confirmed))}


# A classic run that ended for these reasons says nothing about the candidate's answer
INCONCLUSIVE = frozenset({"timeout", "memory_exceeded", "output_exceeded", "infra_error"})


def _with_classic(prot: SuiteResult, classic: SuiteResult | None) -> tuple[SuiteResult, str]:
    """The protected verdict with the cross-check applied: an isolated pass the classic program
    fails (for a reason about the answer) is a failure; an isolated failure stands either way."""
    if classic is None or classic.status == prot.status:
        return prot, ""
    if prot.status == "passed" and classic.status == "failed" and classic.failure_class not in INCONCLUSIVE:
        return replace(prot, status="failed", failure_class="classic_failed", exc_type=classic.exc_type,
                       detail=redact(f"the isolated suite passed; the reference harness's one-process program "
                                     f"failed: {classic.failure_class}: {classic.detail}")[:500]), "classic_failed"
    if prot.status == "passed":
        return prot, "classic_inconclusive"
    return prot, "isolated_failed"


def _evidence(res: EvalResult, disagreement: str, timeout_confirmed: bool) -> dict:
    """What the record keeps beyond the columns: where each suite failed and what the candidate
    returned, the cross-check, where the grader could not reproduce a value exactly, and the real CPU
    the host counted (which can confirm a timeout without a re-check)."""
    out: dict = {"protocol": res.protocol}
    if res.host_cpu_s is not None:
        out["host_cpu_s"] = round(res.host_cpu_s, 4)
    if timeout_confirmed:
        out["timeout_confirmed"] = True
    for name, suite in (("protected", res.protected), ("public", res.public)):
        if suite.line is not None or suite.returned:
            out[name] = {"line": suite.line, "source": redact(suite.source), "returned": redact(suite.returned)}
    if res.classic is not None:
        out["classic"] = {"status": res.classic.status, "class": res.classic.failure_class,
                          "detail": redact(res.classic.detail)[:500], "isolated": res.protected.status,
                          "disagreement": disagreement or None}
    if res.notes:
        out["notes"] = list(res.notes)
    if isinstance(res, LanguageResult):      # tasks in other languages: integrity, compile and run time apart
        out["language"] = dict(res.language)
    return out


def outcome_row(run_id: str, task_id: str, index: int, outcome: str, *, final: Final | None = None,
                 reason: str = "", executed_as: int | None = None) -> dict:
    row = {"run_id": run_id, "task_id": task_id, "candidate_index": index, "outcome": outcome,
           "failure_class": None, "public_passed": None, "protected_passed": 0, "attempts": 0,
           "executed_as": executed_as, "cpu_s": None, "wall_s": None, "reason": reason, "decided_at": utcnow()}
    if final is not None:
        row.update(failure_class=final.failure_class, public_passed=final.public_passed,
                   protected_passed=final.protected_passed, attempts=final.attempts, cpu_s=final.cpu_s,
                   wall_s=final.wall_s, reason=final.reason if executed_as is None else
                   (f"identical program to candidate {executed_as}; " + final.reason).strip("; "))
    return row


def task_rows(tasks: list[Task]) -> list[dict]:
    return [{"task_id": t.task_id, "position": i, "slice": t.slice, "set_id": t.set_id, "set_sha256": t.set_sha256,
             "set_revision": t.set_revision, "exposure": t.exposure, "tags_json": json.dumps(list(t.tags)),
             "prompt": t.prompt, "entry_point": t.entry_point, "candidate_preamble": t.candidate_preamble,
             "test_setup": t.language.to_json() if t.language else t.test_setup,
             "public_tests": t.public_tests, "protected_tests": t.protected_tests,
             "reference_solution": t.reference_solution, "completion_style": t.completion_style,
             "classic_suffix": t.classic_suffix, "public_suffix": t.public_suffix,
             "protected_suffix": t.protected_suffix or None, "oracle_json": t.oracle or None,
             "repo_json": t.repo.to_json() if t.repo else None, "cpu_limit_s": None, "reference_cpu_s": None,
             "allowed_imports_json": json.dumps(list(t.allowed_imports)), "signature_json": t.signature or None,
             "infill_suffix": t.infill_suffix if t.completion_style == "infill" else None}
            for i, t in enumerate(tasks)]


def task_of(run_id: str, r: dict) -> Task:
    """A task as the run recorded it: the inverse of `task_rows`, each kind's spec parsed here, once."""
    return Task(task_id=r["task_id"], slice=r["slice"], prompt=r["prompt"], entry_point=r["entry_point"],
                public_tests=r["public_tests"] or "", protected_tests=r["protected_tests"] or "",
                test_setup="" if LanguageJob.is_header(r["test_setup"] or "") else r["test_setup"] or "",
                candidate_preamble=r["candidate_preamble"] or "",
                reference_solution=r["reference_solution"] or "", completion_style=r["completion_style"],
                classic_suffix=r.get("classic_suffix") or "", public_suffix=r.get("public_suffix") or "",
                protected_suffix=r.get("protected_suffix") or "", oracle=r.get("oracle_json") or "",
                tags=tuple(json.loads(r["tags_json"] or "[]")), exposure=r["exposure"], set_id=r["set_id"],
                set_sha256=r["set_sha256"], set_revision=r["set_revision"],
                repo=_spec(run_id, r, RepoSpec.from_record, "repo_json"),
                language=_spec(run_id, r, LanguageJob.from_record, "test_setup"),
                allowed_imports=tuple(json.loads(r.get("allowed_imports_json") or '["any"]')),
                signature=r.get("signature_json") or "", infill_suffix=r.get("infill_suffix") or "")


def _spec(run_id: str, row: dict, parse, column: str):
    """A task row's typed spec; StoreError naming the run, the task and the column when the record's is broken."""
    try:
        return parse(row.get(column))
    except (ValueError, KeyError, TypeError) as exc:
        raise StoreError(f"run {run_id}, task {row['task_id']}: {column}: {exc}") from None


def candidate_rows(run_id: str, candidates) -> list[dict]:
    rows = []
    for c in candidates:
        lp = c.logprobs
        rows.append({"run_id": run_id, "task_id": c.task_id, "candidate_index": c.candidate_index,
                     "raw_text": c.raw_text, "processed_text": c.processed_text, "program": c.program,
                     "program_sha256": c.program_sha256, "source": c.source, "source_ref": c.source_ref,
                     "seed": c.seed, "finish_reason": c.finish_reason, "prompt_tokens": c.prompt_tokens,
                     "completion_tokens": c.completion_tokens, "latency_ms": c.latency_ms, "model_id": c.model_id,
                     "logprobs_json": json.dumps(lp) if lp is not None else None,
                     "mean_logprob": (sum(lp) / len(lp)) if lp else None, "gen_status": c.gen_status,
                     "gen_error": c.gen_error, "gen_attempts_json": json.dumps(c.gen_attempts, default=str),
                     "excluded_reason": c.excluded_reason, "created_at": utcnow(),
                     "first_token_ms": c.first_token_ms})
    return rows
