"""One language candidate graded: its programs built on the host, run by the container's supervisor,
judged on the host from what the harness reported.

For each suite (protected, then public) the test is split (cached per task), the program built by
the language's spec, compiled and run as two steps under the candidate's limits, and the report
channel's bytes graded by `verdict.grade`. The compile step has its own CPU budget; both steps'
time is the candidate's. Expected values never leave this process.
"""

from __future__ import annotations

import base64
import hashlib
import re
from dataclasses import dataclass, field
from typing import Any, Mapping

from ..sandbox.runner import EvalRequest, EvalResult, SuiteResult, WorkerLost
from .job import LanguageJob, suite_input, texts_of
from .registry import spec_for
from .spec import Integrity, LanguageSpec, Program, SplitTest, TestInput
from .verdict import Verdict, first_compile_error, grade

LANGUAGE_PROTOCOL = 2          # the supervisor's protocol and this module's reading of it (2: per-stream
                               # truncation, JavaScript bigints, unjudgeable reports as failures)
REPORT_CAP_KB = 16384          # report bytes beyond this end the program (output_exceeded)
# processes (threads count) a compile step may run: compilers are multi-threaded (the go command runs
# several Go programs at once); the candidate's own code runs only in the run step, under `nproc`
COMPILE_NPROC = 256
# the largest file a compile step may write (a Rust test binary with its crates is over 16 MiB)
COMPILE_FILE_MB = 256

# what a runtime prints when it runs out of memory (the process then dies of it)
_OUT_OF_MEMORY = re.compile(r"heap out of memory|std::bad_alloc|OutOfMemoryError|memory allocation of \d+ bytes "
                            r"failed|runtime: out of memory|Cannot allocate memory|MemoryError|cannot allocate",
                            re.IGNORECASE)

# verdict.grade's words as the record's failure classes (model.FAILURE_CLASSES)
_CLASSES = {"wrong_answer": "wrong_answer", "runtime_error": "runtime_error", "bad_report": "tampering"}
# an in-process program that failed on an assertion (else it failed some other way)
_ASSERTION = re.compile(r"assert|AssertionError|Assertion .* failed|assertion failed", re.IGNORECASE)


@dataclass(frozen=True)
class LanguageResult(EvalResult):
    """An EvalResult with what the language path adds: the language, each suite's integrity, and
    compile and run time apart (recorded in the execution's evidence under `language`)."""

    language: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class _Suite:
    name: str
    test: TestInput
    split: SplitTest


