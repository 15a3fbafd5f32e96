"""Functions from modules other engineers are still writing: found when present, None when absent."""

from __future__ import annotations

import importlib


def optional(module: str, name: str):
    """`module.name`, or None when `module` itself is not installed yet (other import errors raise)."""
    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name is not None and module.startswith(exc.name):
            return None
        raise
    return getattr(mod, name, None)
