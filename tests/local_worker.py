"""The real worker program (core/sandbox/program/), run here as a plain subprocess, for trusted code only.

The same grader, candidate process and codec as in the sandbox, without the container, the uid
and kill(-1): tests that grade thousands of reference solutions use it where Docker would cost
minutes, so there is one grader and never a second implementation. It is not a runner of the
product (nothing here is isolated); it speaks the worker's line protocol over pipes.
"""

from __future__ import annotations

import atexit
import dataclasses
import json
import os
import secrets
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

from passgate.core.sandbox.docker_runner import BOOT, worker_source
from passgate.core.sandbox.runner import EvalRequest, EvalResult, SuiteResult, TaskSpec, WorkerLost, limits_for
from tests.conftest import sandbox_limits


class LocalWorker:
    """One worker program in a subprocess; `evaluate` as the Docker worker does."""

    node = "local"

    def __init__(self):
        self.scratch = tempfile.mkdtemp(prefix="passgate-local-")
        source = worker_source().encode()
        config = {"local": True, "scratch": self.scratch}
        self.proc = subprocess.Popen([sys.executable, "-u", "-s", "-B", "-c", BOOT], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, env={"PYTHONHASHSEED": "0", "TZ": "UTC",
                                                                  "PATH": os.environ.get("PATH", "")})
        self.proc.stdin.write(json.dumps({"n": len(source), "config": config}).encode() + b"\n" + source)
        self.proc.stdin.flush()
        ready = json.loads(self.proc.stdout.readline())
        assert ready.get("ready"), ready
        self.container_id = f"local-{self.proc.pid}"
        self._tasks: set[str] = set()

    def _request(self, obj: dict) -> dict:
        rid = secrets.token_hex(4)
        self.proc.stdin.write(json.dumps({**obj, "id": rid}).encode() + b"\n")
        self.proc.stdin.flush()
        reply = {"interim": True}
        while reply.get("interim"):        # a line ahead of the reply (after a protected timeout)
            line = self.proc.stdout.readline()
            if not line:
                raise WorkerLost("the local worker ended")
            reply = json.loads(line)
        if "worker_error" in reply:
            raise WorkerLost(f"worker error: {reply['worker_error']}\n{reply.get('trace', '')}")
        return reply

    def evaluate(self, request: EvalRequest) -> EvalResult:
        task = request.task
        if task.key not in self._tasks:
            self._request({"op": "task", **task.wire()})
            self._tasks.add(task.key)
        reply = self._request({"op": "eval", "task": task.key, "program": request.program,
                               "limits": dict(request.limits), "classic": request.classic_program,
                               "public_after_protected_timeout": request.public_after_protected_timeout})
        return EvalResult.from_wire(reply, node=self.node, container_id=self.container_id)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def grade(task, program: str, *, cpu_s: float = 10.0, worker: LocalWorker | None = None, suite: str | None = None,
          **options) -> EvalResult:
    """One program against one task (a model.Task or a TaskSpec) through a local worker; `suite`
    replaces the task's protected suite (and drops its public one)."""
    if suite is not None:
        task = with_suite(task, suite)
    spec = task if isinstance(task, TaskSpec) else TaskSpec.of(task)
    own = worker is None
    worker = worker or LocalWorker()
    try:
        limits = limits_for(sandbox_limits(memory_mb=4096, output_cap_kb=1 << 16), cpu_s)
        return worker.evaluate(EvalRequest(spec, program, limits, timeout_s=600, **options))
    finally:
        if own:
            worker.close()


_SHARED: list[LocalWorker] = []


def shared_worker() -> LocalWorker:
    """One local worker for this test process (started on first use, ended at exit)."""
    if not _SHARED or _SHARED[0].proc.poll() is not None:
        _SHARED[:] = [LocalWorker()]
        atexit.register(_SHARED[0].close)
    return _SHARED[0]


def with_suite(task, suite: str):
    """`task` with `suite` as its only tests: run after the program with `candidate` bound to the entry point."""
    return dataclasses.replace(task, classic_suffix=f"\ncandidate = {task.entry_point}\n{suite}", public_suffix="")


def run_suite(task, suite: str, program: str | None = None) -> SuiteResult:
    """One suite's code against `program` (the task's reference by default), as the grader runs it."""
    spec = TaskSpec.of(with_suite(task, suite))
    return grade(spec, task.reference_solution if program is None else program, worker=shared_worker()).protected


def reference_failures(tasks, *, suites=("protected_tests", "public_tests"), processes: int | None = None,
                       cpu_s: float = 20.0) -> dict[str, str]:
    """{task id: the suite that failed and why} for every task whose reference fails one of `suites`."""
    tasks = list(tasks)
    n = max(1, min(processes or os.cpu_count() or 1, len(tasks)))
    chunks = [tasks[i::n] for i in range(n)]

    def run(chunk):
        worker = LocalWorker()
        try:
            out = {}
            for task in chunk:
                res = grade(task, task.reference_solution, cpu_s=cpu_s, worker=worker)
                for name, suite in (("protected_tests", res.protected), ("public_tests", res.public)):
                    if name in suites and suite.status == "failed":
                        out[task.task_id] = f"{name}: {suite.failure_class}: {suite.detail}"
                        break
            return out
        finally:
            worker.close()

    with ThreadPoolExecutor(n) as pool:
        found: dict[str, str] = {}
        for part in pool.map(run, chunks):
            found.update(part)
    return found
