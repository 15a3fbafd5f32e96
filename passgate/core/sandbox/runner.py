"""The runner contract: what the engine needs from any sandbox, as typed requests and results.

A runner owns workers; each worker grades one candidate at a time in an isolated environment.
`EvalRequest` is what the engine asks, `EvalResult` what it gets back. Every implementation
passes `tests/core/test_runner_conformance.py` against the real engine (Docker with runsc,
Docker with runc, Ray on a local cluster).
"""

from __future__ import annotations

import abc
import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, Mapping

from passgate.core.errors import ConfigError
from passgate.core.model import Task

from .boundary import SandboxConfig
from .program.protocol import PROTOCOL as GRADING_PROTOCOL  # noqa: F401 - the engine's name for it
from .program.protocol import REFERENCE_BUDGET_S
from .program.protocol import TAMPER_KINDS  # noqa: F401 - defined once, in the program; read from here

# Keys of `limits` (one dict per candidate; `limits_for` derives the wall backstop):
#   cpu_s          CPU seconds each suite may use, measured on the candidate process
#   wall_s         wall-clock backstop per suite, counted only while the grader waits for the candidate
#   wall_factor    wall_s = wall_factor x cpu_s + 2
#   memory_mb      RLIMIT_AS of the candidate process
#   nproc          RLIMIT_NPROC of the candidate uid (processes at once)
#   nofile         RLIMIT_NOFILE;  file_size_mb: RLIMIT_FSIZE
#   output_cap_kb  stdout + stderr beyond this kills the candidate (output_exceeded)
#   output_keep_kb how much of it the result keeps
#   seed           `random`'s seed in the candidate process
#   container_memory_mb, cpus, pids, scratch_mb: the container's own limits (read when it starts)


class WorkerLost(Exception):
    """The worker (or its container) died, hung, or broke the protocol.

    Not a verdict: the engine decides from the attempt's history (and a known-good probe) whether
    the evaluator or the candidate took the sandbox down. `oom_killed` is set when the runtime
    reports the container was killed for memory; `exit_code` is the container's, when it exited.
    """

    def __init__(self, message: str, *, oom_killed: bool = False, exit_code: int | None = None):
        super().__init__(message)
        self.oom_killed = oom_killed
        self.exit_code = exit_code


@dataclass(frozen=True)
class TaskSpec:
    """A task as a worker receives it, once per worker: each suite as the code that runs after the
    program, in its namespace (`protected`: the hidden tests, as the reference harness runs them;
    `public`: the examples the model saw). The worker splits each into what the candidate's process
    runs and what the grader keeps.

    `oracle` (JSON) is what the grader needs beside them: for EvalPlus, the inputs, the canonical
    solution it runs for the expected outputs and the comparison. `imports` is the task's allowed
    imports as the candidate's process enforces them (`{"stdlib": bool, "allowed": [names]}`, None for
    any; program/imports.py). `key` is the sha256 prefix of the rest, so a worker loads each task once.
    """

    key: str
    task_id: str
    protected: str
    public: str
    oracle: str = ""
    imports: Mapping[str, Any] | None = None

    @classmethod
    def of(cls, task: Task) -> "TaskSpec":
        return cls.build(task.task_id, task.protected_suffix or task.classic_suffix, task.public_suffix,
                         task.oracle, imports=import_policy(task.allowed_imports))

    @classmethod
    def build(cls, task_id: str, protected: str, public: str = "", oracle: str = "", *,
              imports: Mapping[str, Any] | None = None) -> "TaskSpec":
        body = {"task_id": task_id, "protected": protected, "public": public, "oracle": oracle}
        if imports is not None:
            body["imports"] = imports
        key = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:20]
        return cls(key=key, **body)

    @property
    def load_timeout_s(self) -> float:
        """How long a worker may take to load the task: an oracle's reference outputs are computed then."""
        return 60.0 + (REFERENCE_BUDGET_S + 60.0 if self.oracle else 0.0)

    def wire(self) -> dict:
        return {"key": self.key, "task_id": self.task_id, "protected": self.protected, "public": self.public,
                "oracle": self.oracle, "imports": self.imports}


def import_policy(allowed: tuple[str, ...]) -> dict | None:
    """A task's `allowed_imports` (`("any",)`, `("stdlib",)`, `("numpy", "stdlib")`, ...) as the worker
    enforces it: None when any import is allowed."""
    if not allowed or "any" in allowed:
        return None
    return {"stdlib": "stdlib" in allowed, "allowed": sorted(m for m in allowed if m != "stdlib")}


@dataclass(frozen=True)
class EvalRequest:
    """One candidate to grade.

    `program` is exactly what the candidate process executes. `limits` bounds it (keys above).
    `timeout_s` is how long the caller waits for the worker's answer before the worker counts as
    lost. `public_after_protected_timeout` false leaves the public suite to the re-check that will
    replace a protected timeout. `classic_program`, when given, is also run whole in its own
    candidate process (the reference harness's single-process program) for the cross-check.
    """

    task: TaskSpec
    program: str
    limits: Mapping[str, Any]
    timeout_s: float
    public_after_protected_timeout: bool = True
    classic_program: str | None = None


