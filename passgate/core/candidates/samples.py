"""Import model samples from a file into Candidates, post-processed the same way for every one.

Nothing is dropped silently: every record or sample that does not become a candidate is in
`ImportResult.rejected` with its line number and the reason. Formats are listed in
core/candidates/formats.py and docs/task-formats.md.
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from passgate.core.errors import ConfigError
from passgate.core.model import Candidate, PostprocessSpec, Task
from passgate.core.tasks.io import file_sha256, read_text

from .formats import (
    DEFAULT_STYLE,
    FORMATS,
    PromptMatcher,
    RecordTexts,
    TaskResolver,
    detect_format,
    record_texts,
    record_timing,
    source_verdict,
)

__all__ = ["FORMATS", "ImportResult", "import_samples", "postprocess", "extract_fence", "cut_at_stops"]

STYLES = ("auto", "body", "full")


@dataclass
class ImportResult:
    """Candidates from one samples file, and every record or sample left out, with why."""

    candidates: list[Candidate]
    rejected: list[dict]              # {"line", "reason", and "sample"/"task_id" when known}
    sha256: str
    format: str
    per_task_counts: dict[str, int]   # every task of the set, 0 when the file has none for it
    path: str = ""
    records: int = 0                  # non-blank lines read
    notes: list[str] = field(default_factory=list)


def import_samples(
    path: str | Path,
    tasks: dict[str, Task],
    *,
    fmt: str = "auto",
    postprocess: PostprocessSpec,
    prompt_map: str | Path | None = None,
) -> ImportResult:
    """Read a samples file into candidates for `tasks` (task id -> Task).

    Raises:
        ConfigError: missing file, unknown format or style, or a first record whose format cannot be told.
    """
    path = Path(path)
    if postprocess.style not in STYLES:
        raise ConfigError(f"postprocess style must be one of {', '.join(STYLES)}", field="style")
    sha256 = file_sha256(path)
    lines = [(n, line) for n, line in enumerate(read_text(path).splitlines(), start=1) if line.strip()]
    if not lines:
        raise ConfigError("the samples file has no records", path=str(path))
    fmt = _format(fmt, lines[0], path)
    matcher = PromptMatcher(tasks, Path(prompt_map) if prompt_map else None) if fmt == "codet" else None
    state = _Import(path, tasks, fmt, postprocess, TaskResolver(tasks), matcher)
    for number, line in lines:
        state.add_line(number, line)
    notes = [f"{n} records matched by {how}" for how, n in sorted(state.matched_by.items())]
    return ImportResult(
        candidates=state.candidates, rejected=state.rejected, sha256=sha256, format=fmt,
        per_task_counts={task_id: state.counts.get(task_id, 0) for task_id in tasks},
        path=str(path), records=len(lines), notes=notes,
    )


def _format(fmt: str, first: tuple[int, str], path: Path) -> str:
    if fmt != "auto":
        if fmt not in FORMATS:
            raise ConfigError(f"unknown samples format {fmt!r}; use auto or one of {', '.join(FORMATS)}", field="format")
        return fmt
    number, line = first
    try:
        record = json.loads(line)
    except json.JSONDecodeError as error:
        raise ConfigError(f"not valid JSON ({error.msg}); cannot tell the samples format", path=str(path), line=number) from None
    if not isinstance(record, dict):
        raise ConfigError("each line must be a JSON object", path=str(path), line=number)
    return detect_format(record, path, number)


class _Import:
    """Accumulates candidates, rejections and per-task indexes while reading one file."""

    def __init__(self, path, tasks, fmt, spec, resolver, matcher):
        self.path, self.tasks, self.fmt, self.spec = path, tasks, fmt, spec
        self.resolver, self.matcher = resolver, matcher
        self.candidates: list[Candidate] = []
        self.rejected: list[dict] = []
        self.counts: Counter = Counter()
        self.matched_by: Counter = Counter()

    def add_line(self, number: int, line: str) -> None:
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            self.rejected.append({"line": number, "reason": f"not valid JSON ({error.msg}, column {error.colno})"})
            return
        if not isinstance(record, dict):
            self.rejected.append({"line": number, "reason": "not a JSON object"})
            return
        found = record_texts(self.fmt, record, self.resolver, self.matcher)
        if isinstance(found, str):
            self.rejected.append({"line": number, "reason": found, **_sample_count(record)})
            return
        if found.matched_by:
            self.matched_by[found.matched_by] += 1
        timing = record_timing(record, self.path, number) if len(found.texts) == 1 else {}
        for sample, raw in found.texts:
            self._add_text(number, sample, raw, found, source_verdict(record), timing)

    def _add_text(self, number: int, sample: int | None, raw, found: RecordTexts, verdict: dict | None,
                  timing: dict) -> None:
        where = {"line": number, "task_id": found.task_id, **({"sample": sample} if sample is not None else {})}
        if not isinstance(raw, str):
            self.rejected.append({**where, "reason": f"the completion is {type(raw).__name__}, not text"})
            return
        task = self.tasks[found.task_id]
        processed, program, style = _postprocess(raw, task, self.spec, found.prompt, DEFAULT_STYLE[self.fmt])
        ref = f"{self.path.name}:{number}" + (f"#{sample}" if sample is not None else "")
        self.candidates.append(Candidate(
            task_id=found.task_id,
            candidate_index=self.counts[found.task_id],
            raw_text=raw,
            processed_text=processed,
            program=program,
            program_sha256=hashlib.sha256(program.encode("utf-8")).hexdigest(),
            source="import",
            source_ref=ref,
            completion_style=style,
            source_verdict=verdict,
            **timing,               # latency only where the file records it, never estimated
        ))
        self.counts[found.task_id] += 1


def _sample_count(record: dict) -> dict:
    samples = record.get("samples")
    return {"samples": len(samples)} if isinstance(samples, list) else {}


def postprocess(raw: str, task: Task, spec: PostprocessSpec, prompt: str | None = None, *, default_style: str | None = None) -> tuple[str, str]:
    """(processed text, program) for one raw model text.

    `prompt` is the code prompt the text continues (default: the task's prompt; a CodeT record's own
    prompt). The program is `candidate_preamble + prompt + processed` for body style and
    `candidate_preamble + context + processed` for full style, the context being what
    `spec.prompt_context` takes of the prompt (nothing when the text repeats the prompt itself).
    A local edit (a task of completion style "infill") is always
    `candidate_preamble + prompt + processed + infill_suffix`, whatever `spec.style` says.
    """
    processed, program, _style = _postprocess(raw, task, spec, prompt, default_style)
    return processed, program


def _postprocess(raw: str, task: Task, spec: PostprocessSpec, prompt: str | None, default_style: str | None) -> tuple[str, str, str]:
    if task.completion_style == "infill":
        # a local edit: the text is the middle, placed between the code before and after the gap
        text = cut_at_stops(extract_fence(raw) if spec.extract_fence else raw, spec.stop)
        return text, task.candidate_preamble + task.prompt + text + task.infill_suffix, "infill"
    prompt = task.prompt if prompt is None else prompt
    text = extract_fence(raw) if spec.extract_fence else raw
    # Stops apply after the prompt: a full program that repeats the prompt is cut only past it.
    repeats_prompt = bool(prompt) and text.startswith(prompt)
    text = cut_at_stops(text, spec.stop, start=len(prompt) if repeats_prompt else 0)
    style = _style(spec.style, task, text, default_style, repeats_prompt)
    if style == "body":
        program = task.candidate_preamble + prompt + text
    else:
        context = "" if repeats_prompt else prompt_context(prompt, task.entry_point, spec.prompt_context)
        program = task.candidate_preamble + context + text
    return text, program, style


def prompt_context(prompt: str, entry_point: str, mode: str) -> str:
    """What of a code prompt goes before a full-function candidate: nothing, its imports, or its imports
    and every other definition but the entry point (what the model saw; what prompt + body gives).

    A prompt that is not Python (MBPP's text) gives nothing."""
    if mode == "none" or not prompt.strip():
        return ""
    try:
        tree = ast.parse(prompt)
    except SyntaxError:
        return ""
    keep = []
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            keep.append(node)
        elif mode == "preamble" and not _is_entry_or_text(node, entry_point):
            keep.append(node)
    parts = [ast.get_source_segment(prompt, node, padded=True) for node in keep]
    return "".join(part.rstrip("\n") + "\n" for part in parts if part) + ("\n" if parts else "")


def _is_entry_or_text(node: ast.stmt, entry_point: str) -> bool:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == entry_point:
        return True
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


def _style(requested: str, task: Task, text: str, default_style: str | None, repeats_prompt: bool) -> str:
    if requested in ("body", "full"):
        return requested
    if task.completion_style == "full" or repeats_prompt:
        return "full"
    if default_style in ("body", "full"):
        return default_style
    return "full" if defines_entry_point(text, task.entry_point) else "body"


def defines_entry_point(text: str, entry_point: str) -> bool:
    """True when `text` defines `entry_point` at top level (column 0)."""
    return re.search(rf"^(?:async[ \t]+)?def[ \t]+{re.escape(entry_point)}[ \t]*\(", text, re.MULTILINE) is not None


def cut_at_stops(text: str, stops: tuple[str, ...] | list[str], start: int = 0) -> str:
    """`text` up to the earliest occurrence (at or after `start`) of any stop string.

    Equivalent to CodeT's sequential `text.split(stop)[0]` for each stop in turn whenever no stop
    can straddle another's cut point, as for its stops ('\\nclass', '\\ndef', '\\n#', '\\nif', '\\nprint').
    """
    cut = len(text)
    for stop in stops:
        if stop:
            found = text.find(stop, start)
            if found != -1:
                cut = min(cut, found)
    return text[:cut]


_FENCE = re.compile(r"^[ \t]*```[ \t]*([\w+.-]*)[^\n]*\n(.*?)(?:^[ \t]*```|\Z)", re.DOTALL | re.MULTILINE)


def extract_fence(text: str) -> str:
    """The first ```python (or ```py / ```python3) block; else the first untagged block; else `text`."""
    untagged = None
    for match in _FENCE.finditer(text):
        tag, body = match.group(1).lower(), match.group(2)
        if tag in ("python", "py", "python3"):
            return body
        if not tag and untagged is None:
            untagged = body
    return text if untagged is None else untagged
