"""One run, end to end: freeze → check pins → probe the boundary → calibrate → grade → record.

The engine is the single writer of the SQLite record. Sandbox workers run in threads, each owning
one container; results come back on a queue and are appended as they arrive, so a run killed
at any point resumes from the record: nothing recorded is executed again, nothing is lost.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import queue
import secrets
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .boundary import container_checks, failed, probe_checks
from .decide import Attempt, Final, Need, Policy, decide
from .errors import BoundaryOpen, PassgateError, SandboxUnavailable, StoreError
from .manifest import Manifest, load_manifest, parse_manifest
from .model import Task
from .progress import Progress, ProgressSink
from .redact import redact
from .sandbox.runner import Runner, WorkerLost
from .store import Store, utcnow
from .pipeline_inputs import load_inputs, Inputs

PASSGATE_VERSION = "0.1.0"
REFERENCE_INDEX = -1


@dataclass
class Job:
    task_id: str
    candidate_index: int
    purpose: str
    attempt: int
    program: str
    program_sha256: str


@dataclass
class RunContext:
    run_id: str
    manifest: Manifest
    tasks: dict[str, Task]
    task_rows: dict[str, dict]
    limits: dict
    policy: Policy
    progress: ProgressSink
    cancel: threading.Event
    groups: dict[tuple[str, str], list[int]] = field(default_factory=dict)


def new_run_id() -> str:
    return time.strftime("r%Y%m%d-%H%M%S-") + secrets.token_hex(3)


def base_limits(manifest: Manifest) -> dict:
    lim = manifest.execution.limits
    return {"cpu_s": lim.cpu_s, "wall_factor": lim.wall_factor, "memory_mb": lim.memory_mb,
            "container_memory_mb": lim.container_memory_mb, "cpus": lim.cpus, "nproc": lim.nproc, "pids": lim.pids,
            "nofile": lim.nofile, "file_size_mb": lim.file_size_mb, "scratch_mb": lim.scratch_mb,
            "output_cap_kb": lim.output_cap_kb, "output_keep_kb": lim.output_keep_kb,
            "seed": manifest.execution.seeds.random_seed}


def limits_for(base: dict, cpu_s: float) -> dict:
    out = dict(base)
    out["cpu_s"] = round(cpu_s, 3)
    out["wall_s"] = round(cpu_s * float(base["wall_factor"]) + 2.0, 3)
    return out


def task_payload(task: Task) -> dict:
    body = {"task_id": task.task_id, "entry_point": task.entry_point, "test_setup": task.test_setup,
            "public_tests": task.public_tests, "protected_tests": task.protected_tests}
    key = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:20]
    return {"key": key, **body}


def make_runner(manifest: Manifest, run_id: str, *, ray_address: str | None = None) -> Runner:
    """The local Docker runner; on a Ray cluster (`--ray ADDRESS` or `execution.ray_address`) the same
    runner on every node, `execution.workers` sandboxes per node (core/sandbox/ray_runner.py)."""
    ex = manifest.execution
    args = dict(image=ex.image, runtime=ex.runtime, limits=base_limits(manifest),
                seeds={"pythonhashseed": ex.seeds.pythonhashseed, "tz": ex.seeds.tz}, run_label=run_id)
    address = ray_address or ex.ray_address
    if address:
        from .sandbox.ray_runner import RayRunner
        return RayRunner(address=address, per_node=ex.workers, **args)
    from .sandbox.docker_runner import DockerRunner
    return DockerRunner(**args)


# ------------------------------------------------------------------------------ entry points
def start_run(store: Store, manifest_path: str | Path, *, progress: ProgressSink | None = None,
              cancel: threading.Event | None = None, operator: str | None = None,
              runner_factory: Callable[[Manifest, str], Runner] = make_runner) -> str:
    """Freeze the manifest, record a new run and execute it. Returns the run id."""
    manifest, text = load_manifest(manifest_path)
    inputs = load_inputs(manifest, manifest_path)          # raises DriftError on any pin mismatch
    run_id = new_run_id()
    store.save_manifest(manifest.manifest_id, manifest.name, manifest.canonical_json(), text, str(manifest_path))
    store.create_run({"run_id": run_id, "manifest_id": manifest.manifest_id, "name": manifest.name,
                      "status": "created", "operator": operator or manifest.operator or os.environ.get("USER", ""),
                      "policy": manifest.gate.policy, "model": inputs.model_label,
                      "passgate_version": PASSGATE_VERSION,
                      "seeds_json": json.dumps({"pythonhashseed": manifest.execution.seeds.pythonhashseed,
                                                "random_seed": manifest.execution.seeds.random_seed,
                                                "tz": manifest.execution.seeds.tz}),
                      "host_json": json.dumps({"host": platform.node(), "python": platform.python_version(),
                                               "platform": platform.platform()})})
    store.save_tasks(run_id, _task_rows(inputs.tasks, manifest))
    store.append("candidates", _candidate_rows(run_id, inputs))
    for note in inputs.notes:
        store.event(run_id, "input", note)
    return _execute(store, run_id, manifest, progress, cancel, runner_factory, manifest_path=manifest_path)


def resume_run(store: Store, run_id: str, *, progress: ProgressSink | None = None,
               cancel: threading.Event | None = None,
               runner_factory: Callable[[Manifest, str], Runner] = make_runner,
               manifest_path: str | Path | None = None) -> str:
    """Continue a run from its record; the frozen manifest is re-read from the database."""
    run = store.run(run_id)
    if run["status"] == "completed":
        return run["run_id"]
    stored = store.manifest(run["manifest_id"])
    manifest = parse_manifest(stored["yaml_text"], stored["source_path"])
    if manifest.manifest_id != run["manifest_id"]:
        raise StoreError(f"the stored manifest of {run_id} no longer hashes to {run['manifest_id']}")
    source = manifest_path or stored["source_path"]
    load_inputs(manifest, source, check_only=True)        # pins still hold
    return _execute(store, run["run_id"], manifest, progress, cancel, runner_factory, manifest_path=source)


# ------------------------------------------------------------------------------ the run
def _execute(store, run_id, manifest, progress, cancel, runner_factory, *, manifest_path) -> str:
    progress = progress or (lambda _p: None)
    cancel = cancel or threading.Event()
    canary = "pg-canary-" + secrets.token_hex(16)
    os.environ["PASSGATE_CANARY"] = canary  # planted in the controller; the probe proves it never arrives
    runner = runner_factory(manifest, run_id)
    status = "failed"
    try:
        info = runner.check(manifest.execution.image_digest)
        store.update_run(run_id, status="running", started_at=utcnow(), error=None)
        store.seal(run_id, "start", runtime=info.runtime, image=info.image, image_digest=info.image_digest,
                   worker_sha256=info.worker_sha256, limits_json=json.dumps(info.limits))
        store.event(run_id, "start", f"runner {info.runner}/{info.runtime} on {info.node}, image {info.image_digest}")
        _runner_events(store, run_id, runner)
        ctx = _context(store, run_id, manifest, progress, cancel)
        _preflight(store, ctx, runner, info, canary)
        _calibrate(store, ctx, runner)
        _grade(store, ctx, runner)
        if cancel.is_set():
            status = "cancelled"
        else:
            status = "completed"
    except BoundaryOpen as exc:
        status = "refused"
        store.update_run(run_id, error=exc.message)
        raise
    except PassgateError as exc:
        store.update_run(run_id, error=exc.message)
        raise
    except KeyboardInterrupt:
        status = "interrupted"
        raise
    except BaseException as exc:
        store.update_run(run_id, error=f"{type(exc).__name__}: {exc}")
        raise
    finally:
        _runner_events(store, run_id, runner)
        runner.close()
        store.seal_finish(run_id, status)
        store.event(run_id, "end", f"run {status}")
        progress(Progress(run_id=run_id, phase="finished", message=f"run {status}"))
    return run_id


def _runner_events(store: Store, run_id: str, runner: Runner) -> None:
    """A runner with many nodes reports which it accepted, refused or lost; the engine records it."""
    for kind, message in getattr(runner, "drain_events", lambda: [])():
        store.event(run_id, kind, message)


def _context(store, run_id, manifest, progress, cancel) -> RunContext:
    task_rows = {r["task_id"]: r for r in store.rows("tasks", run_id, order="position")}
    tasks = {tid: Task(task_id=tid, slice=r["slice"], prompt=r["prompt"], entry_point=r["entry_point"],
                       public_tests=r["public_tests"] or "", protected_tests=r["protected_tests"] or "",
                       test_setup=r["test_setup"] or "", candidate_preamble=r["candidate_preamble"] or "",
                       reference_solution=r["reference_solution"] or "", completion_style=r["completion_style"],
                       tags=tuple(json.loads(r["tags_json"] or "[]")), exposure=r["exposure"], set_id=r["set_id"],
                       set_sha256=r["set_sha256"], set_revision=r["set_revision"])
             for tid, r in task_rows.items()}
    ex = manifest.execution
    policy = Policy(rerun_policy=ex.reruns.policy, rerun_count=ex.reruns.count, infra_retries=ex.reruns.infra_retries,
                    recheck_timeouts=ex.timeout.recheck_alone)
    return RunContext(run_id, manifest, tasks, task_rows, base_limits(manifest), policy, progress, cancel)


def _preflight(store: Store, ctx: RunContext, runner: Runner, info, canary: str) -> None:
    """Boundary self-probe and container checks, recorded before any candidate runs."""
    ctx.progress(Progress(run_id=ctx.run_id, phase="preflight", message="probing the sandbox boundary"))
    worker = runner.new_worker()
    try:
        limits = limits_for(ctx.limits, 30.0)
        probe = worker.probe(limits, timeout=120)
        inspect = worker.inspect()
    finally:
        worker.close()
    probe.pop("id", None)
    checks = probe_checks(probe, canary=canary, expected_nproc=int(ctx.limits["nproc"]))
    container = container_checks(inspect, runtime=ctx.manifest.execution.runtime, image_digest=info.image_digest,
                                 canary=canary)
    store.seal(ctx.run_id, "preflight", probe_json=json.dumps({"checks": [c.as_dict() for c in checks], "raw": probe}),
               preflight_json=json.dumps({"checks": [c.as_dict() for c in container],
                                                "runtime": info.runtime, "image_digest": info.image_digest,
                                                "worker_sha256": info.worker_sha256}))
    bad = failed(checks) + failed(container)
    if bad:
        lines = "; ".join(f"{c.name} ({c.saw})" for c in bad)
        store.event(ctx.run_id, "refused", f"boundary open: {lines}")
        raise BoundaryOpen(f"the sandbox boundary is open where the manifest says closed: {lines}")
    store.event(ctx.run_id, "preflight", f"{len(checks) + len(container)} boundary checks passed")


def _calibrate(store: Store, ctx: RunContext, runner: Runner) -> None:
    """Run every reference solution first: the self-check, and each task's CPU limit."""
    tm = ctx.manifest.execution.timeout
    run = store.run(ctx.run_id)
    if run.get("selfcheck_json"):
        return
    refs = [t for t in ctx.tasks.values() if t.reference_solution]
    is_reference_run = ctx.manifest.candidates.source == "reference"
    if not tm.calibrate or is_reference_run or not refs:
        limits = {tid: (max(tm.floor_s, ctx.manifest.execution.limits.cpu_s), None) for tid in ctx.tasks}
        store.set_task_limits(ctx.run_id, limits)
        store.seal(ctx.run_id, "selfcheck", selfcheck_json=json.dumps(
            {"ran": False, "reason": "the candidates are the references" if is_reference_run else
             ("calibration off" if not tm.calibrate else "no reference solutions")}))
        for tid, (lim, _) in limits.items():
            ctx.task_rows[tid]["cpu_limit_s"] = lim
        return
    ctx.progress(Progress(run_id=ctx.run_id, phase="calibrate", total=len(refs),
                          message=f"self-check: {len(refs)} reference solutions"))
    generous = limits_for(ctx.limits, max(tm.floor_s, ctx.manifest.execution.limits.cpu_s) * 4)
    jobs = [Job(t.task_id, REFERENCE_INDEX, "selfcheck", 1, t.reference_solution,
                hashlib.sha256(t.reference_solution.encode()).hexdigest()) for t in refs]
    results: dict[str, dict] = {}
    # references run in their own containers, closed before any candidate: no candidate's sandbox
    # ever held a reference solution
    for job, res in _dispatch(ctx, runner, jobs, lambda j: generous):
        row = _execution_row(ctx, job, res, generous)
        store.append("executions", [row])
        results[job.task_id] = row
    limits, failures, cpu = {}, [], {}
    for t in refs:
        row = results.get(t.task_id)
        if row is None:
            continue
        ok = row["status"] == "ok" and row["protected_status"] == "passed"
        if not ok:
            failures.append({"task_id": t.task_id, "class": row["failure_class"], "detail": row["detail"],
                             "public_status": row["public_status"]})
        ref_cpu = float(row["cpu_s"] or 0.0) if ok else None
        cpu[t.task_id] = ref_cpu
        limits[t.task_id] = (max(tm.floor_s, tm.factor * ref_cpu) if ref_cpu is not None else tm.floor_s, ref_cpu)
    for tid in ctx.tasks:
        limits.setdefault(tid, (tm.floor_s, None))
    store.set_task_limits(ctx.run_id, limits)
    for tid, (lim, _) in limits.items():
        ctx.task_rows[tid]["cpu_limit_s"] = lim
    summary = {"ran": True, "references": len(refs), "passed": len(refs) - len(failures), "failed": failures,
               "public_failed": [t.task_id for t in refs if results.get(t.task_id, {}).get("public_status") == "failed"],
               "floor_s": tm.floor_s, "factor": tm.factor}
    store.seal(ctx.run_id, "selfcheck", selfcheck_json=json.dumps(summary))
    store.event(ctx.run_id, "selfcheck", f"{summary['passed']}/{len(refs)} reference solutions pass their own tests")


