"""Report: pass@k with intervals per slice, public/protected gap, failure classes, timing, cost, exclusions."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Footer, Header, Static

from ..optional import optional
from .base import RecordScreen


class ReportScreen(RecordScreen):
    BINDINGS = [Binding("v", "verdict", "Verdict"), Binding("i", "inspect", "Failures"),
                Binding("b", "boundaries", "Boundaries"), Binding("e", "export", "Export")]

    def __init__(self, run_id: str):
        super().__init__()
        self.run_id = run_id

    def compose(self) -> ComposeResult:
        yield Header()
        yield VerticalScroll(Static("Building the report…", id="report-status"), id="report-body",
                             classes="report-body")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = f"report · {self.run_id}"
        build = optional("passgate.core.report", "build_report")
        if build is None:
            self.query_one("#report-status", Static).update(
                "The report is not available: passgate.core.report is not installed in this build.")
            return
        self.load("report", build, self.run_id)

    def show_report(self, report: dict) -> None:
        self.query_one("#report-status", Static).update(str(report)[:2000])

    def action_verdict(self) -> None:
        from .verdict import VerdictScreen
        self.app.push_screen(VerdictScreen(self.run_id))

    def action_inspect(self) -> None:
        from .inspector import InspectorScreen
        self.app.push_screen(InspectorScreen(self.run_id))

    def action_boundaries(self) -> None:
        from .boundaries import BoundaryScreen
        self.app.push_screen(BoundaryScreen(self.run_id))

    def action_export(self) -> None:
        self.notify("Export is not available yet.", severity="warning")
