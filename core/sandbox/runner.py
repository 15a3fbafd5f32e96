"""The runner contract: what the engine needs from any sandbox.

A runner owns a set of workers; each worker grades one candidate at a time in an isolated
environment and answers with the raw result dict of the worker program (core/sandbox/program/). Every implementation must pass
`tests/core/test_runner_conformance.py` against the real engine.
"""

from __future__ import annotations

import abc
import hashlib
import json
from dataclasses import dataclass, field

from passgate.core.model import Task


class WorkerLost(Exception):
    """The worker (or its container) died, hung, or broke the protocol: an infra failure.

    `oom_killed` is set when the runtime reports the container was killed for memory.
    """

    def __init__(self, message: str, *, oom_killed: bool = False, exit_code: int | None = None):
        super().__init__(message)
        self.oom_killed = oom_killed
        self.exit_code = exit_code


@dataclass
class RunnerInfo:
    """What actually ran: recorded in the run row."""

    runner: str
    runtime: str
    image: str
    image_digest: str
    worker_sha256: str
    limits: dict
    node: str
    engine_version: str = ""
    extra: dict = field(default_factory=dict)


class Worker(abc.ABC):
    """One isolated grading process. Not thread-safe: one caller at a time."""

    node: str
    worker_id: str

    @abc.abstractmethod
    def evaluate(self, task: dict, program: str, limits: dict, *, timeout: float) -> dict:
        """Grade `program` against `task` (dict with key, task_id, entry_point and test code).

        Returns the worker's result dict (suites, cpu_s, wall_s, maxrss_kb, stdout, violations...).
        Raises WorkerLost when the worker cannot answer; the worker is then unusable.
        """

    @abc.abstractmethod
    def probe(self, limits: dict, *, timeout: float) -> dict:
        """Run the boundary self-probe as a candidate would run; returns what it found."""

    @abc.abstractmethod
    def inspect(self) -> dict:
        """The effective sandbox configuration as the engine reports it (for preflight)."""

    @abc.abstractmethod
    def close(self) -> None:
        """Stop and remove the worker's environment; safe to call twice."""


class Runner(abc.ABC):
    """Creates workers and reports what it runs."""

    @abc.abstractmethod
    def check(self) -> RunnerInfo:
        """Verify the engine, runtime and image are available; raise SandboxUnavailable if not."""

    @abc.abstractmethod
    def new_worker(self) -> Worker:
        """Start a fresh worker. Raises SandboxUnavailable or WorkerLost."""

    @abc.abstractmethod
    def close(self) -> None:
        """Remove every worker this runner started."""


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
