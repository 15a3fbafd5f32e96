"""Text for the terminal: the width every command formats to, and wrapping that never splits a word.

The width is $COLUMNS when set, the terminal's when standard output is one, and 80 otherwise
(a CI log or a pipe), so a command reads the same in an 80-column terminal and in a log.
"""

from __future__ import annotations

import os
import shutil
import sys

from passgate.core.gate.render import wrap as _wrap

DEFAULT_WIDTH = 80


def terminal_width() -> int:
    """The width to format to: $COLUMNS, the terminal's width, or 80 when not a terminal."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    if sys.stdout.isatty():
        return shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns
    return DEFAULT_WIDTH


def wrap(text: str, indent: str = "", hang: str | None = None, width: int | None = None) -> str:
    """`text` wrapped between words to the terminal's width; continuation lines start with `hang`."""
    return _wrap(text, indent, hang, width or terminal_width())


def rich_console(**options):
    """A rich Console at the command's width (tables fold their words, never their figures)."""
    from rich.console import Console
    return Console(width=terminal_width(), **options)
