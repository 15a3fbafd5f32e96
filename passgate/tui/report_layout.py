"""How report tables fit a width: figures never wrap, words wrap between words, and a table whose
words cannot fit whole gives way to a narrower layout of the same figures.

The terminal report, `passgate compare` and the console's report, verdict and compare screens
draw through these, so a table reads the same in an 80-column terminal and in the console.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from rich import box
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.table import Table

# columns that hold figures: never wrapped (a cut `455/4` would read as another number)
NUMERIC = {"k", "micro", "macro", "CI", "gap CI", "public", "protected", "gap", "tasks", "n < k",
           "n/task", "pass@k", "", "attempts", "total", "sandbox CPU-s", "difference", "SE", "baseline",
           "candidate", "change", "CPU-s", "CPU change", "ok", "bin (s)", "n", "c", "flaky", "timeouts", "CPU s",
           "counted", "#", "line", "cand", "depth", "fitted", "rate"}
# columns of sentences: they take the room the figures leave
PROSE = ("note", "reason", "classes", "saw", "why", "detail", "what", "meaning")


def table(title: str, *columns: str, numeric: set[str] | None = None, **options) -> Table:
    """A report table: figures whole, words wrapped between words, the title never squeezed."""
    figures = NUMERIC if numeric is None else numeric
    out = Table(title=title or None, title_justify="left", title_style="bold", box=box.SIMPLE_HEAD,
                pad_edge=False, min_width=cell_len(title) if title else None, **options)
    for col in columns:
        if col in figures or col.startswith("pass@"):
            out.add_column(col, no_wrap=True)
        else:
            out.add_column(col, overflow="fold", ratio=1 if col in PROSE else None)
    return out


def fits(console: Console, options: ConsoleOptions, renderable) -> bool:
    """Whether `renderable` at this width shows every word and figure whole: nothing cut with an
    ellipsis, nothing folded mid-word (its words are the words it shows when it has all the room)."""
    narrow = _words(console, options, renderable, options.max_width)
    return "…" not in narrow and narrow <= _words(console, options, renderable, 10_000)


def _words(console: Console, options: ConsoleOptions, renderable, width: int) -> set[str]:
    lines = console.render_lines(renderable, options.update(width=width, height=None), pad=False)
    return {word for line in lines for word in "".join(seg.text for seg in line).split()}


class ByWidth:
    """The first layout whose words fit whole at the width it is drawn at; the last one otherwise."""

    def __init__(self, *layouts: Callable[[], object]):
        self.layouts = layouts

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for build in self.layouts[:-1]:
            candidate = build()
            if fits(console, options, candidate):
                yield candidate
                return
        yield self.layouts[-1]()

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement.get(console, options, self.layouts[-1]())


_EIGHTHS = " ▏▎▍▌▋▊▉█"


def bar(value: float | None, width: int = 24) -> str:
    """A horizontal bar for a value in [0, 1], in eighths of a character."""
    if value is None:
        return ""
    cells = max(0.0, min(1.0, value)) * width
    full = int(cells)
    part = _EIGHTHS[int(round((cells - full) * 8))] if full < width else ""
    return ("█" * full + part.strip()).ljust(width)


_KEY_WORDS = {"floor_s": "floor (s)", "recheck_alone": "timeouts re-checked alone", "max_tokens": "max tokens",
              "n_per_task": "candidates per task", "top_p": "top-p"}


def setting_words(value: Any) -> str:
    """A setting as words: `key value` pairs for a mapping, items joined for a list; never JSON."""
    if isinstance(value, Mapping):
        return ", ".join(f"{_KEY_WORDS.get(k, str(k).replace('_', ' '))} {setting_words(v)}"
                         for k, v in sorted(value.items())) or "—"
    if isinstance(value, (list, tuple)):
        return ", ".join(setting_words(v) for v in value) or "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return "—" if value is None else str(value)
