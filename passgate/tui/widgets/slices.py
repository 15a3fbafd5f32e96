"""One progress bar per slice, with its passed / failed / being re-run / not-counted tallies."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Label, ProgressBar, Static

from ..records import SliceProgress


class SliceRow(Horizontal):
    """A slice's name, bar and tallies; shows the latest tallies once its children exist."""

    def __init__(self, progress: SliceProgress):
        super().__init__(classes="slice-row")
        self.slice_name = progress.slice
        self.progress = progress
        self.ready = False

    def compose(self) -> ComposeResult:
        yield Label(self.slice_name, classes="slice-name")
        yield ProgressBar(total=None, show_eta=False, show_percentage=True, classes="slice-bar")
        yield Static("", classes="slice-counts")

    def on_mount(self) -> None:
        self.ready = True
        self._draw()

    def show(self, sp: SliceProgress) -> None:
        self.progress = sp
        if self.ready:
            self._draw()

    def _draw(self) -> None:
        sp = self.progress
        self.query_one(ProgressBar).update(total=sp.total or None, progress=sp.decided)
        self.query_one(".slice-counts", Static).update(
            f"{sp.decided}/{sp.total}  [green]✓ {sp.passed}[/green]  [red]✗ {sp.failed}[/red]"
            + (f"  [yellow]⟳ {sp.awaiting} re-running[/yellow]" if sp.awaiting else "")
            + (f"  [yellow]◌ {sp.excluded} not counted[/yellow]" if sp.excluded else ""))


class SliceBars(Vertical):
    """Bars for every slice of a run; rows are added as slices appear in the record."""

    def update_slices(self, slices: list[SliceProgress]) -> None:
        rows = {row.slice_name: row for row in self.query(SliceRow)}
        for sp in slices:
            row = rows.get(sp.slice)
            if row is None:
                self.mount(SliceRow(sp))
            else:
                row.show(sp)
