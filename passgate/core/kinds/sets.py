"""Task sets: load a benchmark or a user's own tasks into a TaskSet identified by sha256 and revision.

The kind of a set (core/kinds) says how its file loads; docs/task-formats.md describes each one.

Loading never runs task code. Known defects found by the test suite are carried in TaskSet.notes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from pathlib import Path

from passgate.core import kinds
from passgate.core.errors import ConfigError
from passgate.core.model import Task, TaskSet

from passgate.core.tasks.io import file_sha256, read_text
from passgate.core.tasks.known_defects import notes_for

__all__ = ["load_task_set", "file_sha256"]


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
        kind: a registered kind (core/kinds).
        path: the data file; optional only for a kind whose data ships with a package (`humaneval`).
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
    spec = _kind(kind)
    _check_options(spec, split, exposure, language)
    path = _resolve_path(spec, path)
    sha256 = file_sha256(path)
    tasks, notes = spec.load(kinds.Source(path, read_text(path), slice, split, exposure, language))
    loaded_ids = {t.task_id for t in tasks}
    tasks = _select(tasks, task_ids, path)
    set_id = spec.id_for(split, path, tasks)
    revision = revision or (spec.revision and spec.revision(path, sha256, notes)) or f"sha256:{sha256[:12]}"
    notes.extend(notes_for(set_id, {t.task_id for t in tasks}))
    tasks = [dataclasses.replace(t, set_id=set_id, set_sha256=sha256, set_revision=revision) for t in tasks]
    return TaskSet(
        set_id=set_id, kind=kind, path=str(path), sha256=sha256, revision=revision,
        tasks=tuple(tasks), notes=tuple(_relevant(notes, loaded_ids, tasks)),
    )


def _kind(name: str) -> kinds.Kind:
    if not kinds.registered(name):
        raise ConfigError(f"unknown task set kind {name!r}; use one of {', '.join(kinds.names())}", field="kind")
    return kinds.get(name)


def _check_options(spec: kinds.Kind, split: str | None, exposure: str | None, language: str | None) -> None:
    """The options a kind does not take are errors, never silently ignored."""
    if split is not None and spec.default_split is None:
        raise ConfigError(f"`split` applies to MBPP task sets only, not {spec.name!r}", field="split")
    if language is not None and spec.language == "none":
        with_language = kinds.in_words(kinds.names(language=("optional", "required")))
        raise ConfigError(f"`language` applies to {with_language} task sets, not {spec.name!r}", field="language")
    if exposure is None or exposure in spec.exposures:
        return
    if spec.public:
        raise ConfigError(f"{spec.name!r} is a public benchmark: its exposure is always 'public', never {exposure!r}",
                          field="exposure")
    raise ConfigError(f"exposure must be one of {', '.join(spec.exposures)}", field="exposure")


def _resolve_path(spec: kinds.Kind, path: str | Path | None) -> Path:
    if path is not None:
        return Path(path)
    if spec.default_path is not None:
        return spec.default_path()
    raise ConfigError(f"a {spec.name!r} task set needs a path to its data file", field="path")


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


def _relevant(notes: list[str], loaded_ids: set[str], tasks: list[Task]) -> list[str]:
    """Notes on tasks left out by `task_ids` are dropped; notes on the file itself are kept."""
    left_out = loaded_ids - {t.task_id for t in tasks}
    return [note for note in notes if note.split(": ", 1)[0] not in left_out]
