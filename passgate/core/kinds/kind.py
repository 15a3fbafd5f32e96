"""What a task kind is: the facts every part of passgate reads about it, and how it loads a file."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from passgate.core.model import Task

Loaded = tuple[list[Task], list[str]]          # the tasks, in file order, and notes on known quirks
Grader = Literal["python", "language", "repository"]


@dataclass(frozen=True)
class Source:
    """One task set as its manifest names it, with its file read (never executed)."""

    path: Path
    text: str
    slice: str | None
    split: str | None
    exposure: str | None
    language: str | None


@dataclass(frozen=True)
class Kind:
    """A kind of task set.

    `grader` names the pipeline that judges its candidates: `python` (a function in the Python
    sandbox), `language` (a program in its language's image, core/languages) or `repository` (a
    patch to a snapshot, judged by the repository's own tests). A `public` kind is a published
    benchmark: always exposed, never a holdout.
    """

    name: str
    load: Callable[[Source], Loaded]
    grader: Grader = "python"
    public: bool = True
    default_exposure: str = "public"               # for a kind that is not public
    default_split: str | None = None               # a kind with splits (MBPP) names its default one
    language: Literal["none", "optional", "required"] = "none"
    default_path: Callable[[], Path] | None = None  # a kind whose data ships with an installed package
    # a known file's release from its path and sha256 (a note when the file is not the one expected)
    revision: Callable[[Path, str, list[str]], str | None] | None = None
    set_id: Callable[[Path, list[Task]], str] | None = None     # a kind that names its sets itself
    in_wizard: bool = True                         # offered by the console's new-manifest wizard

    @property
    def exposures(self) -> tuple[str, ...]:
        return ("public",) if self.public else ("public", "holdout")

    @property
    def default_imports(self) -> tuple[str, ...]:
        """What a set of this kind may import when its manifest says nothing."""
        return ("stdlib",) if self.public and self.grader == "python" else ("any",)

    def id_for(self, split: str | None, path: Path, tasks: list[Task]) -> str:
        """The set's id: the kind, with a split other than its default, or the kind's own naming."""
        if self.set_id is not None:
            return self.set_id(path, tasks)
        if split is not None and split != self.default_split:
            return f"{self.name}-{split}"
        return self.name