class LanguageGrader:
    """Builds and judges one language's programs; the container only runs them."""

    def __init__(self, compile_cpu_s: float, wall_factor: float):
        self.compile_cpu_s, self.wall_factor = compile_cpu_s, wall_factor
        self._tasks: dict[str, tuple[LanguageJob, LanguageSpec, list[_Suite]]] = {}

    def task(self, request: EvalRequest) -> tuple[LanguageJob, LanguageSpec, list[_Suite]]:
        """The task's job, spec and split suites, built once per task."""
        spec_key = request.task.key
        if spec_key not in self._tasks:
            texts = texts_of(request.task)
            job = LanguageJob.from_json(texts.header)   # the wire's header, once per task
            spec = spec_for(job.language)
            inputs = [(name, suite_input(job, texts.task_id, text))
                      for name, text in (("protected", texts.protected), ("public", texts.public)) if text.strip()]
            suites = [_Suite(name, test, spec.split(test)) for name, test in inputs]
            self._tasks[spec_key] = (job, spec, suites)
        return self._tasks[spec_key]

    def language_of(self, request: EvalRequest) -> str:
        return self.task(request)[1].name

    def evaluate(self, container, request: EvalRequest) -> LanguageResult:
        job, spec, suites = self.task(request)
        results: dict[str, SuiteResult] = {}
        runs: dict[str, dict] = {}
        for suite in suites:
            if suite.name == "public" and not request.public_after_protected_timeout \
                    and results["protected"].failure_class == "timeout":
                results["public"] = SuiteResult("not_run", detail="left to the re-check of the protected timeout")
                continue
            program = spec.program(suite.test, request.program, suite.split)
            reply = container.request(self._run_request(spec, job, suite.test, program, request.limits),
                                      timeout=max(float(request.timeout_s), self._patience(program, request.limits)))
            if reply.get("setup_error"):
                raise WorkerLost(f"the sandbox could not take the program: {reply['setup_error']}")
            runs[suite.name] = reply
            results[suite.name] = judge(suite.split, reply, spec.in_process_passes)
        for name in ("protected", "public"):
            results.setdefault(name, SuiteResult("not_run", detail="no tests"))
        return _result(spec, job, suites, results, runs, request.limits)

    def _patience(self, program: Program, limits: Mapping) -> float:
        compile_wall = self.compile_cpu_s * self.wall_factor + 2 if program.compile_argv else 0.0
        return compile_wall + float(limits["wall_s"]) + 120

    def _run_request(self, spec: LanguageSpec, job: LanguageJob, test: TestInput, program: Program,
                     limits: Mapping) -> dict:
        steps = []
        if program.compile_argv:
            steps.append({"name": "compile", "argv": list(program.compile_argv), "env": [list(e) for e in program.env],
                          "cpu_s": self.compile_cpu_s, "wall_s": round(self.compile_cpu_s * self.wall_factor + 2, 3),
                          "keep": "head", "nproc": max(COMPILE_NPROC, int(limits["nproc"])),
                          "file_size_mb": max(COMPILE_FILE_MB, int(limits["file_size_mb"])),
                          "memory_mb": _compile_memory_mb(limits)})
        steps.append({"name": "run", "argv": list(program.run_argv), "env": [list(e) for e in program.env],
                      "cpu_s": float(limits["cpu_s"]), "wall_s": float(limits["wall_s"]), "report": True})
        return {"op": "run", "files": [[f.path, f.text] for f in program.files],
                "archives": _archives(spec, job, test, program), "steps": steps,
                "limits": {"memory_mb": limits["memory_mb"], "rlimit_as": spec.rlimit_as, "nproc": limits["nproc"],
                           "nofile": limits["nofile"], "file_size_mb": limits["file_size_mb"],
                           "output_cap_kb": limits["output_cap_kb"], "output_keep_kb": limits["output_keep_kb"],
                           "report_cap_kb": REPORT_CAP_KB}}


def _compile_memory_mb(limits: Mapping) -> int:
    """The compile step's address space: what the container leaves beside the runtime's own 256 MiB
    (at least the candidate's). Multi-threaded compilers reserve a stack per thread: under the
    candidate's limit rustc and the go command sometimes failed to start one on a loaded machine."""
    container = int(limits.get("container_memory_mb") or 0)
    return max(int(limits["memory_mb"]), container - 256)


def _archives(spec: LanguageSpec, job: LanguageJob, test: TestInput, program: Program) -> list:
    """The support archives a program names, checked against the task's pins."""
    if not program.archives:
        return []
    support = spec.support(test) if spec.support else {}
    out = []
    for name, into in program.archives:
        data = support.get(name)
        if data is None:
            raise WorkerLost(f"support archive {name} of {test.task_id} is missing on this host")
        pinned = job.support_sha256.get(name)
        actual = hashlib.sha256(data).hexdigest()
        if pinned and actual != pinned:
            raise WorkerLost(f"support archive {name} of {test.task_id} has sha256 {actual}; the task set pins {pinned}")
        out.append([name, base64.b64encode(data).decode(), into])
    return out


