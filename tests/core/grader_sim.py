"""A pure-Python, in-process stand-in for the grader, for tests on *trusted* reference solutions only.

It mirrors the grader contract in core/model.py: the program runs in its own namespace (the
"candidate process"); the suite runs in a grader namespace where `test_setup` ran first, then
`candidate`, the entry point and every other name the program defines (and `test_setup` does not)
are bound to proxies. Arguments and results cross as copies; a result that is not plain data
comes back as an opaque handle, as with the real codec (core/sandbox/codec.py).
"""

from __future__ import annotations

import collections
import contextlib
import copy
import decimal
import fractions
import io
import types
from dataclasses import dataclass

from passgate.core.model import Task

PLAIN_SCALARS = (type(None), bool, int, float, complex, str, bytes)
DICT_LIKE = (dict, collections.OrderedDict, collections.Counter, collections.defaultdict)


class Handle:
    """What the grader holds for a value that is not plain data (cf. RemoteObject in the worker):
    attribute reads, calls, iteration, len, indexing and truth go to the object; comparisons do not."""

    __slots__ = ("target",)

    def __init__(self, target):
        object.__setattr__(self, "target", target)

    def __getattr__(self, attr):
        return to_grader(getattr(self.target, attr))

    def __call__(self, *args, **kwargs):
        return to_grader(self.target(*to_candidate(args), **to_candidate(kwargs)))

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


def to_grader(value, depth: int = 0):
    """A result as the grader would receive it: genuine builtin values, or a Handle."""
    kind = type(value)
    if kind in PLAIN_SCALARS or depth > 200:
        return value
    if kind in (list, collections.deque):
        return [to_grader(v, depth + 1) for v in value] if kind is list else collections.deque(to_grader(v, depth + 1) for v in value)
    if kind is tuple or (isinstance(value, tuple) and hasattr(kind, "_fields")):
        return tuple(to_grader(v, depth + 1) for v in value)
    if kind in (set, frozenset):
        return kind(to_grader(v, depth + 1) for v in value)
    if kind in DICT_LIKE:
        return {to_grader(k, depth + 1): to_grader(v, depth + 1) for k, v in value.items()}
    if kind in (range, fractions.Fraction, decimal.Decimal, bytearray) or value is Ellipsis:
        return value
    return Handle(value)


def to_candidate(value, depth: int = 0):
    """An argument as the candidate would receive it: a fresh copy, with handles resolved."""
    kind = type(value)
    if kind is Handle:
        return value.target
    if kind in PLAIN_SCALARS or depth > 200:
        return value
    if kind is list:
        return [to_candidate(v, depth + 1) for v in value]
    if kind is tuple:
        return tuple(to_candidate(v, depth + 1) for v in value)
    if kind in (set, frozenset):
        return kind(to_candidate(v, depth + 1) for v in value)
    if kind is dict:
        return {to_candidate(k, depth + 1): to_candidate(v, depth + 1) for k, v in value.items()}
    return copy.deepcopy(value)


def _proxy(function):
    def call(*args, **kwargs):
        result = function(*to_candidate(args), **to_candidate(kwargs))
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
