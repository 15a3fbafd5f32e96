"""Runs: every run in the record with status, pass@1, the verdict (or ALTERED), what it waits for and who ran it;
filter and search. The cursor stays on the same run when rows arrive."""

from __future__ import annotations

from rich.markup import escape
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import DataTable, Footer, Header, Input, Select, Static

from .. import records
from ..records import RunRow
from ..run_marks import RunMark, mark_runs
from .base import RecordScreen

STATUS_CHOICES = [("all statuses", "")] + [(s, s) for s in
                                            ("running", "completed", "interrupted", "cancelled", "failed", "refused")]
# the run id starts with its start time (rYYYYMMDD-HHMMSS-…, local), so no separate date column.
# What a release engineer and a reviewer read first comes first: 80 columns keep the status,
# pass@1, the verdict with what it waits for (or ALTERED), and who ran it.
COLUMNS = (("run", 23), ("status", 11), ("pass@1", 6), ("verdict", 17), ("operator", 10), ("decided", 11),
           ("name", 14), ("model", 14), ("manifest", 18))
MARK_STYLE = {"release": "green", "canary": "yellow", "blocked": "red"}


def load_runs(store, known: dict[str, RunMark]) -> tuple[list[RunRow], dict[str, RunMark]]:
    """The runs, and each one's mark (kept from `known` for runs that have not changed)."""
    rows = records.run_rows(store)
    return rows, mark_runs(store, rows, known)


def mark_text(mark: RunMark | None) -> Text:
    if mark is None:
        return Text("…")
    if mark.altered:
        return Text("ALTERED", style="bold red")
    return Text(mark.label, style=MARK_STYLE.get(mark.verdict, "") if not mark.waiting else "bold yellow")


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
        self.marks: dict[str, RunMark] = {}
        self.chosen: str | None = None          # the run the cursor is on: it stays on it when rows arrive
        self.reading = False                    # a refresh is reading the record
        self.loaded = False                     # the record has been read once: an empty list means no runs
        self.stale = False                      # something changed while it read: read again when it is done

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="runs-filters"):
            yield Input(placeholder="search run, name, model, manifest, operator…", id="search")
            yield Select(STATUS_CHOICES, value="", allow_blank=False, id="status")
        table = DataTable(id="runs", cursor_type="row", zebra_stripes=True)
        for label, width in COLUMNS:
            table.add_column(label, width=width)
        yield table
        yield Static("Reading the record…", id="runs-summary")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = str(self.app.db_path)
        self.action_refresh()
        self.set_interval(max(2.0, self.app.poll_interval * 2), self.action_refresh)

    def on_screen_resume(self) -> None:
        self.marks = {}                     # a record may have been altered since: judge every run again
        self.stale = self.reading
        self.action_refresh()

    def action_refresh(self) -> None:
        """Read the record again; a refresh never cancels one still reading (a slow record would never show)."""
        if self.reading:
            return
        self.reading, self.stale = True, False
        self.load("runs", load_runs, dict(self.marks))

    def show_runs(self, data: tuple[list[RunRow], dict[str, RunMark]]) -> None:
        self.reading, self.loaded = False, True
        self.rows, marks = data
        self.marks = {} if self.stale else marks
        self._fill()
        if self.stale:
            self.action_refresh()

    def failed_runs(self, error: Exception) -> bool:
        self.reading = False
        return False

    def _visible(self) -> list[RunRow]:
        text = self.query_one("#search", Input).value.strip()
        status = self.query_one("#status", Select).value
        return [r for r in self.rows if (not status or r.status == status) and (not text or r.matches(text)
                                                                                   or text in self._label(r))]

    def _label(self, row: RunRow) -> str:
        mark = self.marks.get(row.run_id)
        return mark.label if mark else ""

    def _fill(self) -> None:
        table = self.query_one("#runs", DataTable)
        visible = self._visible()
        # the cursor is the choice (a move whose RowHighlighted is still queued included); `chosen` keeps it
        # while no row is listed
        self.chosen = self.selected_run() or self.chosen
        with self.prevent(DataTable.RowHighlighted):        # a refill is not the user moving the cursor
            table.clear()
            for r in visible:
                table.add_row(r.run_id, r.status, "—" if r.pass_at_1 is None else f"{r.pass_at_1:.3f}",
                              mark_text(self.marks.get(r.run_id)), r.operator or "—", f"{r.decided}/{r.total}",
                              r.name, r.model, r.manifest_id, key=r.run_id)
            ids = [r.run_id for r in visible]
            if self.chosen in ids:
                table.move_cursor(row=ids.index(self.chosen))
            elif ids:                   # the run is filtered out: the one now highlighted is the choice
                self.chosen = ids[0]
        self._summarise(visible)

    def _summarise(self, visible: list[RunRow]) -> None:
        noun = "run" if len(self.rows) == 1 else "runs"
        shown = (f"{len(visible)} of {len(self.rows)} {noun}" if len(visible) != len(self.rows)
                 else f"{len(self.rows)} {noun}")
        altered = sum(bool(m.altered) for m in self.marks.values())
        waiting = sum(bool(m.waiting) and not m.altered for m in self.marks.values())
        notes = ([f"[b red]{altered} ALTERED[/]"] if altered else []) + \
                ([f"[b yellow]{waiting} waiting for a sign-off[/]"] if waiting else [])
        if not self.rows and not self.loaded:
            text = f"Reading the record {escape(str(self.app.db_path))}…"
        elif not self.rows:
            text = "No runs yet. Press n to build a manifest and launch a run, or o to open a manifest file."
        else:
            text = " · ".join([f"{shown} in {escape(str(self.app.db_path))}"] + notes) + self._about(visible)
        self.query_one("#runs-summary", Static).update(text)

    def _about(self, visible: list[RunRow]) -> str:
        """The highlighted run in a line: what the columns past the edge of a narrow terminal hold."""
        run_id = self.selected_run()
        row = next((r for r in visible if r.run_id == run_id), None)
        if row is None:
            return ""
        mark = self.marks.get(row.run_id)
        why = f"\n[b red]ALTERED: {escape(mark.altered)}[/]" if mark and mark.altered else ""
        return (f"\n[b]{row.run_id}[/b]: {row.status}, {row.decided}/{row.total} decided, operator "
                f"{escape(row.operator or '—')}, model {escape(row.model or '—')}, manifest {row.manifest_id}{why}")

    @on(DataTable.RowHighlighted, "#runs")
    def _moved(self, event: DataTable.RowHighlighted) -> None:
        self.chosen = event.row_key.value
        self._summarise(self._visible())

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

    def current_run(self) -> str | None:
        return self.selected_run()

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
