"""Recorded text as a person reads it: no Python reprs, no internal keys, digests short.

Boundary checks, sandbox errors and run errors were recorded as the code saw them
(`drop ['ALL'] add ['SETUID']`, `('Connection aborted.', ConnectionRefusedError(111, ...))`);
`plain` turns such text into words for every screen and command, old records included.
"""

from __future__ import annotations

import re

# outcomes and failure classes whose names are not words
CLASS_WORDS = {
    "infra_error": "evaluator error",
    "excluded": "excluded",
    "generation_error": "generation error",
}
CLASS_MEANING = {
    "infra_error": "the evaluator failed after its retries: not counted against the model",
    "excluded": "never run (the reason is recorded): not counted",
    "flaky": "attempts disagreed: counted as a failure, never as a pass",
    "pending": "no outcome yet (the run has not finished)",
}

_DIGEST = re.compile(r"\b((?:sha256:)?[0-9a-f]{12})[0-9a-f]{52}\b")
_ERRNO_TUPLE = re.compile(r"\('([^'\"]+?)\.?',\s*\w+\((-?\d+),\s*'([^']+)'\)\)")
_ERRNO_CALL = re.compile(r"\b\w+(?:Error|Exception)\((-?\d+),\s*'([^']+)'\)")
_LIST = re.compile(r"\[((?:\s*'[^'\[\]]*'\s*,?)*)\]")
_QUOTED = re.compile(r"'([^'\s,\[\]()]+)'")
_FLAG = re.compile(r"\b([A-Za-z]\w*)=(True|False|None)\b")


def class_words(name: str | None) -> str:
    """A failure class or outcome as words (`infra_error` → `evaluator error`)."""
    if not name:
        return ""
    return CLASS_WORDS.get(name, name)


def short_digest(text: str) -> str:
    """sha256 digests (with or without their `sha256:`) cut to their first 12 hex digits, as Docker shows
    image ids; the full digest stays in the JSON report and the record."""
    return _DIGEST.sub(r"\1", text)


def plain(text: object) -> str:
    """Recorded text without Python reprs: lists as items, quotes off plain words, flags as yes/no."""
    out = short_digest(str(text if text is not None else ""))
    out = _ERRNO_TUPLE.sub(lambda m: f"{m.group(1)}: {m.group(3).lower()} (errno {m.group(2)})", out)
    out = _ERRNO_CALL.sub(lambda m: f"{m.group(2).lower()} (errno {m.group(1)})", out)
    out = _LIST.sub(_list_words, out)
    out = _QUOTED.sub(r"\1", out)
    return _FLAG.sub(lambda m: f"{m.group(1)} {_FLAGS[m.group(2)]}", out)


_FLAGS = {"True": "yes", "False": "no", "None": "none"}


def _list_words(m: re.Match) -> str:
    items = re.findall(r"'([^']*)'", m.group(1))
    return ", ".join(items) if items else "none"
