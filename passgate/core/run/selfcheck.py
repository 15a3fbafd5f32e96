"""The ground-truth self-check: every reference solution against its own tests, before any candidate.

It gives each task its CPU limit (`max(floor, factor x reference CPU)`) and the evidence that the
grader passes correct code. Every reference that fails is listed with its class and detail, and
with the known defect that explains it when the task set lists one (core/tasks/known_defects.py);
a run whose candidates are the references is summarised the same way once it is graded, so it is
never taken for a self-check it did not pass.
"""

from __future__ import annotations

import hashlib
import json

from passgate.core.model import Task, is_canary
from passgate.core.progress import Progress
from passgate.core.record.queries import runs
from passgate.core.record.store import Store
from passgate.core.sandbox.runner import Runner, limits_for
from passgate.core.tasks.known_defects import defect_of

from .dispatch import Job, RunContext, dispatch
from .rows import execution_row

REFERENCE_INDEX = -1


def calibrate(store: Store, ctx: RunContext, runner: Runner) -> None:
    """Run every reference solution first (unless the run has done so): the self-check, and each task's CPU limit."""
    if store.run(ctx.run_id).get("selfcheck_json"):
        return
    tm = ctx.manifest.execution.timeout
    refs = _references(ctx)
    is_reference_run = ctx.manifest.candidates.source == "reference"
    if not tm.calibrate or is_reference_run or not refs:
        floor = max(tm.floor_s, ctx.manifest.execution.limits.cpu_s)
        _set_limits(store, ctx, {tid: (floor, None) for tid in ctx.tasks})
        reason = ("the candidates are the references; their summary follows the run" if is_reference_run else
                  "calibration off" if not tm.calibrate else "no reference solutions")
        store.seal(ctx.run_id, "selfcheck", selfcheck_json=json.dumps({"ran": False, "reason": reason}))
        return
    ctx.progress(Progress(run_id=ctx.run_id, phase="calibrate", total=len(refs),
                          message=f"self-check: {len(refs)} reference solutions"))
    results = _measure(store, ctx, runner, refs)
    if ctx.cancel.is_set():
        return       # not sealed: a resumed run measures the references still missing
    limits = {}
    for t in refs:
        row = results.get(t.task_id)
        ok = row is not None and row["status"] == "ok" and row["protected_status"] == "passed"
        ref_cpu = float(row["cpu_s"] or 0.0) if ok else None
        limits[t.task_id] = (max(tm.floor_s, tm.factor * ref_cpu) if ref_cpu is not None else tm.floor_s, ref_cpu)
    for tid in ctx.tasks:
        limits.setdefault(tid, (tm.floor_s, None))
    _set_limits(store, ctx, limits)
    summary = {**summarise(refs, results), "floor_s": tm.floor_s, "factor": tm.factor}
    store.seal(ctx.run_id, "selfcheck", selfcheck_json=json.dumps(summary))
    store.event(ctx.run_id, "selfcheck", _sentence(summary))


def _references(ctx: RunContext) -> list[Task]:
    """Tasks whose reference solution must pass its own tests: not the canaries, made so none can."""
    return [t for t in ctx.tasks.values() if t.reference_solution and not is_canary(t.task_id)]


def _measure(store: Store, ctx: RunContext, runner: Runner, refs: list[Task]) -> dict[str, dict]:
    """The latest completed self-check execution per task; a calibration cut short resumes with the rest."""
    tm = ctx.manifest.execution.timeout
    generous = limits_for(ctx.limits, max(tm.floor_s, ctx.manifest.execution.limits.cpu_s) * 4)
    results: dict[str, dict] = {}
    tried: dict[str, int] = {}
    for r in runs.selfcheck_executions(store, ctx.run_id, REFERENCE_INDEX):
        tried[r["task_id"]] = max(tried.get(r["task_id"], 0), int(r["attempt"]))
        if r["status"] == "ok":
            results[r["task_id"]] = r
    jobs = [Job(t.task_id, REFERENCE_INDEX, "selfcheck", tried.get(t.task_id, 0) + 1, t.reference_solution,
                hashlib.sha256(t.reference_solution.encode()).hexdigest()) for t in refs if t.task_id not in results]
    # references run in their own containers, closed before any candidate: no candidate's sandbox
    # ever held a reference solution
    for job, res in dispatch(ctx, runner, jobs, lambda j: ctx.request(j, generous, classic_program=ctx.classic_for(j))):
        row = execution_row(ctx.run_id, ctx.manifest.execution.runtime, job, res)
        store.append("executions", [row])
        results[job.task_id] = row
    return results


def _set_limits(store: Store, ctx: RunContext, limits: dict) -> None:
    store.set_task_limits(ctx.run_id, limits)
    for tid, (lim, _) in limits.items():
        ctx.task_rows[tid]["cpu_limit_s"] = lim


def summarise(refs: list[Task], rows: dict[str, dict]) -> dict:
    """Every reference that did not pass, with its class, detail and the known defect explaining it (or None)."""
    failed = []
    for t in refs:
        row = rows.get(t.task_id)
        if row is not None and row["status"] == "ok" and row["protected_status"] == "passed":
            continue
        failed.append({"task_id": t.task_id, "class": row["failure_class"] if row else "infra_error",
                       "detail": (row["detail"] if row else "never completed")[:500],
                       "public_status": row["public_status"] if row else None,
                       "known_defect": defect_of(t.set_id, t.task_id)})
    public_failed = [t.task_id for t in refs if (rows.get(t.task_id) or {}).get("public_status") == "failed"]
    return {"ran": True, "references": len(refs), "passed": len(refs) - len(failed), "failed": failed,
            "unexplained": sum(1 for f in failed if not f["known_defect"]), "public_failed": public_failed}


def seal_reference_run(store: Store, ctx: RunContext) -> None:
    """A run whose candidates are the references: its outcomes are the self-check, summarised and sealed."""
    refs = _references(ctx)
    rows = {}
    for o in runs.reference_outcomes(store, ctx.run_id):
        rows[o.task_id] = {"status": "ok", "protected_status": "passed" if o.outcome == "passed" else "failed",
                           "failure_class": o.failure_class, "detail": o.detail or o.reason or "",
                           "public_status": {1: "passed", 0: "failed"}.get(o.public_passed)}
    summary = {**summarise(refs, rows), "reference_run": True}
    store.seal(ctx.run_id, "selfcheck", selfcheck_json=json.dumps(summary))
    store.event(ctx.run_id, "selfcheck", _sentence(summary))


def _sentence(summary: dict) -> str:
    text = f"{summary['passed']}/{summary['references']} reference solutions pass their own tests"
    if summary["unexplained"]:
        names = ", ".join(f["task_id"] for f in summary["failed"] if not f["known_defect"])[:300]
        text += f"; {summary['unexplained']} failing with no known defect to explain it: {names}"
    return text
