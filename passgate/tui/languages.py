"""What the console shows of a task in another language: its language, dataset and integrity (from
the task's tags), the lexer its code is shown with, and its header in place of Python setup code."""

from __future__ import annotations

import json
from typing import Mapping

from passgate.core.languages.names import title

# Pygments lexer names per registry key
LEXERS = {"js": "javascript", "ts": "typescript", "cpp": "cpp", "java": "java", "go": "go", "rs": "rust",
          "sh": "bash", "rb": "ruby", "php": "php", "pl": "perl", "r": "r", "rkt": "racket", "d": "d",
          "cs": "csharp", "scala": "scala"}


def _tags(task: Mapping) -> list[str]:
    try:
        tags = json.loads(task.get("tags_json") or "[]")
    except ValueError:
        return []
    return [t for t in tags if isinstance(t, str)]


def _tag(task: Mapping, prefix: str) -> str | None:
    return next((t[len(prefix):] for t in _tags(task) if t.startswith(prefix)), None)


def language_of(task: Mapping) -> str | None:
    """The task's language key (js, cpp, ...), or None for a Python task."""
    return _tag(task, "language:")


def lexer_of(task: Mapping) -> str:
    return LEXERS.get(language_of(task) or "", "python")


def describe(task: Mapping) -> str:
    """`JavaScript · humaneval-x · verdict outside the candidate's process` ("" for a Python task)."""
    lang = language_of(task)
    if lang is None:
        return ""
    where = {"outside": "verdict outside the candidate's process",
             "in_process": "verdict in-process (exit status)"}.get(_tag(task, "integrity:") or "", "")
    return " · ".join(x for x in (title(lang), _tag(task, "dataset:"), where) if x)


def program_text(task: Mapping, candidate: Mapping) -> str:
    """A language candidate as it runs: the prompt, then its completion."""
    return (task.get("prompt") or "") + (candidate.get("program") or "")
