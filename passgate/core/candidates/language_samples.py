"""Candidates for tasks in other languages: samples files as HumanEval-X and MultiPL-E write them, the
post-processing each candidate gets, and the language images a manifest pins.

| format         | what it is                                                              | text          |
|----------------|-------------------------------------------------------------------------|---------------|
| `humaneval-x`  | JSON lines `{"task_id": "CPP/0", "generation": ...}` (CodeGeeX's output) | generation    |
| `human-eval`   | JSON lines `{"task_id": ..., "completion": ...}`                         | completion    |
| `multipl-e`    | MultiPL-E's completions: one JSON object per problem (`name`, `language`, `completions`, a list of texts or of `{"count", "text"}`), as a `.json`/`.json.gz` file, a directory of them, or JSON lines | every completion |

A candidate's program is its completion: the text that follows the task's prompt. Post-processing
(recorded per candidate) drops a repeated prompt, takes the fenced block of a chat answer when the
manifest asks (tagged with the language, else untagged, else any), keeps what follows the
function's signature when the text is the whole function, and cuts at the stop tokens.
"""

from __future__ import annotations

import dataclasses
import gzip
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from passgate.core.errors import ConfigError, DriftError
from passgate.core.languages.postprocess import apply_stop_tokens, fenced_code
from passgate.core.languages.registry import spec_for
from passgate.core.manifest import Manifest
from passgate.core.model import Candidate, PostprocessSpec, Task
from passgate.core.tasks.io import path_sha256
from passgate.core.tasks.languages import language_of_task

FORMATS = ("auto", "humaneval-x", "human-eval", "multipl-e")


@dataclass
class LanguageImport:
    candidates: list[Candidate]
    rejected: list[dict]
    sha256: str
    format: str
    notes: list[str] = field(default_factory=list)


# ---------------------------------------------------------------------------- images
def language_set_of(task_set) -> set[str]:
    return {lang for t in task_set.tasks if (lang := language_of_task(t))}


def pin_language_images(manifest: Manifest, languages: set[str], client, manifest_path) -> Manifest:
    """The manifest with each language's image id pinned; a missing image says how to build it."""
    import docker.errors
    pins = {}
    for language in sorted(languages):
        spec = spec_for(language)
        try:
            pins[language] = client.images.get(spec.toolchain.tag).id
        except docker.errors.ImageNotFound:
            raise ConfigError(f"the {spec.title} image {spec.toolchain.tag} is not built; run "
                              f"`passgate setup --manifest {manifest_path}` first", field="execution.language_images") \
                from None
    ex = dataclasses.replace(manifest.execution, language_images=pins)
    return dataclasses.replace(manifest, execution=ex)


def check_language_pins(manifest: Manifest, tasks: list[Task]) -> None:
    """Every language the tasks use has its image pinned (the digest itself is checked at run start)."""
    used = sorted({lang for t in tasks if (lang := language_of_task(t))})
    missing = [lang for lang in used if lang not in manifest.execution.language_images]
    if missing:
        raise DriftError(f"execution.language_images pins no image for {', '.join(missing)}; run `passgate freeze` "
                         "on the manifest")


# ---------------------------------------------------------------------------- post-processing
def language_program(raw: str, task: Task, spec: PostprocessSpec, prompt: str | None = None) -> tuple[str, str]:
    """(processed text, program) of one raw model text for a task in another language: the program is
    the completion itself (the grader adds the task's declaration and tests)."""
    processed, _notes = language_postprocess(raw, task, spec)
    return processed, processed


def language_postprocess(raw: str, task: Task, spec: PostprocessSpec) -> tuple[str, str]:
    """The completion a raw text gives for a task in another language, and what was done to it."""
    job = task.language
    language = spec_for(job.language)
    notes = []
    text = raw
    if task.prompt and text.startswith(task.prompt):
        text = text[len(task.prompt):]
        notes.append("the repeated prompt dropped")
    if spec.extract_fence:
        code = fenced_code(text, language.fence_tags)
        if code is None:
            notes.append("no fenced code block: the answer is used as it is")
        else:
            text = code
            notes.append("fenced code block extracted")
    if spec.style in ("auto", "full"):
        body = _after_signature(text, task.prompt)
        if body is not None:
            text = body
            notes.append("the whole function given: what follows its signature kept")
    stops = tuple(spec.stop) + (job.stop_tokens if spec.dataset_stop_tokens else ())
    if stops:
        cut = apply_stop_tokens(text, stops)
        if cut != text:
            notes.append(f"cut at a stop token after {len(cut)} characters")
        text = cut
    return text, "; ".join(notes)


def _after_signature(text: str, prompt: str) -> str | None:
    """When the text restates the prompt's last line (the function's signature), what follows it."""
    lines = [ln for ln in prompt.splitlines() if ln.strip()]
    if not lines:
        return None
    signature = " ".join(lines[-1].split())
    offset = 0
    for line in text.splitlines(keepends=True):
        offset += len(line)
        if " ".join(line.split()) == signature:
            return text[offset:]
    return None


