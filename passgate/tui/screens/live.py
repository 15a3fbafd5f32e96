"""Live run: per-slice progress, throughput, ETA, failure classes, recent failures, sandbox use; cancel, resume.

Two sources, both cheap: the engine's progress messages (phase, rate, ETA) when the run was
launched from this console, and a poll of the record every `poll_interval` seconds (slices,
classes, recent failures, resources), which also follows a run started by `passgate run`.
"""

from __future__ import annotations

import time

from rich.markup import escape
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Footer, Header, Label, ProgressBar, Static

from passgate.core.words import class_words, plain

from .. import records
from ..rate import RateMeter
from ..records import LiveSnapshot
from ..widgets.slices import SliceBars
from .base import RecordScreen

PHASES = {"preflight": "boundary self-probe and preflight", "calibrate": "self-check of reference solutions",
          "generate": "generating candidates", "grade": "grading", "recheck": "re-checking timeouts alone",
          "scan": "security scan of the programs", "finished": "finished"}
STALLED_S = 10.0                  # no candidate decided for this long: the line says so


def fmt_duration(seconds: float | None) -> str:
    if seconds is None:
        return "—"
    seconds = int(round(seconds))
    h, rem = divmod(seconds, 3600)
    m, s = divmod(rem, 60)
    return f"{h}h{m:02d}m" if h else (f"{m}m{s:02d}s" if m else f"{s}s")


def _display_table(table_id: str) -> DataTable:
    """A table that only shows: the keys belong to the screen (enter opens the report)."""
    table = DataTable(id=table_id, cursor_type="none", show_cursor=False)
    table.can_focus = False
    return table


