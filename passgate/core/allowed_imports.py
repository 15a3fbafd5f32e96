"""The task contract's allowed imports: the words a manifest uses, one spelling, and what they allow.

A set's default comes from its kind (`kinds.default_imports`): the standard library for Python
public benchmarks, any module for a user's own tasks.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable

STDLIB = frozenset(sys.stdlib_module_names)
IMPORT_WORDS = ("stdlib", "any")
_MODULE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def imports_problem(values: Iterable) -> str | None:
    """Why a manifest's `allowed_imports` value is not one passgate accepts, or None."""
    values = list(values)
    if not values:
        return "name at least one module, or `stdlib`, or `any`"
    for v in values:
        if not isinstance(v, str):
            return f"expected module names, got {v!r}"
        if v not in IMPORT_WORDS and not _MODULE.match(v):
            hint = f" ({v.split('.')[0]}, not {v})" if "." in v and _MODULE.match(v.split(".")[0]) else \
                " (the name a program imports, not a distribution's name)"
            return f"{v!r} is not a top-level module name{hint}"
    if "any" in values and len(set(values)) > 1:
        return "`any` allows every module: it stands alone"
    return None


def normalize_imports(values: Iterable[str]) -> tuple[str, ...]:
    """One spelling of an allowed-imports value: `stdlib` first, then the module names sorted."""
    names = set(values)
    return tuple(w for w in IMPORT_WORDS if w in names) + tuple(sorted(names - set(IMPORT_WORDS)))


def imports_words(values: Iterable[str]) -> str:
    """`stdlib, numpy` / `any`: an allowed-imports value as the manifest writes it."""
    return ", ".join(normalize_imports(values)) or "nothing"


def allows(values: Iterable[str], top: str, stdlib: frozenset[str] = STDLIB) -> bool:
    values = set(values)
    return "any" in values or top in values or ("stdlib" in values and top in stdlib) or top == "__main__"
