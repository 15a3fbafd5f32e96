"""The `product` task format: a user's own task set, one JSON object per line (docs/task-formats.md)."""

from __future__ import annotations

from pathlib import Path

from passgate.core.errors import ConfigError
from passgate.core.model import Task

from .io import iter_json_lines, optional, require

FIELDS = {
    "task_id", "prompt", "entry_point", "public_tests", "protected_tests", "test_setup",
    "candidate_preamble", "reference_solution", "completion_style", "slice", "tags", "exposure",
    "infill_suffix",
}
COMPLETION_STYLES = ("body", "full", "infill")      # infill: a local edit, the gap between prompt and infill_suffix
EXPOSURES = ("public", "holdout")


def load(path: Path, text: str, default_slice: str, default_exposure: str) -> tuple[list[Task], list[str]]:
    """Tasks in file order. Unknown fields, duplicate ids and bad values raise ConfigError."""
    tasks: list[Task] = []
    seen: dict[str, int] = {}
    for line, record in iter_json_lines(path, text):
        unknown = sorted(set(record) - FIELDS)
        if unknown:
            raise ConfigError(f"unknown field (allowed: {', '.join(sorted(FIELDS))})", path=str(path), line=line, field=unknown[0])
        task_id = require(record, "task_id", str, path, line)
        if not task_id.strip():
            raise ConfigError("must not be empty", path=str(path), line=line, field="task_id")
        if task_id in seen:
            raise ConfigError(f"duplicate task id {task_id!r} (first on line {seen[task_id]})", path=str(path), line=line, field="task_id")
        seen[task_id] = line
        entry_point = require(record, "entry_point", str, path, line)
        if not entry_point.isidentifier():
            raise ConfigError(f"{entry_point!r} is not a Python name", path=str(path), line=line, field="entry_point")
        protected = require(record, "protected_tests", str, path, line)
        if not protected.strip():
            raise ConfigError("must contain the grading tests", path=str(path), line=line, field="protected_tests")
        setup = optional(record, "test_setup", str, "", path, line)
        public = optional(record, "public_tests", str, "", path, line)
        style = _choice(record, "completion_style", COMPLETION_STYLES, "body", path, line)
        if (style == "infill") != ("infill_suffix" in record):
            raise ConfigError("a local edit (completion_style infill) needs infill_suffix, the code after the gap, "
                              "and only it has one", path=str(path), line=line, field="infill_suffix")
        tasks.append(Task(
            task_id=task_id,
            slice=optional(record, "slice", str, default_slice, path, line),
            prompt=require(record, "prompt", str, path, line),
            entry_point=entry_point,
            public_tests=public,
            protected_tests=protected,
            test_setup=setup,
            candidate_preamble=optional(record, "candidate_preamble", str, "", path, line),
            reference_solution=optional(record, "reference_solution", str, "", path, line),
            completion_style=style,
            infill_suffix=optional(record, "infill_suffix", str, "", path, line),
            tags=_tags(record, path, line),
            exposure=_choice(record, "exposure", EXPOSURES, default_exposure, path, line),
            # one process: the program, the test setup, then the tests with `candidate` bound to the entry point
            classic_suffix=f"\n{setup}\ncandidate = {entry_point}\n{protected}",
            public_suffix=f"\n{setup}\ncandidate = {entry_point}\n{public}" if public.strip() else "",
        ))
    for task in tasks:
        _check_compiles(task, path, seen[task.task_id])
    return tasks, []


def _choice(record: dict, name: str, allowed: tuple[str, ...], default: str, path: Path, line: int) -> str:
    value = optional(record, name, str, default, path, line)
    if value not in allowed:
        raise ConfigError(f"{value!r} is not one of {', '.join(allowed)}", path=str(path), line=line, field=name)
    return value


def _tags(record: dict, path: Path, line: int) -> tuple[str, ...]:
    tags = optional(record, "tags", list, [], path, line)
    if not all(isinstance(t, str) for t in tags):
        raise ConfigError("must be a list of strings", path=str(path), line=line, field="tags")
    return tuple(tags)


def _check_compiles(task: Task, path: Path, line: int) -> None:
    """Test code is Python the grader will run: a syntax error is a task-set error, not a model failure."""
    for name in ("public_tests", "protected_tests", "test_setup", "candidate_preamble"):
        code = getattr(task, name)
        try:
            compile(code, f"{task.task_id}:{name}", "exec")
        except SyntaxError as error:
            raise ConfigError(f"does not compile: {error.msg} (line {error.lineno} of the field)", path=str(path), line=line, field=name) from None
