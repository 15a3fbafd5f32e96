"""What a language is to passgate: one LanguageSpec, data plus a few pure functions.

The engine never branches on a language's name: it asks the registry for the spec and calls
`split` (a test → harness + expected values), `program` (prompt + completion + harness → files
and the compile and run commands) and `runtime` (the serialiser the harness calls), then grades
the report channel with `verdict.grade`. Everything that goes into the sandbox is a string.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Callable

from .compare import Compare
from .toolchain import Toolchain

REPORT_FD = 3           # the descriptor a harness writes its reports to


class Integrity(str, Enum):
    """Where a verdict is decided."""

    OUTSIDE = "outside"         # expected values stayed with the grader; the candidate's process reported values
    IN_PROCESS = "in_process"   # the original test ran in the candidate's process; its exit status decided


@dataclass(frozen=True)
class Site:
    """One assertion of a test: the grader's half (the harness holds only the call)."""

    index: int
    line: int                   # line of the assertion in the original test text
    source: str                 # the original assertion, for a failure's detail (never sent to the sandbox)
    expected: object            # in the values model (values.py)
    compare: Compare


@dataclass(frozen=True)
class SplitTest:
    """A test divided between the candidate's process and the grader."""

    integrity: Integrity
    harness: str                # test-side code in the candidate's language; no expected value when OUTSIDE
    sites: tuple[Site, ...] = ()
    reason: str = ""            # why the test could not be split (IN_PROCESS)


@dataclass(frozen=True)
class SourceFile:
    path: str                   # relative to the scratch directory
    text: str


@dataclass(frozen=True)
class Program:
    """How one candidate becomes files and processes; compile and run are separate steps."""

    files: tuple[SourceFile, ...]
    compile_argv: tuple[str, ...] | None    # None: nothing to compile
    run_argv: tuple[str, ...]
    env: tuple[tuple[str, str], ...] = ()   # beside a fixed PATH, HOME (the scratch directory) and TMPDIR;
                                            # "{scratch}" in a value stands for the scratch directory
    archives: tuple[tuple[str, str], ...] = ()   # (name of a support archive, directory to unpack it in)


@dataclass(frozen=True)
class TestInput:
    """What a dataset gives for one test suite of one task."""

    task_id: str
    prompt: str
    test: str
    entry_point: str = ""
    declaration: str = ""       # HumanEval-X: the prompt without its docstring (what its own harness uses)
    dataset: str = ""           # "humaneval-x" or "multipl-e"
    extras: dict = field(default_factory=dict)


@dataclass(frozen=True)
class LanguageSpec:
    """A language: its image, its post-processing and its three pure functions.

    split(TestInput) -> SplitTest          the test divided; IN_PROCESS with a reason when it cannot be
    program(TestInput, completion, SplitTest) -> Program   the files, compile and run commands
    original(TestInput, completion) -> Program   the dataset's own one-process program (prompt + solution +
                                           test), for the in-process fallback and the agreement check
    runtime() -> str                       the serialiser source the harness includes
    support(TestInput) -> {name: bytes}    the support archives a program names (Go's vendored testify)
    """

    name: str                               # registry key: "js", "cpp", ...
    title: str                              # "JavaScript"
    toolchain: Toolchain                    # the image: Debian packages
    fence_tags: tuple[str, ...]             # a chat answer's ```tag that names this language
    split: Callable[[TestInput], SplitTest]
    program: Callable[[TestInput, str, SplitTest], Program]
    original: Callable[[TestInput, str], Program]
    runtime: Callable[[], str]
    version_argv: tuple[str, ...] = ()      # prints the toolchain's version inside the image
    rlimit_as: bool = True                  # RLIMIT_AS bounds its memory (False for the JVM, whose
                                            # reservations exceed any useful limit)
    default_stop_tokens: tuple[str, ...] = ()
    support: Callable[[TestInput], dict[str, bytes]] | None = None   # the bytes of a program's `archives`
    # the dataset's own rule for its one-process program (exit status, stdout, stderr) -> passed;
    # None: exit status 0 (MultiPL-E's Racket also needs an empty stderr: rackunit reports and exits 0)
    in_process_passes: Callable[[int | None, str, str], bool] | None = None


@dataclass(frozen=True)
class Refusal:
    """A language passgate cannot grade here, and the sentence that says why."""

    name: str
    title: str
    reason: str
