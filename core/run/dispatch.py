"""Dispatch jobs to sandbox workers, one thread per worker, results back in arrival order.

A worker that dies or hangs becomes an infra result for its job (never the model's failure) and is
replaced. A new worker waits out a restarting engine with backoff; when none can be started within
the patience, the run stops (`EngineLost`) with every recorded verdict kept, to be resumed.
"""

from __future__ import annotations

import queue
import threading
import time
from dataclasses import dataclass, field

from passgate.core.errors import EngineLost, SandboxUnavailable
from passgate.core.manifest import Manifest
from passgate.core.model import Task
from passgate.core.progress import ProgressSink
from passgate.core.sandbox.runner import Runner, WorkerLost, limits_for, task_payload

from .decide import Policy


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
    _payloads: dict[str, dict] = field(default_factory=dict, repr=False)

    def task_limits(self, task_id: str) -> dict:
        """The limits a candidate of this task runs under: its calibrated CPU limit, else the manifest's."""
        return limits_for(self.limits, float(self.task_rows[task_id]["cpu_limit_s"] or self.limits["cpu_s"]))

    def payload(self, task_id: str) -> dict:
        """The task as the worker receives it, built once: every candidate of a task sends the same."""
        body = self._payloads.get(task_id)
        if body is None:
            body = self._payloads[task_id] = task_payload(self.tasks[task_id])
        return body


ENGINE_PATIENCE_S = 120.0   # how long a worker waits for a sandbox to start before the run stops


class NoSandbox(Exception):
    """No sandbox could be started within the patience: the engine is down, not the candidate."""


def engine_patience_s(runner: Runner) -> float:
    """The patience, on top of one start attempt of the runner (a Ray node may take minutes to start one)."""
    return ENGINE_PATIENCE_S + float(getattr(runner, "start_timeout_s", 0.0))


def new_worker_patiently(runner: Runner, stop: threading.Event, patience_s: float | None = None):
    """Start a worker, waiting out a restarting engine (with backoff) before giving up."""
    deadline = time.monotonic() + (engine_patience_s(runner) if patience_s is None else patience_s)
    delay = 0.5
    while True:
        try:
            return runner.new_worker()
        except (WorkerLost, SandboxUnavailable) as exc:
            if getattr(exc, "capacity_gone", False) or stop.is_set() or time.monotonic() + delay > deadline:
                raise
            time.sleep(delay)
            delay = min(delay * 2, 8.0)


def dispatch(ctx: RunContext, runner: Runner, jobs: list[Job], limits_of, *, on_result=None, workers=None,
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
                if worker is None:
                    try:
                        worker = new_worker_patiently(runner, stop)
                    except Exception as exc:  # noqa: BLE001 - whatever the engine said, it is said once, below
                        if getattr(exc, "capacity_gone", False):   # the runner lost a slot for good: the job
                            todo.put(job)                           # goes to another thread, this one ends
                            return
                        # nothing ran: the job is not an attempt, and the run stops to be resumed later
                        results.put((job, NoSandbox(f"{type(exc).__name__}: {exc}")))
                        return
                try:
                    task = ctx.payload(job.task_id)
                    # two suites, each with its wall budget, plus the grader's own allowance
                    res = worker.evaluate(task, job.program, lim, timeout=float(lim["wall_s"]) * 2 + 660)
                    res["node"], res["container_id"] = worker.node, getattr(worker, "container_id", "")
                except WorkerLost as exc:
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
                if any(t.is_alive() for t in threads):
                    continue
                try:                  # the last thread may have said why just before it ended
                    job, res = results.get_nowait()
                except queue.Empty:
                    raise EngineLost("every sandbox worker stopped: no node or engine is left to run candidates. "
                                     "Every verdict recorded so far is kept; `passgate run --resume RUN_ID` "
                                     "continues once sandboxes can start again") from None
            if isinstance(res, NoSandbox):
                raise EngineLost(
                    f"no sandbox could be started ({res}). The run stopped; every "
                    "verdict recorded so far is kept. Once the engine is back (`passgate setup` starts dockerd), "
                    "`passgate run --resume RUN_ID` continues with the candidates not yet decided")
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
