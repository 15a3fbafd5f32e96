"""Compare two runs: pass@1 per slice side by side, and the gate's alerts of one against the other."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Footer, Header, Static

from passgate.core.errors import PassgateError

from .. import records
from ..optional import optional
from .base import RecordScreen
from .verdict import other_runs


def compare_runs(store, run_id: str, other: str) -> dict:
    a, b = store.run(run_id), store.run(other)
    out = {"a": a, "b": b, "scores_a": records.slice_scores(store, a["run_id"]),
           "scores_b": records.slice_scores(store, b["run_id"]), "alerts": None, "alerts_error": ""}
    evaluate = optional("passgate.core.gate", "evaluate")
    if evaluate is None:
        out["alerts_error"] = "the gate is not installed in this build"
        return out
    try:
        out["alerts"] = evaluate(store, a["run_id"], baseline=b["run_id"]).alerts
    except PassgateError as exc:            # e.g. the runs are not on the same tasks: shown, not hidden
        out["alerts_error"] = f"{exc.title}: {exc.message}"
    return out


def _p(x) -> str:
    return "—" if x is None else f"{x:.3f}"


def comparison(data: dict) -> Group:
    a, b = data["a"], data["b"]
    table = Table(box=None, show_header=True, header_style="bold", expand=True)
    table.add_column("slice", width=18)
    for label in (f"{a['run_id']} (run)", f"{b['run_id']} (baseline)"):
        table.add_column(label, width=30)
    table.add_column("change", width=10)
    for name in sorted(set(data["scores_a"]) | set(data["scores_b"]), key=lambda s: (s == "all", s)):
        sa, sb = data["scores_a"].get(name, {}), data["scores_b"].get(name, {})
        pa, pb = sa.get("pass_at_1"), sb.get("pass_at_1")
        change = Text("—") if pa is None or pb is None else Text(
            f"{pa - pb:+.3f}", style="green" if pa > pb else ("red" if pa < pb else ""))
        table.add_row(Text(name, style="bold" if name == "all" else ""),
                      f"{_p(pa)}  ({sa.get('passed', 0)}/{sa.get('counted', 0)} on {sa.get('tasks', 0)} tasks)",
                      f"{_p(pb)}  ({sb.get('passed', 0)}/{sb.get('counted', 0)} on {sb.get('tasks', 0)} tasks)",
                      change)
    head = Text.assemble(("run      ", "bold"), f"{a['run_id']}  {a['name']}  {a['model']}  {a['status']}\n",
                         ("baseline ", "bold"), f"{b['run_id']}  {b['name']}  {b['model']}  {b['status']}")
    parts: list = [head, Text("\npass@1 by slice", style="bold underline"), table,
                   Text("\nAlerts (the gate, run against baseline)", style="bold underline")]
    if data["alerts"] is None:
        parts.append(Text(f"not available: {data['alerts_error']}", style="yellow"))
    else:
        for al in data["alerts"]:
            parts.append(Text.assemble(("RAISED " if al.raised else "ok     ", "bold red" if al.raised else "green"),
                                       (f"{al.name:<22}", "bold"), al.sentence))
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
