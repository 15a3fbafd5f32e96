"""Local edits: a HumanEval infilling file; the model fills the gap between the code before and after it."""

from __future__ import annotations

from passgate.core.tasks import infilling

from .kind import Kind, Loaded, Source


def _load(src: Source) -> Loaded:
    return infilling.load(src.path, src.text, src.slice)      # slices per benchmark unless one is given


def _revision(path, sha256: str, notes: list[str]) -> str | None:
    return infilling.REVISION if sha256 in infilling.KNOWN_FILES else None


KIND = Kind("humaneval-infilling", _load, revision=_revision)
