"""Candidate post-processing for every language: cut a completion at its first stop token, or take
the code block out of a chat model's Markdown answer. Both are recorded options of a run."""

from __future__ import annotations

import re

_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*([^\n`]*)\n(.*?)^[ \t]*\1[ \t]*$", re.M | re.S)


def apply_stop_tokens(completion: str, stop_tokens: tuple[str, ...]) -> str:
    """The completion up to the earliest stop token (MultiPL-E's and HumanEval-X's truncation)."""
    cut = len(completion)
    for token in stop_tokens:
        at = completion.find(token)
        if 0 <= at < cut:
            cut = at
    return completion[:cut]


def fenced_code(answer: str, fence_tags: tuple[str, ...]) -> str | None:
    """The code of a Markdown answer: the first block tagged with the language (```cpp), else the
    first untagged block, else the first block of any tag; None when the answer has no block."""
    blocks = [(m.group(2).strip().lower(), m.group(3)) for m in _FENCE.finditer(answer)]
    if not blocks:
        return None
    tags = {t.lower() for t in fence_tags}
    for wanted in (lambda tag: tag.split()[0] in tags if tag else False, lambda tag: tag == "", lambda tag: True):
        for tag, code in blocks:
            if wanted(tag):
                return code
    return None


def postprocess(raw: str, *, stop_tokens: tuple[str, ...] = (), fence_tags: tuple[str, ...] = (),
                extract_fenced: bool = False) -> tuple[str, str]:
    """The processed completion and what was done to it, for the record."""
    notes = []
    text = raw
    if extract_fenced:
        code = fenced_code(raw, fence_tags)
        if code is None:
            notes.append("no fenced code block: the answer is used as it is")
        else:
            text = code
            notes.append("fenced code block extracted")
    if stop_tokens:
        cut = apply_stop_tokens(text, stop_tokens)
        if cut != text:
            notes.append(f"cut at a stop token after {len(cut)} characters")
        text = cut
    return text, "; ".join(notes)
