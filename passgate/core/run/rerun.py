"""Rerun one task of a recorded run in the same pinned sandbox, for an on-call look.

A rerun appends execution rows with purpose "rerun" and an attempt number after the last one;
it never writes an outcome and never touches an existing row, so the run's verdict and report
stay what the run decided. Only decided candidates are rerun (an undecided one belongs to
`resume_run`), and never while the run is active: the engine is the run's single writer.
"""

from __future__ import annotations

import threading
from typing import Callable

from passgate.core.errors import BoundaryOpen, PassgateError
from passgate.core.manifest import Manifest, parse_manifest
from passgate.core.record.queries import runs
from passgate.core.record.store import Store
from passgate.core.sandbox.boundary import container_checks, failed
from passgate.core.sandbox.runner import Runner, WorkerLost

from .dispatch import Job
from .engine import _context, make_runner
from .rows import execution_row

ACTIVE = ("created", "running")


def rerun_task(store: Store, run_id: str, task_id: str, *, candidate_index: int | None = None,
               cancel: threading.Event | None = None, operator: str = "",
               runner_factory: Callable[[Manifest, str], Runner] = make_runner) -> list[dict]:
    """Execute a task's decided candidates (or one of them) again; returns the new execution rows.

    Raises PassgateError when the run is active or has nothing to rerun, DriftError when the
    pinned image changed, BoundaryOpen when the container's configuration is not the secure one.
    """
    run = store.run(run_id)
    rid = run["run_id"]
    if run["status"] in ACTIVE:
        raise PassgateError(f"run {rid} is {run['status']}; rerun once it has stopped (or cancel it)",
                            title="run is active")
    stored = store.manifest(run["manifest_id"])
    manifest = parse_manifest(stored["yaml_text"], stored["source_path"])
    cancel = cancel or threading.Event()
    ctx = _context(store, rid, manifest, lambda _p: None, cancel)
    cands = _rerunnable(store, ctx, task_id, candidate_index)
    runner = runner_factory(manifest, rid)
    try:
        rows = _execute_again(store, ctx, runner, cands, cancel)
    finally:
        runner.close()
    summary = ", ".join(f"#{r['candidate_index']} {r['protected_status']}"
                        + (f" ({r['failure_class']})" if r["failure_class"] else "") for r in rows)
    store.event(rid, "rerun", f"{operator or 'someone'} reran {task_id}: {summary or 'cancelled'}",
                {"task_id": task_id, "candidates": [r["candidate_index"] for r in rows]})
    return rows


def _rerunnable(store: Store, ctx, task_id: str, candidate_index: int | None) -> list[dict]:
    """The task's decided, runnable candidates (one, when an index is given)."""
    rid = ctx.run_id
    if task_id not in ctx.tasks:
        raise PassgateError(f"run {rid} has no task {task_id!r}", title="no such task")
    decided = runs.decided_indexes(store, rid, task_id)
    cands = [c for c in runs.generated_candidates(store, rid, task_id) if c["candidate_index"] in decided
             and (candidate_index is None or c["candidate_index"] == candidate_index)]
    if not cands:
        raise PassgateError(f"{task_id} has no decided, runnable candidate"
                            + (f" with index {candidate_index}" if candidate_index is not None else ""),
                            title="nothing to rerun")
    return cands


def _execute_again(store: Store, ctx, runner: Runner, cands: list[dict], cancel: threading.Event) -> list[dict]:
    """One new attempt per candidate, in a sandbox that passes the preflight checks, each appended."""
    manifest, rows = ctx.manifest, []
    info = runner.check(manifest.execution.image_digest)
    worker = _checked_worker(runner, manifest, info.image_digest)
    try:
        for cand in cands:
            if cancel.is_set():
                break
            task_id, index = cand["task_id"], cand["candidate_index"]
            attempt = runs.execution_count(store, ctx.run_id, task_id, index) + 1
            job = Job(task_id, index, "rerun", attempt, cand["program"], cand["program_sha256"])
            try:
                res = worker.evaluate(ctx.request(job, ctx.task_limits(task_id), classic_program=ctx.classic_for(job)))
            except WorkerLost as exc:
                res = exc
                worker.close()
                worker = _checked_worker(runner, manifest, info.image_digest)
            row = execution_row(ctx.run_id, manifest.execution.runtime, job, res)
            store.append("executions", [row])
            rows.append(row)
    finally:
        worker.close()
    return rows


def _checked_worker(runner: Runner, manifest: Manifest, image_digest: str):
    """A fresh worker whose container configuration passes the preflight checks."""
    worker = runner.new_worker()
    bad = failed(container_checks(worker.sandbox_config(), runtime=manifest.execution.runtime,
                                  image_digest=image_digest, canary=None))
    if bad:
        worker.close()
        raise BoundaryOpen("the rerun sandbox is not the secure one: " + "; ".join(f"{c.name} ({c.saw})" for c in bad))
    return worker
