"""Runs: every run in the record with status, model, manifest id, pass@1 and verdict; filter and search."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import DataTable, Footer, Header, Input, Select, Static

from passgate.core.errors import PassgateError

from .. import records
from ..optional import optional
from ..records import RunRow
from .base import RecordScreen

STATUS_CHOICES = [("all statuses", "")] + [(s, s) for s in
                                            ("running", "completed", "interrupted", "cancelled", "failed", "refused")]
# the run id starts with its start time (rYYYYMMDD-HHMMSS-…), so no separate date column
# what a release engineer reads first comes first, so 80 columns keep pass@1, verdict and decided
COLUMNS = (("run", 23), ("status", 11), ("pass@1", 6), ("verdict", 7), ("decided", 9), ("name", 14),
           ("model", 14), ("manifest", 18))


def load_runs(store, known: dict[str, str]) -> tuple[list[RunRow], dict[str, str]]:
    """The runs, and the verdict of each completed run not in `known` (a verdict reads the whole run)."""
    rows = records.run_rows(store)
    evaluate = optional("passgate.core.gate", "evaluate")
    verdicts = dict(known)
    for r in rows:
        if evaluate is not None and r.status == "completed" and r.run_id not in verdicts:
            try:
                verdicts[r.run_id] = evaluate(store, r.run_id).consequence
            except PassgateError as exc:        # shown in the column; `v` on the run shows the sentence
                verdicts[r.run_id] = f"error: {exc.title}"
    return rows, verdicts


class RunsScreen(RecordScreen, inherit_bindings=False):
    """The home screen: pick a run, or start a new one."""

    AUTO_FOCUS = "#runs"

    BINDINGS = [
        Binding("n", "new_run", "New"),
        Binding("o", "open_manifest", "Open"),
        Binding("enter", "report", "Report"),
        Binding("l", "live", "Live"),
        Binding("v", "verdict", "Verdict"),
        Binding("i", "inspect", "Failures"),
        Binding("b", "boundaries", "Bounds"),
        Binding("c", "compare", "Compare"),
        Binding("r", "resume", "Resume"),
        Binding("slash", "search", "Search"),
        Binding("f5", "refresh", "Refresh", show=False),
        Binding("q", "app.quit", "Quit", show=False),
    ]

    def __init__(self):
        super().__init__()
        self.rows: list[RunRow] = []
        self.verdicts: dict[str, str] = {}

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="runs-filters"):
            yield Input(placeholder="search run, name, model, manifest, operator…", id="search")
            yield Select(STATUS_CHOICES, value="", allow_blank=False, id="status")
        table = DataTable(id="runs", cursor_type="row", zebra_stripes=True)
        for label, width in COLUMNS:
            table.add_column(label, width=width)
        yield table
        yield Static("", id="runs-summary")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = str(self.app.db_path)
        self.action_refresh()
        self.set_interval(max(2.0, self.app.poll_interval * 2), self.action_refresh)

    def on_screen_resume(self) -> None:
        self.verdicts = {}                  # a sign-off or a finished run may change a verdict
        self.action_refresh()

    def action_refresh(self) -> None:
        self.load("runs", load_runs, dict(self.verdicts))

    def show_runs(self, data: tuple[list[RunRow], dict[str, str]]) -> None:
        self.rows, self.verdicts = data
        self._fill()

    def _visible(self) -> list[RunRow]:
        text = self.query_one("#search", Input).value.strip()
        status = self.query_one("#status", Select).value
        return [r for r in self.rows if (not status or r.status == status) and (not text or r.matches(text)
                                                                                   or text in self.verdicts.get(r.run_id, ""))]

    def _fill(self) -> None:
        table = self.query_one("#runs", DataTable)
        selected = self.selected_run()
        table.clear()
        visible = self._visible()
        for r in visible:
            table.add_row(r.run_id, r.status, "—" if r.pass_at_1 is None else f"{r.pass_at_1:.3f}",
                          self.verdicts.get(r.run_id, "—"), f"{r.decided}/{r.total}", r.name, r.model, r.manifest_id,
                          key=r.run_id)
        if selected and selected in {r.run_id for r in visible}:
            table.move_cursor(row=table.get_row_index(selected))
        noun = "run" if len(self.rows) == 1 else "runs"
        shown = (f"{len(visible)} of {len(self.rows)} {noun}" if len(visible) != len(self.rows)
                 else f"{len(self.rows)} {noun}")
        self.query_one("#runs-summary", Static).update(
            f"{shown} in {self.app.db_path}" if self.rows else
            "No runs yet. Press n to build a manifest and launch a run, or o to open a manifest file.")

    @on(Input.Changed, "#search")
    @on(Select.Changed, "#status")
    def _filter(self) -> None:
        self._fill()

    @on(Input.Submitted, "#search")
    def _search_done(self) -> None:
        self.query_one("#runs", DataTable).focus()

    @on(DataTable.RowSelected, "#runs")
    def _open(self) -> None:
        self.action_report()

    def selected_run(self) -> str | None:
        table = self.query_one("#runs", DataTable)
        if not table.row_count:
            return None
        return table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value

    def _require_run(self) -> str | None:
        run_id = self.selected_run()
        if run_id is None:
            self.notify("Select a run first.", severity="warning")
        return run_id

    # ---- actions ----------------------------------------------------------------------
    def action_search(self) -> None:
        self.query_one("#search", Input).focus()

    def action_new_run(self) -> None:
        from .wizard import WizardScreen
        self.app.push_screen(WizardScreen())

    def action_open_manifest(self) -> None:
        from .dialogs import PathScreen
        from .wizard import WizardScreen

        def opened(path: str | None) -> None:
            if path:
                self.app.push_screen(WizardScreen(manifest_path=path))
        self.app.push_screen(PathScreen("Open a manifest", "Path of a manifest YAML file to review, freeze and launch:"),
                             opened)

    def action_report(self) -> None:
        if run_id := self._require_run():
            from .report import ReportScreen
            self.app.push_screen(ReportScreen(run_id))

    def action_live(self) -> None:
        if run_id := self._require_run():
            from .live import LiveRunScreen
            launch = self.app.launch_for(run_id)
            self.app.push_screen(LiveRunScreen(run_id=run_id, launch=launch))

    def action_verdict(self) -> None:
        if run_id := self._require_run():
            from .verdict import VerdictScreen
            self.app.push_screen(VerdictScreen(run_id))

    def action_inspect(self) -> None:
        if run_id := self._require_run():
            from .inspector import InspectorScreen
            self.app.push_screen(InspectorScreen(run_id))

    def action_boundaries(self) -> None:
        if run_id := self._require_run():
            from .boundaries import BoundaryScreen
            self.app.push_screen(BoundaryScreen(run_id))

    def action_compare(self) -> None:
        if run_id := self._require_run():
            from .compare import CompareScreen
            self.app.push_screen(CompareScreen(run_id))

    def action_resume(self) -> None:
        run_id = self._require_run()
        if run_id is None:
            return
        row = next(r for r in self.rows if r.run_id == run_id)
        if row.status not in records.RESUMABLE_STATUSES:
            self.notify(f"Run {run_id} is {row.status}; only an unfinished run resumes.", severity="warning")
            return
        if row.status in records.ACTIVE_STATUSES and self.app.launch_for(run_id) is None:
            from .dialogs import ConfirmScreen
            # the record says running, but not from this console: a crashed run, or another process's
            self.app.push_screen(ConfirmScreen(
                f"Run {run_id} is recorded as {row.status}",
                "Resume it only if no other passgate process is running it (a crashed run stays 'running'). "
                "Resume now?"), lambda yes: self._resume(run_id) if yes else None)
            return
        self._resume(run_id)

    def _resume(self, run_id: str) -> None:
        launch = self.app.launch("resume", run_id)
        if launch is not None:
            from .live import LiveRunScreen
            self.app.push_screen(LiveRunScreen(run_id=run_id, launch=launch))