# ------------------------------------------------------------------------------ grading
def _grade(store: Store, ctx: RunContext, runner: Runner) -> None:
    cands = store.rows("candidates", ctx.run_id)
    outcomes = {(r["task_id"], r["candidate_index"]) for r in store.rows("outcomes", ctx.run_id)}
    attempts: dict[tuple[str, int], list[dict]] = defaultdict(list)
    for r in store.rows("executions", ctx.run_id, order="exec_id"):
        if r["candidate_index"] != REFERENCE_INDEX:
            attempts[(r["task_id"], r["candidate_index"])].append(r)
    dedupe = ctx.manifest.execution.dedupe_identical_programs
    by_key = {(c["task_id"], c["candidate_index"]): c for c in cands}
    # candidates never run: excluded at import/generation, recorded with their reason
    excluded = [c for c in cands if c["gen_status"] != "ok" and (c["task_id"], c["candidate_index"]) not in outcomes]
    store.append("outcomes", [_outcome_row(ctx.run_id, c["task_id"], c["candidate_index"], "excluded",
                                           reason=c["excluded_reason"] or c["gen_error"] or c["gen_status"])
                              for c in excluded])
    runnable = [c for c in cands if c["gen_status"] == "ok"]
    members: dict[tuple[str, int], list[int]] = defaultdict(list)   # representative -> followers
    for c in runnable:
        key = (c["task_id"], c["candidate_index"])
        rep = key
        if dedupe:
            group = ctx.groups.setdefault((c["task_id"], c["program_sha256"]), [])
            group.append(c["candidate_index"])
            rep = (c["task_id"], group[0])
        if rep != key:
            members[rep].append(c["candidate_index"])
    reps = [(c["task_id"], c["candidate_index"]) for c in runnable
            if not dedupe or ctx.groups[(c["task_id"], c["program_sha256"])][0] == c["candidate_index"]]
    total = len(runnable) + len(excluded)
    counts: dict[str, int] = defaultdict(int)
    outcomes |= {(c["task_id"], c["candidate_index"]) for c in excluded}

    def job_for(key, purpose) -> Job:
        c = by_key[key]
        return Job(key[0], key[1], purpose, len(attempts[key]) + 1, c["program"], c["program_sha256"])

    def finalize(key, final: Final) -> list[dict]:
        rows = [_outcome_row(ctx.run_id, key[0], key[1], final.outcome, final=final)]
        for follower in members.get(key, []):
            if (key[0], follower) not in outcomes:
                rows.append(_outcome_row(ctx.run_id, key[0], follower, final.outcome, final=final, executed_as=key[1]))
        return rows

    pending: list[Job] = []
    deferred: list[Job] = []      # timeout rechecks, run alone after the main pass
    backlog_rows: list[dict] = []
    for key in reps:
        if key in outcomes:
            continue
        step = decide([Attempt.from_row(r) for r in attempts[key]], ctx.policy)
        if step is None:
            pending.append(job_for(key, "grade"))
        elif isinstance(step, Need):
            (deferred if step.purpose == "timeout_recheck" else pending).append(job_for(key, step.purpose))
        else:
            backlog_rows += finalize(key, step)
    if backlog_rows:
        store.append("outcomes", [r for r in backlog_rows if (r["task_id"], r["candidate_index"]) not in outcomes])
        for r in backlog_rows:
            outcomes.add((r["task_id"], r["candidate_index"]))
    done = len(outcomes)
    t_start = time.monotonic()
    started_done = done
    ctx.progress(Progress(run_id=ctx.run_id, phase="grade", done=done, total=total, message="grading"))

    def limits_of(job: Job) -> dict:
        return limits_for(ctx.limits, float(ctx.task_rows[job.task_id]["cpu_limit_s"] or ctx.limits["cpu_s"]))

    def handle(job: Job, res) -> list[Job]:
        nonlocal done
        key = (job.task_id, job.candidate_index)
        row = _execution_row(ctx, job, res, limits_of(job))
        store.append("executions", [row])
        attempts[key].append(row)
        step = decide([Attempt.from_row(r) for r in attempts[key]], ctx.policy)
        if isinstance(step, Need):
            nxt = job_for(key, step.purpose)
            if step.purpose == "timeout_recheck":
                deferred.append(nxt)
                return []
            return [nxt]
        rows = finalize(key, step)
        store.append("outcomes", rows)
        for r in rows:
            outcomes.add((r["task_id"], r["candidate_index"]))
            counts[r["outcome"] if r["outcome"] != "failed" else (r["failure_class"] or "failed")] += 1
        done += len(rows)
        elapsed = time.monotonic() - t_start
        rate = (done - started_done) / elapsed if elapsed > 0 else 0.0
        ctx.progress(Progress(run_id=ctx.run_id, phase="grade", done=done, total=total, counts=dict(counts),
                              rate=rate, eta_s=(total - done) / rate if rate > 0 else None,
                              last={"task_id": job.task_id, "candidate_index": job.candidate_index,
                                    "outcome": step.outcome, "failure_class": step.failure_class,
                                    "detail": row["detail"][:200]}))
        return []

    feed = None
    if ctx.manifest.candidates.source == "generate":
        gen = ctx.manifest.generation
        total = len(ctx.tasks) * gen.n_per_task
        feed, generation_failed, generator = _start_generation(ctx, set(by_key), runner)

        def on_feed(cand) -> Job | None:
            nonlocal total
            rows = _candidate_rows(ctx.run_id, Inputs([], [cand], ""))
            store.append("candidates", rows)
            key = (cand.task_id, cand.candidate_index)
            by_key[key] = rows[0]
            if cand.gen_status != "ok":
                store.append("outcomes", [_outcome_row(ctx.run_id, key[0], key[1], "excluded",
                                                       reason=cand.gen_error or cand.gen_status)])
                outcomes.add(key)
                counts["generation_error"] += 1
                return None
            return job_for(key, "grade")
    else:
        on_feed = None
    for job, res in _dispatch(ctx, runner, pending, limits_of, on_result=handle, feed=feed, on_feed=on_feed):
        pass
    if feed is not None and ctx.cancel.is_set():
        # cancelled: the generator abandons requests in flight and ends; answers it already gave are
        # stored (graded on resume), so resuming never asks the model for them again
        generator.join(timeout=30)
        while True:
            try:
                item = feed.get_nowait()
            except queue.Empty:
                break
            if item is not None:
                on_feed(item)
    if feed is not None and generation_failed:
        raise generation_failed[0]    # e.g. EndpointRefused: the run fails with the generator's reason
    while deferred and not ctx.cancel.is_set():
        batch, deferred[:] = list(deferred), []
        ctx.progress(Progress(run_id=ctx.run_id, phase="recheck", done=done, total=total, counts=dict(counts),
                              message=f"re-running {len(batch)} timeouts alone"))
        for job, res in _dispatch(ctx, runner, batch, limits_of, on_result=handle, workers=1):
            pass
    store.update_run(ctx.run_id, progress_json=json.dumps({"done": done, "total": total, "counts": dict(counts)}))