def judge(split: SplitTest, reply: Mapping, in_process_passes=None) -> SuiteResult:
    """One suite's verdict from the supervisor's account of its steps (`in_process_passes`: the
    dataset's own rule for a program that runs in-process, when it is not the exit status alone)."""
    steps = {s["name"]: s for s in reply.get("steps") or []}
    compiled = steps.get("compile")
    run = steps.get("run")
    if compiled is not None and (compiled["status"] != 0 or compiled["timed_out"] or compiled["output_exceeded"]):
        cpu = 0.0
        if compiled["timed_out"]:
            return SuiteResult("failed", "timeout", f"compiling took longer than its budget ({compiled['timed_out']} "
                               f"limit, {compiled['cpu_s']:.1f} s CPU)", cpu_s=cpu)
        if compiled["output_exceeded"]:
            return SuiteResult("failed", "output_exceeded", "the compiler's output passed the output cap", cpu_s=cpu)
        text = (compiled.get("stderr") or "") + "\n" + (compiled.get("stdout") or "")
        first = first_compile_error(text) or f"exit status {compiled['status']}, signal {compiled['signal']}"
        return SuiteResult("failed", "compile_error", f"does not compile: {first}", exc_type="compile", cpu_s=cpu)
    if run is None:
        return SuiteResult("failed", "infra_error", "the program was not run")
    cpu = float(run["cpu_s"])
    if run["timed_out"]:
        return SuiteResult("failed", "timeout", f"ran out of time ({run['timed_out']} limit, {cpu:.2f} s CPU)",
                           cpu_s=cpu)
    if run["output_exceeded"]:
        what = "its report" if run.get("report_bytes", 0) > REPORT_CAP_KB * 1024 else "its output"
        return SuiteResult("failed", "output_exceeded", f"{what} passed the cap", cpu_s=cpu)
    status = run["status"] if run["signal"] is None else -int(run["signal"])
    report = base64.b64decode(reply.get("report_b64") or "")
    verdict = grade(split, report, exit_status=status, output_tail=run.get("stderr") or "")
    if split.integrity is Integrity.IN_PROCESS and in_process_passes is not None and verdict.passed:
        stderr = (run.get("stderr_head") or "") + (run.get("stderr") or "")
        cut = _cut_streams(run, getattr(in_process_passes, "reads", ("stdout", "stderr")))
        if not in_process_passes(status, run.get("stdout") or "", stderr):
            verdict = Verdict(False, "test_failed", f"exit status {status}, but the dataset's rule fails it: "
                              f"{_last_line(stderr) or _last_line(run.get('stdout') or '')}", integrity=split.integrity)
        elif cut:      # the telling text may be in what was dropped: fail closed
            verdict = Verdict(False, "test_failed", f"exit status {status}, but its {' and '.join(cut)} exceeded "
                              "what is kept, so the dataset's rule on its output could not be applied",
                              integrity=split.integrity)
    if verdict.passed:
        return SuiteResult("passed", cpu_s=cpu)
    return _failure(split, verdict, run, status, cpu)


def _cut_streams(run: Mapping, reads) -> list[str]:
    """The streams among `reads` of which the supervisor kept only a part ("stdout (123456 bytes)").
    A reply without the per-stream flags is judged by its byte count against the text it carries."""
    if not any(f"{name}_truncated" in run for name in ("stdout", "stderr")):
        kept = sum(len((run.get(name) or "").encode("utf-8", "replace")) for name in ("stdout", "stderr"))
        return [f"output ({run['out_bytes']} bytes)"] if int(run.get("out_bytes") or 0) > kept else []
    return [f"{name} ({run.get(f'{name}_bytes', '?')} bytes)" for name in reads
            if run.get(f"{name}_truncated", True)]


