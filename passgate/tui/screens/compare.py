"""Compare two runs: the paired pass@k difference per slice (`core.compare`, as `passgate compare`) and
the gate's alerts of the run against the other as a baseline."""

from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Footer, Header, Static

from passgate.core.errors import PassgateError

from ..optional import optional
from .base import RecordScreen
from .verdict import other_runs


def compare_runs(store, run_id: str, other: str) -> dict:
    """The report's paired comparison (other = baseline) and the gate's alerts of the run against it."""
    from passgate.core.score.compare import build_comparison
    out = {"comparison": build_comparison(store, other, run_id), "alerts": None, "alerts_error": ""}
    evaluate = optional("passgate.core.gate", "evaluate")
    if evaluate is None:
        out["alerts_error"] = "the gate is not installed in this build"
        return out
    try:
        out["alerts"] = evaluate(store, run_id, baseline=other).alerts
    except PassgateError as exc:            # e.g. the runs are not on the same tasks: shown, not hidden
        out["alerts_error"] = f"{exc.title}: {exc.message}"
    return out


def comparison(data: dict) -> Group:
    from passgate.tui.report_render import render_comparison
    parts: list = [render_comparison(data["comparison"]),
                   Text("\nAlerts (the gate: this run against the baseline)", style="bold underline")]
    if data["alerts"] is None:
        parts.append(Text(f"not available: {data['alerts_error']}", style="yellow"))
    else:
        for al in data["alerts"]:
            parts.append(Text.assemble(("RAISED " if al.raised else "ok     ", "bold red" if al.raised else "green"),
                                       (f"{al.name:<23}", "bold"), al.sentence))
    return Group(*parts)


class CompareScreen(RecordScreen):
    """One run against another (chosen with `a`)."""

    BINDINGS = [Binding("a", "baseline", "Other run")]

    def __init__(self, run_id: str, other: str | None = None):
        super().__init__()
        self.run_id, self.other = run_id, other

    def compose(self) -> ComposeResult:
        yield Header()
        yield VerticalScroll(Static("Choose the run to compare with (a).", id="compare-text"), classes="report-body")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = f"compare · {self.run_id}"
        self.check_record()
        if self.other:
            self.load("comparison", compare_runs, self.run_id, self.other)
        else:
            self.action_baseline()

    def action_baseline(self) -> None:
        self.load("others", other_runs, self.run_id)

    def show_others(self, runs: list[tuple[str, str]]) -> None:
        from .dialogs import PickRunScreen

        def picked(run_id: str | None) -> None:
            if run_id:
                self.other = run_id
                self.load("comparison", compare_runs, self.run_id, run_id)
        self.app.push_screen(PickRunScreen(f"Compare {self.run_id} with", runs), picked)

    def show_comparison(self, data: dict) -> None:
        self.query_one("#compare-text", Static).update(comparison(data))
