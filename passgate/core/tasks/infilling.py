"""HumanEval infilling (Bavarian et al. 2022): local edits, a gap in a function filled by the model.

Each record of openai/human-eval-infilling holds the code before the gap (`prompt`), the code after
it (`suffix`), the missing middle (`canonical_solution`) and HumanEval's `test`. The candidate's
program is `prompt + completion + suffix`, graded like HumanEval: the protected suite is the test's
`check`, the public suite the docstring examples of the entry point when the code before the gap
carries that docstring whole (in the four benchmarks it always does: every gap lies in the body).

Slices are per benchmark, from the task id's first part: `single-line` (SingleLineInfilling/...),
`multi-line`, `random-span` and `random-span-light`; a task id of another shape (the repository's
`example_problem.jsonl`: `test/0`) gets the slice `infilling`. Loading never runs task code.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from passgate.core.errors import ConfigError
from passgate.core.model import Task

from .doctests import Example, extract_examples, public_suffix, public_suite_code
from .humaneval import _drop_wrong
from .io import iter_json_lines, require

# The files of openai/human-eval-infilling at commit 88062ff9859c875d04db115b698ed4b0f0395170 (data/).
REVISION = "88062ff"
KNOWN_FILES = {
    "1277073e7ddce163ef68598c2bca777f688a53df99422f097e37362090f88e1f": "SingleLineInfilling",
    "2f341612eee1d35da1357a4f365e0c0b3ba6e2b62eb491e88aaefa4855af0349": "MultiLineInfilling",
    "b4f330d8a8ff97bf85d9def497dffcae4d741e506449386a877236e422e33e8d": "RandomSpanInfilling",
    "1432250ecac0cb56e6f97f8faf0970419ef892a98fda7e1f5aa4c4b87209b760": "RandomSpanInfillingLight",
    "f066a37097c9bc7fb19a8bcb736cbfbc19e42cb0597766066e75ec6b1187ee9c": "example",
}
BENCHMARKS = {"SingleLineInfilling": "single-line", "MultiLineInfilling": "multi-line",
              "RandomSpanInfilling": "random-span", "RandomSpanInfillingLight": "random-span-light"}
DEFAULT_SLICE = "infilling"
_BASE = re.compile(r"(HumanEval/\d+)")


def benchmark_of(task_id: str) -> str | None:
    """The slice of the benchmark a task id names (`SingleLineInfilling/HumanEval/0/L0` -> single-line)."""
    return BENCHMARKS.get(task_id.split("/", 1)[0])


def load(path: Path, text: str, slice_name: str | None) -> tuple[list[Task], list[str]]:
    """Tasks in file order, and notes on docstring examples left out of a public suite.

    Raises:
        ConfigError: a missing or ill-typed field, or a record whose prompt, middle and suffix do not
            make a program that defines its entry point (naming file, line and field).
    """
    tasks, notes = [], []
    programs: dict[tuple[str, str], _Program] = {}     # the tasks cut from one HumanEval problem share it
    for line, record in iter_json_lines(path, text):
        task_id = require(record, "task_id", str, path, line)
        prefix = require(record, "prompt", str, path, line)
        suffix = require(record, "suffix", str, path, line)
        middle = require(record, "canonical_solution", str, path, line)
        entry_point = require(record, "entry_point", str, path, line)
        test = require(record, "test", str, path, line)
        whole = prefix + middle + suffix
        program = programs.get((whole, entry_point))
        if program is None:
            program = programs[(whole, entry_point)] = _Program.of(whole, entry_point, path, line)
        examples, problems = program.examples if program.docstring_end <= len(prefix) else ([], [])
        base = _BASE.search(task_id)
        examples, dropped = _drop_wrong(base.group(1), examples) if base else (examples, [])
        notes.extend(f"{task_id}: {p}" for p in problems + dropped)
        tasks.append(Task(
            task_id=task_id,
            slice=slice_name or benchmark_of(task_id) or DEFAULT_SLICE,
            prompt=prefix,
            entry_point=entry_point,
            public_tests=public_suite_code(task_id, examples),
            protected_tests=test + "\ncheck(candidate)\n",
            test_setup=program.setup,
            reference_solution=whole,
            completion_style="infill",
            classic_suffix=f"\n{test}\ncheck({entry_point})\n",   # human-eval-infilling's program after it
            public_suffix=public_suffix(task_id, examples, entry_point),
            infill_suffix=suffix,
        ))
    return tasks, notes


@dataclass(frozen=True)
class _Program:
    """A whole program (before + middle + after): where its entry point's docstring ends, that
    docstring's examples, and what the test needs beside the candidate."""

    docstring_end: int                  # characters; 0 when there is no docstring
    examples: tuple[list[Example], list[str]]
    setup: str

    @classmethod
    def of(cls, whole: str, entry_point: str, path: Path, line: int) -> "_Program":
        try:
            tree = ast.parse(whole)
        except SyntaxError as error:
            raise ConfigError(f"prompt + canonical_solution + suffix is not Python ({error.msg}, line {error.lineno})",
                              path=str(path), line=line, field="canonical_solution") from None
        function = next((node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                         and node.name == entry_point), None)
        if function is None:
            raise ConfigError(f"prompt + canonical_solution + suffix defines no function {entry_point!r}",
                              path=str(path), line=line, field="entry_point")
        end, docstring = _docstring(whole, function)
        return cls(end, extract_examples(docstring, entry_point) if docstring else ([], []),
                   _setup(whole, tree, entry_point))


def canonical_middle(task: Task) -> str | None:
    """The reference's middle: its program less the code before and after the gap (None if not an edit)."""
    ref, before, after = task.reference_solution, task.prompt, task.infill_suffix
    if task.completion_style != "infill" or not ref.startswith(before) or not ref.endswith(after):
        return None
    return ref[len(before):len(ref) - len(after)]


def _docstring(whole: str, function) -> tuple[int, str]:
    """(character offset where the entry point's docstring ends, the docstring), or (0, "")."""
    first = function.body[0] if function.body else None
    if not (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)):
        return 0, ""
    lines = whole.splitlines(keepends=True)
    end_bytes = sum(len(text.encode("utf-8")) for text in lines[:first.end_lineno - 1]) + first.end_col_offset
    end = len(whole.encode("utf-8")[:end_bytes].decode("utf-8", errors="ignore"))
    return end, ast.get_docstring(function, clean=True) or ""


def _setup(whole: str, tree: ast.Module, entry_point: str) -> str:
    """What the test needs beside the candidate: the program's imports and its other top-level
    definitions (HumanEval's helpers such as encode_cyclic), never the entry point itself."""
    keep = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == entry_point:
            continue
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue
        keep.append(ast.get_source_segment(whole, node, padded=True))
    return "".join(part.rstrip("\n") + "\n" for part in keep if part)
