"""Dispatch jobs to sandbox workers, one thread per worker, results back in arrival order.

A worker that dies or hangs becomes an infra result for its job (never the model's failure) and is
replaced. A new worker waits out a restarting engine with backoff; when none can be started within
the patience, the run stops (`EngineLost`) with every recorded verdict kept, to be resumed.
"""

from __future__ import annotations

import hashlib
import queue
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from passgate.core.errors import EngineLost, SandboxUnavailable
from passgate.core.manifest import Manifest
from passgate.core.model import Task
from passgate.core.progress import ProgressSink
from passgate.core.sandbox.runner import EvalRequest, Runner, TaskSpec, Worker, WorkerLost, limits_for

from .decide import Policy
from .soundness import PROBE_PATIENCE_S, evaluator_sound


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
    _specs: dict[str, TaskSpec] = field(default_factory=dict, repr=False)

    def task_limits(self, task_id: str) -> dict:
        """The limits a candidate of this task runs under: its calibrated CPU limit, else the manifest's."""
        return limits_for(self.limits, float(self.task_rows[task_id]["cpu_limit_s"] or self.limits["cpu_s"]))

    def spec(self, task_id: str) -> TaskSpec:
        """The task as the worker receives it, built once: every candidate of a task sends the same."""
        spec = self._specs.get(task_id)
        if spec is None:
            spec = self._specs[task_id] = TaskSpec.of(self.tasks[task_id])
        return spec

    def classic_for(self, job: Job) -> str | None:
        """The reference harness's one-process program for this job, when the cross-check covers it:
        every reference solution and, under `sample`, a seeded fraction of candidates."""
        ex = self.manifest.execution
        suffix = self.tasks[job.task_id].classic_suffix
        if not suffix or ex.crosscheck == "none":
            return None
        reference = job.candidate_index < 0 or self.manifest.candidates.source == "reference"
        if ex.crosscheck == "all" or reference or _sampled(ex.seeds.random_seed, job, ex.crosscheck_fraction):
            return job.program + suffix
        return None

    def request(self, job: Job, limits: dict, **options) -> EvalRequest:
        """What a worker is asked for `job`: two suites, each with its wall budget, plus the grader's allowance."""
        processes = 3 if options.get("classic_program") else 2
        return EvalRequest(task=self.spec(job.task_id), program=job.program, limits=limits,
                           timeout_s=float(limits["wall_s"]) * processes + 660, **options)


def _sampled(seed: int, job: Job, fraction: float) -> bool:
    """A stable draw per candidate: the same candidates are cross-checked on every attempt and resume."""
    digest = hashlib.sha256(f"{seed}:{job.task_id}:{job.candidate_index}".encode()).digest()
    return int.from_bytes(digest[:8], "big") < fraction * 2 ** 64


ENGINE_PATIENCE_S = 120.0   # how long a worker waits for a sandbox to start before the run stops


class NoSandbox(Exception):
    """No sandbox could be started within the patience: the engine is down, not the candidate."""


class RequestFailed(Exception):
    """Building a job's request raised: a fault of the evaluator, raised again in the engine's thread."""

    def __init__(self, error: BaseException):
        super().__init__(str(error))
        self.error = error


def engine_patience_s(runner: Runner) -> float:
    """The patience, on top of one start attempt of the runner (a Ray node may take minutes to start one)."""
    return ENGINE_PATIENCE_S + float(runner.start_timeout_s)


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


def evaluate(worker: Worker, request: EvalRequest):
    """A function candidate's exchange with its sandbox: the grader's verdict on both suites."""
    return worker.evaluate(request)


@dataclass(frozen=True)
class Exchange:
    """What a job is to a sandbox: `send(worker, request)` asks and returns the reply (raising
    WorkerLost as a worker does); `sound(fresh_worker, request)` says, after a lost sandbox, whether
    a known-good job then passes in a fresh one; `fresh` gives every job a sandbox of its own."""

    send: Callable[[Worker, Any], Any] = evaluate
    sound: Callable[[Callable[[], Worker], Any], tuple[bool, str]] = evaluator_sound
    fresh: bool | None = None          # None: as the manifest's `execution.isolation` says


FUNCTIONS = Exchange()


def dispatch(ctx: RunContext, runner: Runner, jobs: list[Job], request_of: Callable[[Job], Any], *,
             on_result=None, workers=None, feed: queue.Queue | None = None, on_feed=None,
             exchange: Exchange = FUNCTIONS):
    """Run jobs on `workers` sandbox workers in threads; yields (job, reply-or-WorkerLost) in arrival order.

    `request_of(job)` builds what the worker is asked and `exchange` how (a function candidate's
    EvalRequest by default). `on_result` may return follow-up jobs (reruns, infra retries), which go
    back on the queue. `feed` delivers more work while running (generated candidates, turned into
    jobs by `on_feed`) until it yields None.
    """
    # a multi-node runner says how many workers keep all its nodes busy
    slots = runner.concurrency or ctx.manifest.execution.workers
    n = max(1, min(workers or slots, len(jobs) or 1))
    if feed is not None:
        n = max(n, workers or slots)
    fresh = exchange.fresh if exchange.fresh is not None else ctx.manifest.execution.isolation == "candidate"
    pool = _Pool(runner, request_of, exchange, per_candidate=fresh)
    pool.start(n, jobs)
    try:
        yield from pool.results(ctx.cancel, on_result, feed, on_feed)
    finally:
        pool.stop_all()


