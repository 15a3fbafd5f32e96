"""A pure-Python, in-process stand-in for the grader, for tests on *trusted* reference solutions only.

It mirrors the grader contract in core/model.py: the program runs in its own namespace (the
"candidate process"); the suite runs in a grader namespace where `test_setup` ran first, then
`candidate`, the entry point and every other name the program defines (and `test_setup` does not)
are bound to proxies. Arguments and results cross through the real codec (core/sandbox/program/codec.py)
and JSON text, as in the worker; a result that is not plain data comes back as an opaque handle.
"""

from __future__ import annotations

import contextlib
import io
import json
import multiprocessing
import os
import types
from dataclasses import dataclass

from passgate.core.model import Task
from passgate.core.sandbox.program.codec import NotData, decode, encode


class Handle:
    """What the grader holds for a value that is not plain data (cf. RemoteObject in the worker):
    attribute reads and writes, calls, iteration, len, indexing and truth go to the object; comparisons do not."""

    __slots__ = ("target",)

    def __init__(self, target):
        object.__setattr__(self, "target", target)

    def __getattr__(self, attr):
        return to_grader(getattr(self.target, attr))

    def __setattr__(self, attr, value):
        setattr(self.target, attr, to_candidate(value))

    def __call__(self, *args, **kwargs):
        return to_grader(self.target(*to_candidate(list(args)), **to_candidate(kwargs)))

    def __iter__(self):
        return iter([to_grader(v) for v in self.target])

    def __len__(self):
        return len(self.target)

    def __getitem__(self, key):
        return to_grader(self.target[to_candidate(key)])

    def __contains__(self, key):
        return to_candidate(key) in self.target

    def __bool__(self):
        return bool(self.target)

    def __hash__(self):
        return id(self.target)

    def _compared(self, other):
        return NotImplemented

    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = _compared

    def __repr__(self):
        return f"<handle to a {type(self.target).__name__}>"


_HELD: dict[int, object] = {}  # the candidate side's handle table


def _wire(obj):
    """Through JSON text, exactly as the worker's frames carry it (so e.g. >4300-digit ints fail)."""
    return json.loads(json.dumps(obj, separators=(",", ":")))


def to_grader(value):
    """A result as the grader receives it: genuine builtin values, or a Handle."""
    def handle_for(obj):
        _HELD[id(obj)] = obj
        return id(obj)
    return decode(_wire(encode(value, handle_for)), lambda key: Handle(_HELD[key]))


def to_candidate(value):
    """Arguments as the candidate receives them: fresh plain data, handles resolved."""
    def arg_handle(obj):
        if isinstance(obj, Handle):
            _HELD[id(obj.target)] = obj.target
            return id(obj.target)
        raise NotData(f"argument {type(obj).__name__} is not plain data")
    return decode(_wire(encode(value, arg_handle)), _HELD.__getitem__)


def _proxy(function):
    def call(*args, **kwargs):
        result = function(*to_candidate(list(args)), **to_candidate(kwargs))
        return to_grader(result)
    return call


@dataclass
class SuiteRun:
    passed: bool
    error: str = ""
    printed: str = ""


def program_of(task: Task) -> str:
    """What the candidate process executes for the reference: the whole program as stored."""
    return task.reference_solution


def run_suite(task: Task, suite_code: str, cache: dict, program: str | None = None) -> SuiteRun:
    """Run one suite against `program` (the reference by default), simulating the grader."""
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            candidate_ns: dict = {"__name__": "__main__"}
            exec(compile(program_of(task) if program is None else program, "<candidate>", "exec"), candidate_ns)
            grader: dict = {"__name__": "__pg_grader__", "__pg_cache__": cache}
            exec(compile(task.test_setup, "<test_setup>", "exec"), grader)
            setup_names = set(grader)
            for name, value in candidate_ns.items():
                if name.startswith("__") or isinstance(value, types.ModuleType) or not callable(value):
                    continue
                if name in setup_names and name != task.entry_point:
                    continue
                grader[name] = _proxy(value)
            grader["candidate"] = _proxy(candidate_ns[task.entry_point])
            exec(compile(suite_code, "<suite>", "exec"), grader)
    except BaseException as error:  # noqa: BLE001 - a suite fails on anything it raises
        return SuiteRun(False, f"{type(error).__name__}: {str(error)[:300]}", printed.getvalue())
    return SuiteRun(True, "", printed.getvalue())


def _check_one(item) -> tuple[str, str]:
    task, suites = item
    cache: dict = {}
    for name in suites:
        code = getattr(task, name)
        if code:
            run = run_suite(task, code, cache)
            if not run.passed:
                return task.task_id, f"{name}: {run.error}"
    return task.task_id, ""


def reference_failures(tasks, suites=("public_tests", "protected_tests"), processes: int | None = None) -> dict[str, str]:
    """{task id: first failing suite and error} for every task whose reference fails its own suites.

    Runs in forked worker processes (one per CPU) so the whole benchmark fits the test budget.
    """
    work = [(task, suites) for task in tasks]
    processes = processes or os.cpu_count() or 1
    if processes == 1 or len(work) < 8:
        results = list(map(_check_one, work))
    else:
        with multiprocessing.get_context("fork").Pool(processes) as pool:
            results = list(pool.imap_unordered(_check_one, work, chunksize=2))
    return {task_id: error for task_id, error in results if error}
