"""One progress bar per slice, with its passed / failed / not-counted tallies."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Label, ProgressBar, Static

from ..records import SliceProgress


class SliceRow(Horizontal):
    """A slice's name, bar and tallies."""

    def __init__(self, slice_name: str):
        super().__init__(classes="slice-row")
        self.slice_name = slice_name

    def compose(self) -> ComposeResult:
        yield Label(self.slice_name, classes="slice-name")
        yield ProgressBar(total=None, show_eta=False, show_percentage=True, classes="slice-bar")
        yield Static("", classes="slice-counts")

    def show(self, sp: SliceProgress) -> None:
        self.query_one(ProgressBar).update(total=sp.total or None, progress=sp.decided)
        self.query_one(".slice-counts", Static).update(
            f"{sp.decided}/{sp.total}  [green]✓ {sp.passed}[/green]  [red]✗ {sp.failed}[/red]"
            + (f"  [yellow]◌ {sp.excluded} not counted[/yellow]" if sp.excluded else ""))


class SliceBars(Vertical):
    """Bars for every slice of a run; rows are added as slices appear in the record."""

    def update_slices(self, slices: list[SliceProgress]) -> None:
        rows = {row.slice_name: row for row in self.query(SliceRow)}
        for sp in slices:
            row = rows.get(sp.slice)
            if row is None:
                row = SliceRow(sp.slice)
                self.mount(row)
                self.call_after_refresh(row.show, sp)
            else:
                row.show(sp)