def _start_generation(ctx: RunContext, have: set,
                      runner: Runner) -> tuple[queue.Queue, list[BaseException], threading.Thread]:
    """Generate candidates in a thread; each is fed to the grader as soon as it is complete.

    Candidate indices already in the record are never requested again. The queue ends with None;
    the list then holds the generator's error, if it failed, for the run's thread to raise.
    """
    from .generate import SandboxPublicCheck, generate_candidates
    feed: queue.Queue = queue.Queue()
    failed: list[BaseException] = []
    check = None
    if ctx.manifest.generation.repair.enabled:   # the repair loop's public-suite check, on its own worker
        check = SandboxPublicCheck(runner, task_payload, lambda t: limits_for(
            ctx.limits, float(ctx.task_rows[t.task_id]["cpu_limit_s"] or ctx.limits["cpu_s"])))

    def produce():
        try:
            generate_candidates(ctx.manifest, list(ctx.tasks.values()), skip=have, emit=feed.put, cancel=ctx.cancel,
                                check=check)
        except BaseException as exc:  # noqa: BLE001 - handed to the run's thread, raised there
            failed.append(exc)
        finally:
            if check is not None:
                check.close()
            feed.put(None)

    thread = threading.Thread(target=produce, name="passgate-generate", daemon=True)
    thread.start()
    return feed, failed, thread