@dataclass(frozen=True)
class SuiteResult:
    """One suite against one candidate process.

    `status`: passed | failed | not_run. `failure_class`: a word of model.FAILURE_CLASSES, or None.
    `detail`: why, for people (for a failed assert: its line and what the candidate returned).
    `exc_type`: the exception that ended it. `cpu_s`: the candidate's CPU in this suite.
    `line`, `source`: the failing line of the test code; `returned`: the candidate's value there and
    `expected` the value the test wanted, shortened. `integrity`: how its assertions were decided
    (protocol 3): `outside` by the grader with the expected value never in the candidate's process,
    `visible` by the grader with the expected value also in the process, `in_process` in the
    candidate's process; `control` is "grader" when the grader knew every assertion that had to run,
    "process" when the test's own control flow decided that. `process`: set when the suite ran on in
    the process the protected suite left. `imports`: the disallowed imports the program attempted in
    this suite's process (module, top, line, how, in), when its class is `disallowed_import`.
    """

    status: str
    failure_class: str | None = None
    detail: str = ""
    exc_type: str | None = None
    cpu_s: float = 0.0
    line: int | None = None
    source: str = ""
    returned: str = ""
    expected: str = ""
    integrity: Mapping[str, Any] = field(default_factory=dict)
    process: str = ""
    imports: tuple[Mapping[str, Any], ...] = ()

    @classmethod
    def from_wire(cls, d: Mapping[str, Any] | None) -> "SuiteResult":
        d = d or {"status": "not_run"}
        integrity = d.get("integrity") if isinstance(d.get("integrity"), dict) else {}
        return cls(status=str(d.get("status") or "not_run"), failure_class=d.get("class"),
                   detail=str(d.get("detail") or ""), exc_type=d.get("exc_type"),
                   cpu_s=float(d.get("cpu_s") or 0.0), line=d.get("line"), source=str(d.get("source") or ""),
                   returned=str(d.get("returned") or ""), expected=str(d.get("expected") or ""),
                   integrity=integrity, process=str(d.get("process") or ""),
                   imports=tuple(a for a in d.get("imports") or () if isinstance(a, dict)))


NOT_RUN = SuiteResult("not_run")



@dataclass(frozen=True)
class EvalResult:
    """What the worker saw of one candidate.

    `protected` is the headline suite, `public` the visible examples, `classic` the cross-check's
    single-process program (None when not asked). `cpu_s`: CPU of every candidate process (rusage);
    `wall_s`: the whole evaluation; `maxrss_kb`: the largest process; `out_bytes`: all output;
    `stdout`: its first `output_keep_kb`; `violations`: boundary attempts the candidate made;
    `exit`: how the last candidate process ended; `processes`: how many ran; `notes`: where the
    grader could not reproduce a value exactly (set order, an argument kept past its call);
    `protocol`: the grading protocol's version; `timings`: where the time went (s); `node`,
    `container_id`: where it ran; `host_cpu_s`: the real CPU the host's cgroup counted for the
    container during the evaluation, up to the moment the worker said a timed-out protected suite
    ended (None where the runner cannot read it, or did not see that moment); `tamper`: tamper
    tripwires the candidate tripped ("kind: detail", kinds in TAMPER_KINDS): telemetry that never
    changes a verdict.
    """

    protected: SuiteResult
    public: SuiteResult
    classic: SuiteResult | None = None
    cpu_s: float = 0.0
    wall_s: float = 0.0
    maxrss_kb: int = 0
    out_bytes: int = 0
    stdout: str = ""
    violations: tuple[str, ...] = ()
    exit: str = ""
    processes: int = 0
    notes: tuple[str, ...] = ()
    protocol: int = 1
    timings: Mapping[str, float] = field(default_factory=dict)
    node: str = ""
    container_id: str = ""
    host_cpu_s: float | None = None
    tamper: tuple[str, ...] = ()

    @classmethod
    def from_wire(cls, d: Mapping[str, Any], *, node: str = "", container_id: str = "",
                  host_cpu_s: float | None = None) -> "EvalResult":
        suites = d.get("suites") or {}
        timings = {k: float(v) for k, v in d.items() if k.startswith("t_") and isinstance(v, (int, float))}
        return cls(protected=SuiteResult.from_wire(suites.get("protected")),
                   public=SuiteResult.from_wire(suites.get("public")),
                   classic=SuiteResult.from_wire(d["classic"]) if d.get("classic") else None,
                   cpu_s=float(d.get("cpu_s") or 0.0), wall_s=float(d.get("wall_s") or 0.0),
                   maxrss_kb=int(d.get("maxrss_kb") or 0), out_bytes=int(d.get("out_bytes") or 0),
                   stdout=str(d.get("stdout") or ""), violations=tuple(str(v) for v in d.get("violations") or ()),
                   exit=str(d.get("exit") or ""), processes=int(d.get("processes") or 0),
                   notes=tuple(str(n) for n in d.get("notes") or ()), protocol=int(d.get("protocol") or 1),
                   timings=timings, node=node, container_id=container_id, host_cpu_s=host_cpu_s,
                   tamper=tuple(str(v) for v in d.get("tamper") or ()))

    @property
    def passed(self) -> bool:
        return self.protected.status == "passed"

    @property
    def imports(self) -> tuple[Mapping[str, Any], ...]:
        """The disallowed imports the program attempted, over both suites, each once."""
        seen: list = []
        for a in self.protected.imports + self.public.imports:
            if a not in seen:
                seen.append(a)
        return tuple(seen)


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
    """One isolated grading environment. Not thread-safe: one caller at a time."""

    node: str
    worker_id: str
    container_id: str = ""              # the sandbox this worker's requests run in

    @abc.abstractmethod
    def evaluate(self, request: EvalRequest) -> EvalResult:
        """Grade one candidate.

        Raises WorkerLost when the worker cannot answer within `request.timeout_s` or breaks the
        protocol; the worker is then unusable and must be closed.
        """

    @abc.abstractmethod
    def probe(self, limits: Mapping[str, Any], *, timeout: float) -> dict:
        """Run the boundary self-probe as a candidate would run; returns what it found.

        Raises WorkerLost as `evaluate` does.
        """

    def known_good(self, like: EvalRequest) -> EvalRequest | None:
        """A request that a sound evaluator passes on this worker, in the same kind of sandbox as
        `like` (which lost its sandbox); None for the engine's own known-good Python candidate."""
        return None

    def run_job(self, job: Mapping[str, Any], *, timeout_s: float) -> dict:
        """Send one job to a program other than the function grader (a repository patch to grade,
        core/sandbox/repo_program) and return its reply as data. Only workers of a runner made by
        `Runner.for_program` take jobs.

        Raises WorkerLost as `evaluate` does.
        """
        raise NotImplementedError(f"{type(self).__name__} runs function candidates only")

    @abc.abstractmethod
    def sandbox_config(self) -> SandboxConfig:
        """The effective sandbox configuration as its runtime reports it (for preflight).

        Raises WorkerLost when the environment is gone.
        """

    @abc.abstractmethod
    def close(self) -> None:
        """Stop and remove the worker's environment; safe to call twice; never raises."""

    def worn(self) -> bool:
        """True when the environment should be replaced before the next candidate (the runtime is
        holding what the last one left behind). Never raises."""
        return False


