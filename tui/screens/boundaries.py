"""boundaries (in progress)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Footer, Header, Static

from .base import RecordScreen


class BoundaryScreen(RecordScreen):
    def __init__(self, run_id: str):
        super().__init__()
        self.run_id = run_id

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("not available yet")
        yield Footer()