def _new_worker_patiently(runner: Runner, stop: threading.Event, patience_s: float = 120.0):
    """Start a worker, waiting out a restarting engine (with backoff) before calling it an infra failure."""
    deadline = time.monotonic() + patience_s
    delay = 0.5
    while True:
        try:
            return runner.new_worker()
        except (WorkerLost, SandboxUnavailable) as exc:
            if getattr(exc, "capacity_gone", False) or stop.is_set() or time.monotonic() + delay > deadline:
                raise
            time.sleep(delay)
            delay = min(delay * 2, 8.0)


def _dispatch(ctx: RunContext, runner: Runner, jobs: list[Job], limits_of, *, on_result=None, workers=None,
              feed: queue.Queue | None = None, on_feed=None):
    """Run jobs on `workers` sandbox workers in threads; yields (job, result-or-WorkerLost) in arrival order.

    `on_result` may return follow-up jobs (reruns, infra retries), which go back on the queue.
    `feed` delivers more work while running (generated candidates, turned into jobs by `on_feed`)
    until it yields None.
    """
    # a multi-node runner says how many workers keep all its nodes busy
    slots = getattr(runner, "concurrency", None) or ctx.manifest.execution.workers
    n = max(1, min(workers or slots, len(jobs) or 1))
    if feed is not None:
        n = max(n, workers or slots)
    per_candidate = ctx.manifest.execution.isolation == "candidate"
    todo: queue.Queue = queue.Queue()
    results: queue.Queue = queue.Queue()
    for j in jobs:
        todo.put(j)
    outstanding = len(jobs)
    stop = threading.Event()

    def loop():
        worker = None
        try:
            while not stop.is_set():
                try:
                    job = todo.get(timeout=0.2)
                except queue.Empty:
                    continue
                if job is None:
                    return
                lim = limits_of(job)
                try:
                    if worker is None:
                        worker = _new_worker_patiently(runner, stop)
                    task = task_payload(ctx.tasks[job.task_id])
                    # two suites, each with its wall budget, plus the grader's own allowance
                    res = worker.evaluate(task, job.program, lim, timeout=float(lim["wall_s"]) * 2 + 660)
                    res["node"], res["container_id"] = worker.node, getattr(worker, "container_id", "")
                except WorkerLost as exc:
                    if getattr(exc, "capacity_gone", False):   # the runner lost a slot for good: the job
                        todo.put(job)                           # goes to another thread, this one ends
                        return
                    res = exc
                    if worker is not None:
                        worker.close()
                    worker = None
                except BaseException as exc:  # anything else is an evaluator fault, never the model's
                    res = WorkerLost(f"{type(exc).__name__}: {exc}")
                    if worker is not None:
                        worker.close()
                    worker = None
                results.put((job, res))
                if per_candidate and worker is not None:
                    worker.close()
                    worker = None
        finally:
            if worker is not None:
                worker.close()

    threads = [threading.Thread(target=loop, name=f"passgate-worker-{i}", daemon=True) for i in range(n)]
    for t in threads:
        t.start()
    feeding = feed is not None
    try:
        while outstanding or feeding:
            if ctx.cancel.is_set():
                break
            while feeding:
                try:
                    item = feed.get_nowait()
                except queue.Empty:
                    break
                if item is None:
                    feeding = False
                    break
                job = on_feed(item)
                if job is not None:
                    todo.put(job)
                    outstanding += 1
            try:
                job, res = results.get(timeout=0.2 if feeding else 0.5)
            except queue.Empty:
                if not any(t.is_alive() for t in threads):
                    raise PassgateError("every sandbox worker thread stopped", title="runner failed")
                continue
            outstanding -= 1
            follow = on_result(job, res) if on_result else []
            for j in follow or []:
                todo.put(j)
                outstanding += 1
            yield job, res
    finally:
        stop.set()
        for _ in threads:
            todo.put(None)
        for t in threads:
            t.join(timeout=60)


