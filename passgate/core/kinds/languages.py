"""Tasks in other languages: HumanEval-X in one language, MultiPL-E's HumanEval in its file's language.

Graded in the language's own pinned image by its own toolchain (core/languages).
"""

from __future__ import annotations

from passgate.core.tasks import languages

from .kind import Kind, Loaded, Source


def _loader(name: str):
    def load(src: Source) -> Loaded:
        return languages.load(name, src.path.resolve(), src.slice, src.language)
    return load


def _set_id(name: str):
    def set_id(path, tasks) -> str:
        return languages.set_id_of(name, tasks)
    return set_id


def _revision(path, sha256: str, notes: list[str]) -> str | None:
    return languages.revision_of(sha256)


KINDS = (
    Kind("humaneval-x", _loader("humaneval-x"), grader="language", language="required",
         set_id=_set_id("humaneval-x"), revision=_revision),
    Kind("multipl-e", _loader("multipl-e"), grader="language", language="optional",
         set_id=_set_id("multipl-e"), revision=_revision),
)