class _Pool:
    """Worker threads, each owning one sandbox worker at a time; results come back on a queue."""

    def __init__(self, runner: Runner, request_of, exchange: Exchange, *, per_candidate: bool):
        self.runner, self.request_of, self.per_candidate = runner, request_of, per_candidate
        self.exchange = exchange
        self.todo: queue.Queue = queue.Queue()
        self.done: queue.Queue = queue.Queue()
        self.stop = threading.Event()
        self.threads: list[threading.Thread] = []
        self.outstanding = 0

    def start(self, n: int, jobs: list[Job]) -> None:
        for j in jobs:
            self.todo.put(j)
        self.outstanding = len(jobs)
        self.threads = [threading.Thread(target=self._loop, name=f"passgate-worker-{i}", daemon=True)
                        for i in range(n)]
        for t in self.threads:
            t.start()

    def stop_all(self) -> None:
        self.stop.set()
        for _ in self.threads:
            self.todo.put(None)
        for t in self.threads:
            t.join(timeout=60)

    # ---- one thread -------------------------------------------------------------
    def _loop(self) -> None:
        worker = None
        try:
            while not self.stop.is_set():
                try:
                    job = self.todo.get(timeout=0.2)
                except queue.Empty:
                    continue
                if job is None:
                    return
                if worker is None:
                    worker = self._start_worker(job)
                    if worker is None:
                        return
                worker, res = self._evaluate(worker, job)
                self.done.put((job, res))
                if worker is not None and (self.per_candidate or worker.worn()):
                    worker.close()
                    worker = None
        finally:
            if worker is not None:
                worker.close()

    def _start_worker(self, job: Job):
        """A sandbox for this thread; None when the thread must end (the job is handed on or reported)."""
        try:
            return new_worker_patiently(self.runner, self.stop)
        except Exception as exc:  # noqa: BLE001 - whatever the engine said, it is said once, below
            if getattr(exc, "capacity_gone", False):   # the runner lost a slot for good: the job
                self.todo.put(job)                      # goes to another thread, this one ends
                return None
            # nothing ran: the job is not an attempt, and the run stops to be resumed later
            self.done.put((job, NoSandbox(f"{type(exc).__name__}: {exc}")))
            return None

    def _evaluate(self, worker, job: Job):
        try:
            request = self.request_of(job)
        except Exception as exc:  # noqa: BLE001 - the evaluator's own code failed: the run stops with it
            return worker, RequestFailed(exc)
        try:
            return worker, self.exchange.send(worker, request)
        except WorkerLost as exc:
            worker.close()
            # the record must say whose failure this was: a known-good job in a fresh sandbox (none
            # once the run is stopping: no sandbox starts after its runner closes)
            exc.probe_passed, exc.probe_detail = (False, "not probed: the run was stopping") if self.stop.is_set() \
                else self.exchange.sound(lambda: new_worker_patiently(self.runner, self.stop, PROBE_PATIENCE_S),
                                         request)
            return None, exc
        except BaseException as exc:  # anything else is an evaluator fault, never the model's
            worker.close()
            return None, WorkerLost(f"{type(exc).__name__}: {exc}")

    # ---- the caller's side ----------------------------------------------------------
    def results(self, cancel: threading.Event, on_result, feed, on_feed):
        feeding = feed is not None
        while self.outstanding or feeding:
            if cancel.is_set():
                return
            feeding = feeding and self._take_feed(feed, on_feed)
            job, res = self._next(0.2 if feeding else 0.5)
            if job is None:
                continue
            if isinstance(res, RequestFailed):
                raise res.error
            if isinstance(res, NoSandbox):
                raise EngineLost(
                    f"no sandbox could be started ({res}). The run stopped; every "
                    "verdict recorded so far is kept. Once the engine is back (`passgate setup` starts dockerd), "
                    "`passgate run --resume RUN_ID` continues with the candidates not yet decided")
            self.outstanding -= 1
            for j in (on_result(job, res) if on_result else None) or []:
                self.todo.put(j)
                self.outstanding += 1
            yield job, res

    def _take_feed(self, feed: queue.Queue, on_feed) -> bool:
        """Queue what the feed has ready; False once it has ended."""
        while True:
            try:
                item = feed.get_nowait()
            except queue.Empty:
                return True
            if item is None:
                return False
            job = on_feed(item)
            if job is not None:
                self.todo.put(job)
                self.outstanding += 1

    def _next(self, wait_s: float):
        try:
            return self.done.get(timeout=wait_s)
        except queue.Empty:
            pass
        if any(t.is_alive() for t in self.threads):
            return None, None
        try:                  # the last thread may have said why just before it ended
            return self.done.get_nowait()
        except queue.Empty:
            raise EngineLost("every sandbox worker stopped: no node or engine is left to run candidates. "
                             "Every verdict recorded so far is kept; `passgate run --resume RUN_ID` "
                             "continues once sandboxes can start again") from None