# ------------------------------------------------------------------------------ rows
def _execution_row(ctx: RunContext, job: Job, res, limits: dict) -> dict:
    now = utcnow()
    base = {"run_id": ctx.run_id, "task_id": job.task_id, "candidate_index": job.candidate_index,
            "attempt": job.attempt, "purpose": job.purpose, "program_sha256": job.program_sha256,
            "started_at": now, "finished_at": now}
    if isinstance(res, WorkerLost):
        return {**base, "status": "infra_error", "public_status": "not_run", "protected_status": "not_run",
                "failure_class": "infra_error", "detail": redact(str(res))[:1000], "exit_reason": "worker lost",
                "cpu_s": 0.0, "cpu_total_s": 0.0, "wall_s": 0.0, "peak_rss_kb": 0, "out_bytes": 0, "stdout": "", "stderr": "",
                "violations_json": "[]", "runtime": ctx.manifest.execution.runtime, "image_digest": "",
                "node": getattr(res, "node", ""), "container_id": "", "exc_type": None}
    suites = res.get("suites") or {}
    pub = suites.get("public") or {"status": "not_run"}
    prot = suites.get("protected") or {"status": "not_run"}
    head = prot if prot.get("status") != "not_run" else pub
    infra = head.get("class") == "infra_error"
    return {**base, "status": "infra_error" if infra else "ok",
            "public_status": pub.get("status"), "public_class": pub.get("class"),
            "protected_status": prot.get("status"), "protected_class": prot.get("class"),
            "failure_class": head.get("class"), "detail": redact(head.get("detail") or "")[:1000],
            "exc_type": head.get("exc_type"), "exit_reason": res.get("exit", ""),
            # cpu_s: the headline suite's CPU (timeouts and what-if use it); cpu_total_s: sandbox cost
            "cpu_s": float(head.get("cpu_s") or 0.0), "cpu_total_s": float(res.get("cpu_s") or 0.0),
            "wall_s": float(res.get("wall_s") or 0.0),
            "peak_rss_kb": int(res.get("maxrss_kb") or 0), "out_bytes": int(res.get("out_bytes") or 0),
            "stdout": redact(res.get("stdout") or ""), "stderr": "",
            "violations_json": json.dumps(res.get("violations") or []),
            "runtime": ctx.manifest.execution.runtime, "image_digest": "",
            "node": res.get("node", ""), "container_id": (res.get("container_id") or "")[:12]}


