"""Task kinds, registered once: the manifest, the loaders, the gate and the console read this registry.

A kind is a `Kind` (core/kinds/kind.py) declared in its own module; adding one is that module and
one line in `_BUILT_IN`.
"""

from __future__ import annotations

from collections.abc import Iterable

from passgate.core.allowed_imports import normalize_imports

from . import functions, infilling, languages, repo
from .kind import Grader, Kind, Loaded, Source

__all__ = ["Grader", "Kind", "Loaded", "Source", "default_imports", "effective_imports", "get", "in_words", "names",
           "register", "registered", "unregister"]

_BUILT_IN: tuple[Kind, ...] = (
    *functions.KINDS,
    infilling.KIND,
    *languages.KINDS,
    repo.KIND,
)
_REGISTRY: dict[str, Kind] = {k.name: k for k in _BUILT_IN}


def register(kind: Kind) -> Kind:
    """Add a kind; its name must be new."""
    if kind.name in _REGISTRY:
        raise ValueError(f"task kind {kind.name!r} is already registered")
    _REGISTRY[kind.name] = kind
    return kind


def unregister(name: str) -> None:
    """Remove a kind added with `register`; the built-in kinds stay."""
    if any(k.name == name for k in _BUILT_IN):
        raise ValueError(f"task kind {name!r} is built in")
    _REGISTRY.pop(name, None)


def in_words(names: tuple[str, ...]) -> str:
    """`a`, `a and b`, `a, b and c`: kind names as error messages write them."""
    return " and ".join(filter(None, [", ".join(names[:-1]), names[-1]])) if names else ""


def default_imports(name: str) -> tuple[str, ...]:
    """What a task set of this kind may import when its manifest says nothing (an unknown kind, as an
    old record may name: any module)."""
    return _REGISTRY[name].default_imports if name in _REGISTRY else ("any",)


def effective_imports(name: str, values: Iterable[str] | None) -> tuple[str, ...]:
    """The allowed imports in effect: the declared ones in one spelling, else the kind's default."""
    return normalize_imports(values) if values is not None else default_imports(name)


def registered(name: str) -> bool:
    return name in _REGISTRY


def get(name: str) -> Kind:
    """The kind named `name`; KeyError when none is registered (callers word the error)."""
    return _REGISTRY[name]


def names(*, public: bool | None = None, grader: str | None = None, in_wizard: bool | None = None,
          language: tuple[str, ...] | None = None) -> tuple[str, ...]:
    """Registered kind names in registration order, optionally only those with the given facts."""
    return tuple(k.name for k in _REGISTRY.values()
                 if (public is None or k.public == public) and (grader is None or k.grader == grader)
                 and (in_wizard is None or k.in_wizard == in_wizard) and (language is None or k.language in language))
