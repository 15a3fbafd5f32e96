"""Repository tasks: a snapshot, a patch to make, and the repository's own tests that judge it."""

from __future__ import annotations

from passgate.core.tasks import repo

from .kind import Kind, Loaded, Source


def _load(src: Source) -> Loaded:
    return repo.load(src.path, src.text, src.slice or "repo", src.exposure or "public")


KIND = Kind("repo", _load, grader="repository", public=False, in_wizard=False)
