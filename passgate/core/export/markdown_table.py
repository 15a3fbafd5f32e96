"""Markdown tables for every report section: one escaping rule for every cell."""

from __future__ import annotations

from typing import Any


def cell(x: Any, blank: str | None = None) -> str:
    """A value as one table cell: pipes escaped, lines joined; None or "" as `blank` when given."""
    text = blank if blank is not None and (x is None or x == "") else str(x)
    return text.replace("|", "\\|").replace("\n", " ")


def table(header: list[str], rows: list[list[Any]], blank: str | None = None) -> list[str]:
    """The table's lines, then an empty line."""
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(cell(c, blank) for c in row) + " |" for row in rows]
    return out + [""]