class LiveRunScreen(RecordScreen):
    """Watch one run; launched here (`launch`) or elsewhere (`run_id`, followed through the record)."""

    BINDINGS = [
        Binding("c", "cancel_run", "Cancel run"),
        Binding("r", "resume", "Resume"),
        Binding("enter", "report", "Report"),
        Binding("v", "verdict", "Verdict"),
        Binding("i", "inspect", "Failures"),
        *(Binding(str(i), f"inspect_class({i})", f"class {i}", show=False) for i in range(1, 10)),
    ]

    def __init__(self, *, run_id: str | None = None, launch=None):
        super().__init__()
        self.run_id = run_id or (launch.run_id if launch else None)
        self.follows = launch.token if launch else None
        self.snapshot: LiveSnapshot | None = None
        self.meter = RateMeter()
        self.checked = False
        self.reading = False            # a poll is reading the record: the next one waits for it
        self.phase_seen = ""

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="live"):
            yield Static("starting…", id="live-status")
            with Horizontal(id="live-overall"):
                yield ProgressBar(total=None, show_eta=False, id="overall")
                yield Static("", id="live-rate")
            yield SliceBars(id="slices")
            with Horizontal(id="live-tables"):
                with Vertical(id="classes-pane"):
                    yield Label("By class (1-9: list)", classes="pane-title")
                    yield _display_table("classes")
                with Vertical(id="recent-pane"):
                    yield Label("Recent failures", classes="pane-title")
                    yield _display_table("recent")
            yield Static("", id="resources")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#classes", DataTable).add_columns("key", "class", "candidates")
        self.query_one("#recent", DataTable).add_columns("task", "#", "state", "class", "detail")
        launch = self._launch()
        if launch is not None and launch.last is not None:
            self.engine_progress(launch)
        self.poll()
        self.set_interval(self.app.poll_interval, self.poll)

    def _launch(self):
        return self.app.launches.get(self.follows) if self.follows else None

    def _engine_live(self) -> bool:
        launch = self._launch()
        return launch is not None and launch.active and (launch.last is None or launch.last.phase != "finished")

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        """Cancel only a run running in this console; resume only a run that stopped before the end."""
        if action == "cancel_run":
            return self._engine_live()
        if action == "resume":
            status = self.snapshot.status if self.snapshot else ""
            return not self._engine_live() and status in records.RESUMABLE_STATUSES \
                and status not in records.ACTIVE_STATUSES
        return True

    def poll(self) -> None:
        launch = self._launch()
        if self.run_id is None and launch is not None:
            self.run_id = launch.run_id
        if self.run_id and not self.reading:
            self.sub_title = f"live · {self.run_id}"
            self.reading = True         # a busy machine can take longer than the poll: never cancel a read
            self.load("snapshot", records.live_snapshot, self.run_id)
            if not self.checked:
                self.checked = True
                self.check_record()
        self._draw_rate()

    # ---- engine messages (from the app) -----------------------------------------------
    def engine_progress(self, launch) -> None:
        p = launch.last
        self.run_id = self.run_id or launch.run_id
        if p.total and p.phase != "calibrate":       # preflight and "finished" carry no counts: keep the last ones
            self.meter.add(time.monotonic(), p.done)
            self.query_one("#overall", ProgressBar).update(total=p.total, progress=p.done)
        self.query_one("#live-status", Static).update(
            f"[b]{self.run_id or ''}[/b]  {PHASES.get(p.phase, p.phase)}  {escape(p.message)}")
        self._draw_rate()
        if p.phase != self.phase_seen:          # what Cancel and Resume can do changes with the phase only
            self.phase_seen = p.phase
            self.refresh_bindings()

    def engine_done(self, launch) -> None:
        self.run_id = self.run_id or launch.run_id
        self.refresh_bindings()
        self.poll()

    def _phase(self) -> str:
        launch = self._launch()
        if launch is not None and launch.active and launch.last is not None:
            return launch.last.phase
        return ""

    def _draw_rate(self) -> None:
        """The rate line from the record and the clock, so it never stands still at a stale value."""
        snap, phase = self.snapshot, self._phase()
        if snap is None:
            if phase and self._launch().last.total:
                self.snapshot_pending_line()
            return
        now = time.monotonic()
        if phase == "calibrate":
            refs = self._launch().last.total
            self.query_one("#overall", ProgressBar).update(total=refs or None, progress=snap.selfcheck_done)
            self.query_one("#live-rate", Static).update(f"self-check {snap.selfcheck_done}/{refs} references")
            return
        done, total = snap.decided, snap.total
        launch = self._launch()
        if phase in ("grade", "recheck", "generate", "scan") and launch.last.total:
            done, total = launch.last.done, launch.last.total        # the engine is ahead of the last poll
        line = f"{done}/{total}"
        if phase == "recheck":
            line += f"  re-checking {total - done} timeout{'s' if total - done != 1 else ''} alone (no ETA)"
        elif snap.status in records.ACTIVE_STATUSES or self._engine_live():
            rate = self.meter.rate(now)
            line += f"  {rate:.1f}/s  ETA {fmt_duration(self.meter.eta(now, total - done))}" if rate else "  ETA —"
            idle = self.meter.idle(now)
            if idle >= STALLED_S and done < total:
                line += f"  (none decided for {fmt_duration(idle)}" + \
                        (f"; {snap.awaiting} being re-run)" if snap.awaiting else ")")
        self.query_one("#live-rate", Static).update(line)

    def snapshot_pending_line(self) -> None:
        p = self._launch().last
        self.query_one("#live-rate", Static).update(f"{p.done}/{p.total}")

    # ---- record polls -----------------------------------------------------------------
    def failed_snapshot(self, error: Exception) -> bool:
        self.reading = False
        return False

    def show_snapshot(self, snap: LiveSnapshot) -> None:
        self.reading = False
        status_changed = self.snapshot is None or self.snapshot.status != snap.status
        self.snapshot = snap
        self.meter.add(time.monotonic(), snap.decided)
        if not self._engine_live():
            self.query_one("#overall", ProgressBar).update(total=snap.total or None, progress=snap.decided)
            note = f"  [red]{escape(plain(snap.error))}[/red]" if snap.error else ""
            self.query_one("#live-status", Static).update(
                f"[b]{snap.run_id}[/b]  {escape(snap.name)}  {snap.status}{note}"
                + ("  — press enter for the report" if snap.status == "completed" else ""))
        self._draw_rate()
        self.query_one(SliceBars).update_slices(snap.slices)
        self._draw_classes(snap)
        self._draw_recent(snap)
        self.query_one("#resources", Static).update(resources_line(snap))
        if status_changed:
            self.refresh_bindings()

    def _draw_classes(self, snap: LiveSnapshot) -> None:
        classes = self.query_one("#classes", DataTable)
        classes.clear()
        for i, (name, n) in enumerate(snap.classes.items(), start=1):
            classes.add_row(str(i) if i < 10 else "", class_words(name), n)
        if snap.awaiting:
            classes.add_row("", Text("failed once, re-running", style="yellow"), snap.awaiting)

    def _draw_recent(self, snap: LiveSnapshot) -> None:
        recent = self.query_one("#recent", DataTable)
        recent.clear()
        for f in snap.recent:
            state = Text("re-running", style="yellow") if f["outcome"] == "awaiting" else class_words(f["outcome"])
            detail = (f["detail"] or f["reason"] or "").strip()
            recent.add_row(f["task_id"], f["candidate_index"], state, class_words(f["failure_class"]),
                           detail.splitlines()[-1] if detail else "",
                           key=f"{f['task_id']}|{f['candidate_index']}|{f['outcome']}")


    # ---- actions ----------------------------------------------------------------------
    def action_cancel_run(self) -> None:
        launch = self._launch()
        if launch is None or not launch.active:
            self.notify("Only a run launched and still running in this console can be cancelled here.",
                        severity="warning")
            return
        from .dialogs import ConfirmScreen

        def decided(yes: bool | None) -> None:
            if yes and launch.active:
                launch.cancel.set()
                self.query_one("#live-status", Static).update(
                    f"[b]{self.run_id or ''}[/b]  cancelling: removing containers…")
        self.app.push_screen(ConfirmScreen(
            f"Cancel run {self.run_id or ''}?",
            "Candidates in flight stop and the containers are removed. Everything decided so far stays in the "
            "record, and r (resume) continues the run later. Press y to cancel the run, escape to keep it running."),
            decided)

    def action_resume(self) -> None:
        launch = self._launch()
        if launch is not None and launch.active:
            self.notify("The run is still running.", severity="warning")
            return
        if self.run_id is None:
            return
        status = self.snapshot.status if self.snapshot else ""
        if status not in records.RESUMABLE_STATUSES:
            self.notify(f"Run {self.run_id} is {status}; nothing to resume.", severity="warning")
            return
        new = self.app.launch("resume", self.run_id)
        if new is not None:
            self.follows = new.token
            self.meter = RateMeter()
            self.refresh_bindings()

    def action_report(self) -> None:
        if self.run_id:
            from .report import ReportScreen
            self.app.push_screen(ReportScreen(self.run_id))

    def action_verdict(self) -> None:
        if self.run_id:
            from .verdict import VerdictScreen
            self.app.push_screen(VerdictScreen(self.run_id))

    def action_inspect(self) -> None:
        if self.run_id:
            from .inspector import InspectorScreen
            self.app.push_screen(InspectorScreen(self.run_id))

    def action_inspect_class(self, number: int) -> None:
        """1-9: the failures list of the n-th class in the table."""
        names = list(self.snapshot.classes) if self.snapshot else []
        if self.run_id and number <= len(names):
            from .inspector import InspectorScreen
            self.app.push_screen(InspectorScreen(self.run_id, failure_class=names[number - 1]))


def resources_line(snap: LiveSnapshot) -> str:
    r = snap.resources
    line = (f"sandbox: {r.get('executions') or 0} executions in {r.get('containers') or 0} containers · "
            f"CPU mean {r.get('mean_cpu_s') or 0:.3f} s, max {r.get('max_cpu_s') or 0:.3f} s · "
            f"wall mean {r.get('mean_wall_s') or 0:.3f} s")
    if r.get("max_rss_kb"):
        line += f" · peak memory {(r.get('max_rss_kb') or 0) / 1024:.1f} MiB"
    line += f" · output {(r.get('out_bytes') or 0) / 1024:.1f} KiB"
    if r.get("infra_attempts"):
        line += f" · {r['infra_attempts']} attempts lost to evaluator errors (retried, never counted)"
    return line
