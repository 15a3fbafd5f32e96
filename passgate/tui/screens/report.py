"""Report: pass@k with intervals per slice, public/protected gap, failure classes, timing distribution,
cost, exclusions — `core.score.report.build_report` drawn by `tui/report_render.py` (as `passgate report RUN`).

`e` writes the report for the release ticket: Markdown and JSON (`core.export`), the same files as
`passgate report RUN --markdown F --json F`.
"""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Footer, Header, Static

from ..optional import optional
from .base import RecordScreen


def export_report(report: dict, directory: Path) -> list[Path]:
    from passgate.core.export.formats import to_json, to_markdown
    directory.mkdir(parents=True, exist_ok=True)
    run_id = report["run"]["run_id"]
    written = []
    for suffix, text in (("report.md", to_markdown(report)), ("report.json", to_json(report))):
        path = directory / f"{run_id}-{suffix}"
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


class ReportScreen(RecordScreen):
    """The report of one run."""

    BINDINGS = [Binding("v", "verdict", "Verdict"), Binding("i", "inspect", "Failures"),
                Binding("b", "boundaries", "Boundaries"), Binding("e", "export", "Export"),
                Binding("t", "tasks", "Per task")]

    def __init__(self, run_id: str):
        super().__init__()
        self.run_id = run_id
        self.report: dict | None = None
        self.with_tasks = False

    def compose(self) -> ComposeResult:
        yield Header()
        yield VerticalScroll(Static("Building the report (bootstrap intervals)…", id="report-text"),
                             id="report-body", classes="report-body")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = f"report · {self.run_id}"
        self.check_record()
        build = optional("passgate.core.score.report", "build_report")
        if build is None or optional("passgate.tui.report_render", "render_report") is None:
            self.query_one("#report-text", Static).update(
                "The report is not available: passgate.core.score.report or passgate.tui.report_render is not "
                "installed in this build.")
            return
        self.load("report", build, self.run_id)

    def show_report(self, report: dict) -> None:
        self.report = report
        self.run_id = report["run"]["run_id"]
        self._draw()

    def _draw(self) -> None:
        from passgate.tui.report_render import render_report
        self.query_one("#report-text", Static).update(render_report(self.report, tasks=self.with_tasks))

    def action_tasks(self) -> None:
        if self.report is not None:
            self.with_tasks = not self.with_tasks
            self._draw()

    def action_export(self) -> None:
        if self.report is None:
            self.notify("The report is not built yet.", severity="warning")
            return
        written = export_report(self.report, Path(self.app.workdir) / "exports")
        self.notify("Written for the release ticket: " + ", ".join(str(p) for p in written), title="exported")

    def action_verdict(self) -> None:
        from .verdict import VerdictScreen
        self.app.push_screen(VerdictScreen(self.run_id))

    def action_inspect(self) -> None:
        from .inspector import InspectorScreen
        self.app.push_screen(InspectorScreen(self.run_id))

    def action_boundaries(self) -> None:
        from .boundaries import BoundaryScreen
        self.app.push_screen(BoundaryScreen(self.run_id))