# ---------------------------------------------------------------------------- samples files
def import_language_samples(path: str | Path, tasks: dict[str, Task], *, fmt: str, postprocess) -> LanguageImport:
    """Read a samples file (or MultiPL-E's directory) into candidates for `tasks` (task id -> Task)."""
    path = Path(path)
    if fmt not in FORMATS:
        raise ConfigError(f"samples format {fmt!r} does not apply to tasks in other languages; use one of "
                          f"{', '.join(FORMATS)}", field="format")
    spec = PostprocessSpec(stop=tuple(postprocess.stop), extract_fence=postprocess.extract_fence, style=postprocess.style,
                           dataset_stop_tokens=postprocess.dataset_stop_tokens)
    records = list(_records(path))
    if not records:
        raise ConfigError("the samples file has no records", path=str(path))
    fmt = _detect(records[0][1], path) if fmt == "auto" else fmt
    state = _Import(path, tasks, spec)
    for where, record in records:
        for task_id, texts in _texts(fmt, record, tasks, state, where):
            for sample, raw in texts:
                state.add(where, task_id, sample, raw)
    return LanguageImport(state.candidates, state.rejected, path_sha256(path), fmt)


def _records(path: Path):
    """(where, record) for every JSON object: JSON lines, one JSON document, or a directory of them."""
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.name.endswith((".json", ".json.gz", ".jsonl"))
                       and not p.name.endswith((".results.json", ".results.json.gz")))
        for p in files:
            yield from _records(p)
        return
    try:
        opener = gzip.open if path.name.endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8") as fh:
            text = fh.read()
    except FileNotFoundError:
        raise ConfigError("file not found", path=str(path)) from None
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read file ({exc})", path=str(path)) from None
    stripped = text.strip()
    if stripped.startswith("{") and "\n" in stripped:
        try:
            yield f"{path.name}", json.loads(stripped)
            return
        except json.JSONDecodeError:
            pass                                   # JSON lines
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"not valid JSON ({exc.msg})", path=str(path), line=number) from None
        yield f"{path.name}:{number}", record


def _detect(record, path: Path) -> str:
    if isinstance(record, dict) and "completions" in record and "name" in record:
        return "multipl-e"
    if isinstance(record, dict) and "task_id" in record and "generation" in record:
        return "humaneval-x"
    if isinstance(record, dict) and "task_id" in record and "completion" in record:
        return "human-eval"
    fields = ", ".join(sorted(record)) if isinstance(record, dict) else type(record).__name__
    raise ConfigError(f"cannot tell the samples format from the first record (fields: {fields}); expected "
                      "task_id+generation (HumanEval-X), task_id+completion or name+completions (MultiPL-E)",
                      path=str(path))


def _texts(fmt: str, record, tasks: dict[str, Task], state: "_Import", where: str):
    if not isinstance(record, dict):
        state.rejected.append({"line": where, "reason": "not a JSON object"})
        return
    if fmt == "multipl-e":
        task_id = _multipl_e_task(record, tasks)
        if task_id is None:
            state.rejected.append({"line": where, "reason": f"name {record.get('name')!r} "
                                   f"({record.get('language', 'no language')}) maps to no task in the task set"})
            return
        texts = []
        for completion in record.get("completions") or []:
            if isinstance(completion, dict):       # MultiPL-E's compact form: one text, its count
                texts += [completion.get("text")] * int(completion.get("count") or 1)
            else:
                texts.append(completion)
        yield task_id, list(enumerate(texts))
        return
    field_name = "generation" if fmt == "humaneval-x" else "completion"
    task_id = record.get("task_id")
    if task_id not in tasks:
        state.rejected.append({"line": where, "reason": f"task_id {task_id!r} is not in the task set"})
        return
    if field_name not in record:
        state.rejected.append({"line": where, "task_id": task_id, "reason": f"missing field `{field_name}`"})
        return
    yield task_id, [(None, record[field_name])]


def _multipl_e_task(record: dict, tasks: dict[str, Task]) -> str | None:
    name = record.get("name")
    if not isinstance(name, str):
        return None
    language = record.get("language")
    if language:
        try:
            language = spec_for(language).name
        except ConfigError:
            return None
        return f"{language}/{name}" if f"{language}/{name}" in tasks else None
    found = [tid for tid in tasks if tid.split("/", 1)[-1] == name]
    return found[0] if len(found) == 1 else None


class _Import:
    def __init__(self, path: Path, tasks: dict[str, Task], spec: PostprocessSpec):
        self.path, self.tasks, self.spec = path, tasks, spec
        self.candidates: list[Candidate] = []
        self.rejected: list[dict] = []
        self.counts: dict[str, int] = {}

    def add(self, where: str, task_id: str, sample: int | None, raw) -> None:
        if not isinstance(raw, str):
            self.rejected.append({"line": where, "task_id": task_id, "sample": sample,
                                  "reason": f"the completion is {type(raw).__name__}, not text"})
            return
        processed, notes = language_postprocess(raw, self.tasks[task_id], self.spec)
        index = self.counts.get(task_id, 0)
        self.counts[task_id] = index + 1
        self.candidates.append(Candidate(
            task_id=task_id, candidate_index=index, raw_text=raw, processed_text=processed, program=processed,
            program_sha256=hashlib.sha256(processed.encode("utf-8")).hexdigest(), source="import",
            source_ref=where + (f"#{sample}" if sample is not None else "") + (f" ({notes})" if notes else ""),
            completion_style="body"))
