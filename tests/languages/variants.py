"""Wrong variants of canonical solutions, per language, for the agreement table.

Generic ones apply to every task (an early exit 0, a fake "passed" line then exit 0, an
exception, a wrong-typed return, a correct answer that also prints); hand-written ones change
one expression of a chosen task (off by one, a wrong comparison). Each maps a task's canonical
solution to a candidate completion, or None when it does not apply to that task.
"""

from __future__ import annotations

from typing import Callable

Variant = Callable[[str, str], "str | None"]     # (task_id, canonical solution) -> completion


def _prefix(text: str) -> Variant:
    return lambda task_id, canonical: text + canonical


def _edit(edits: dict[str, tuple[str, str]]) -> Variant:
    def apply(task_id: str, canonical: str) -> str | None:
        if task_id not in edits:
            return None
        old, new = edits[task_id]
        if old not in canonical:
            raise ValueError(f"{task_id}: {old!r} not in the canonical solution")
        return canonical.replace(old, new, 1)
    return apply


JS = {
    "exit0_first": _prefix("  process.exit(0);\n"),
    "fake_pass_then_exit0": _prefix("  console.log('All tests passed'); process.exit(0);\n"),
    "throws": _prefix("  throw new Error('not implemented');\n"),
    "wrong_type_null": _prefix("  return null;\n"),
    "correct_but_prints": _prefix("  console.log('debug: called');\n"),
    "off_by_one": _edit({
        "JavaScript/13": ("return a;", "return a + 1;"),
        "JavaScript/55": ("return 1;", "return 2;"),
        "JavaScript/60": ("n * (n + 1) / 2", "n * (n - 1) / 2"),
        "JavaScript/0": ("distance < threshold", "distance <= threshold"),
        "JavaScript/24": ("i = n - 1", "i = n - 2"),
        "JavaScript/35": ("return", "return 1 +"),
    }),
}

BY_LANGUAGE = {"js": JS}