class Runner(abc.ABC):
    """Creates workers and reports what it runs.

    Beside the abstract methods, every runner answers what the engine asks of it; the defaults are
    those of one host that reports no host CPU and has no events of its own.
    """

    start_timeout_s: float = 0.0        # how long starting one worker may take, beyond the engine's patience

    @property
    def concurrency(self) -> int | None:
        """Workers that keep every sandbox busy, when the runner knows better than the manifest."""
        return None

    @property
    def recheck_slots(self) -> int:
        """Timeout re-checks that can run at once, each with a core to itself."""
        return 1

    @property
    def measures_host_cpu(self) -> bool:
        """Whether each result carries the sandbox's real CPU, so that a timeout can be confirmed."""
        return False

    def drain_events(self) -> list[tuple[str, str]]:
        """(kind, message) lines for the run's log since the last call (nodes accepted, refused, lost)."""
        return []

    def check_package_image(self, image: str, packages, base_digest: str) -> str:
        """Confirm `image` holds exactly the manifest's allowed packages on the pinned base; returns
        what was checked, or "" when this runner cannot see the image."""
        return ""

    @abc.abstractmethod
    def check(self, expected_digest: str | None = None) -> RunnerInfo:
        """Verify the engine, runtime and image are available, and the image is the pinned one.

        Raises SandboxUnavailable when they are not, DriftError when the image digest differs
        from `expected_digest`.
        """

    def for_program(self, program: str) -> Runner:
        """A runner like this one (same engine or cluster, runtime, image, limits and boundary) whose
        sandboxes boot `program` instead of the function grader; each of its workers is a fresh
        sandbox for one job (`Worker.run_job`). The caller closes it."""
        raise ConfigError(f"the {type(self).__name__} runs function candidates only; repository tasks need the "
                          "Docker or the Ray runner")

    @abc.abstractmethod
    def new_worker(self) -> Worker:
        """Start a fresh worker. Raises SandboxUnavailable (no engine) or WorkerLost (it did not start)."""

    @abc.abstractmethod
    def close(self) -> None:
        """Remove every worker this runner started; never raises."""


def limits_for(base: Mapping[str, Any], cpu_s: float) -> dict:
    """The limits of one candidate under a CPU limit of `cpu_s` (the wall backstop follows it)."""
    out = dict(base)
    out["cpu_s"] = round(cpu_s, 3)
    out["wall_s"] = round(cpu_s * float(base["wall_factor"]) + 2.0, 3)
    return out