def _outcome_row(run_id: str, task_id: str, index: int, outcome: str, *, final: Final | None = None,
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


def _task_rows(tasks: list[Task], manifest: Manifest) -> list[dict]:
    return [{"task_id": t.task_id, "position": i, "slice": t.slice, "set_id": t.set_id, "set_sha256": t.set_sha256,
             "set_revision": t.set_revision, "exposure": t.exposure, "tags_json": json.dumps(list(t.tags)),
             "prompt": t.prompt, "entry_point": t.entry_point, "candidate_preamble": t.candidate_preamble,
             "test_setup": t.test_setup, "public_tests": t.public_tests, "protected_tests": t.protected_tests,
             "reference_solution": t.reference_solution, "completion_style": t.completion_style,
             "cpu_limit_s": None, "reference_cpu_s": None} for i, t in enumerate(tasks)]


def _candidate_rows(run_id: str, inputs: Inputs) -> list[dict]:
    rows = []
    for c in inputs.candidates:
        lp = c.logprobs
        rows.append({"run_id": run_id, "task_id": c.task_id, "candidate_index": c.candidate_index,
                     "raw_text": c.raw_text, "processed_text": c.processed_text, "program": c.program,
                     "program_sha256": c.program_sha256, "source": c.source, "source_ref": c.source_ref,
                     "seed": c.seed, "finish_reason": c.finish_reason, "prompt_tokens": c.prompt_tokens,
                     "completion_tokens": c.completion_tokens, "latency_ms": c.latency_ms, "model_id": c.model_id,
                     "logprobs_json": json.dumps(lp) if lp is not None else None,
                     "mean_logprob": (sum(lp) / len(lp)) if lp else None, "gen_status": c.gen_status,
                     "gen_error": c.gen_error, "gen_attempts_json": json.dumps(c.gen_attempts, default=str),
                     "excluded_reason": c.excluded_reason, "created_at": utcnow()})
    return rows