def _failure(split: SplitTest, verdict: Verdict, run: Mapping, status: int, cpu: float) -> SuiteResult:
    stderr = run.get("stderr") or ""
    site = split.sites[verdict.site] if verdict.site is not None and verdict.site < len(split.sites) else None
    where = dict(line=site.line, source=site.source) if site is not None else {}
    head = run.get("stderr_head") or ""
    if status != 0 and _OUT_OF_MEMORY.search(head + stderr):
        return SuiteResult("failed", "memory_exceeded", f"ran out of memory: {_telling_line(head, stderr)}", cpu_s=cpu,
                           **where)
    if verdict.failure == "missing_report":
        if status == 0:
            return SuiteResult("failed", "premature_exit", verdict.detail, cpu_s=cpu, **where)
        why = f"signal {-status}" if status < 0 else f"exit status {status}"
        return SuiteResult("failed", "runtime_error", f"{verdict.detail}; {why}: {_telling_line(head, stderr)}",
                           exc_type=_exception_of(head + stderr), cpu_s=cpu, **where)
    if verdict.failure == "test_failed":      # in-process: the original program's exit status decided
        cls = "wrong_answer" if _ASSERTION.search(head + stderr) else "runtime_error"
        return SuiteResult("failed", cls, f"{verdict.detail.split(':', 1)[0]}: {_telling_line(head, stderr)}",
                           exc_type=_exception_of(head + stderr), cpu_s=cpu)
    return SuiteResult("failed", _CLASSES.get(verdict.failure, "wrong_answer"), verdict.detail, cpu_s=cpu, **where)


_TELLING = re.compile(r"panic|fatal|error|exception|abort|assert|killed|failed", re.IGNORECASE)


def _telling_line(head: str, tail: str) -> str:
    """The line of a crash that says what happened: the first that names an error, else the last."""
    for line in head.splitlines():
        if _TELLING.search(line):
            return line.strip()[:300]
    return _last_line(tail)


def _last_line(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return lines[-1][:300] if lines else ""


def _exception_of(stderr: str) -> str | None:
    found = re.search(r"\b([A-Z][A-Za-z]*(?:Error|Exception))\b", stderr)
    return found.group(1) if found else None


def _result(spec: LanguageSpec, job: LanguageJob, suites: list[_Suite], results: dict[str, SuiteResult],
            runs: dict[str, dict], limits: Mapping) -> LanguageResult:
    steps = [s for reply in runs.values() for s in reply.get("steps") or []]
    compile_s = sum(s["wall_s"] for s in steps if s["name"] == "compile")
    run_s = sum(s["wall_s"] for s in steps if s["name"] == "run")
    protected_run = next((s for s in (runs.get("protected") or {}).get("steps") or [] if s["name"] == "run"), {})
    integrity = {s.name: s.split.integrity.value for s in suites}
    language = {"language": spec.name, "dataset": job.dataset, "integrity": integrity,
                "sites": {s.name: len(s.split.sites) for s in suites if s.split.integrity is Integrity.OUTSIDE},
                "compile_s": round(compile_s, 4), "run_s": round(run_s, 4),
                "compile_cpu_s": round(sum(s["cpu_s"] for s in steps if s["name"] == "compile"), 4),
                "run_cpu_s": round(sum(s["cpu_s"] for s in steps if s["name"] == "run"), 4),
                "protocol": LANGUAGE_PROTOCOL}
    reasons = [f"{s.name} suite in-process: {s.split.reason}" for s in suites if s.split.integrity is Integrity.IN_PROCESS]
    last = steps[-1] if steps else {}
    exit_text = ("not run" if not last else f"{last['name']}: " + (
        f"signal {last['signal']}" if last["signal"] is not None else f"exit {last['status']}"))
    return LanguageResult(
        protected=results["protected"], public=results["public"],
        cpu_s=round(sum(s["cpu_s"] for s in steps), 4), wall_s=round(compile_s + run_s, 4),
        maxrss_kb=max((int(s["maxrss_kb"]) for s in steps), default=0),
        out_bytes=sum(int(s["out_bytes"]) for s in steps),
        stdout=(protected_run.get("stdout") or "")[: int(limits["output_keep_kb"]) * 1024],
        exit=exit_text, processes=len(steps), notes=tuple(reasons), protocol=LANGUAGE_PROTOCOL,
        timings={"t_compile": round(compile_s, 4), "t_run": round(run_s, 4)}, language=language)
