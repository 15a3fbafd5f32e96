"""Verdict: release consequence, execution path, risk, evidence quality, every reason; alerts against a baseline.

Everything shown comes from `core.gate.evaluate` (the same call as `passgate gate RUN --baseline B`).
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Footer, Header, Static

from passgate.core.record.queries.console import task_contents

from .. import records
from ..optional import optional
from ..report_layout import ByWidth
from ..styles import CONSEQUENCE_STYLE, LEVEL_STYLE, STATUS_STYLE
from ..words import NEED_KEYS, for_console
from .base import RecordScreen


def evaluate_run(store, run_id: str, baseline: str | None):
    from passgate.core.gate import evaluate
    return evaluate(store, run_id, baseline=baseline)


FINDINGS_SHOWN = 200
NO_BASELINE = "-"            # the picker's first choice: judge the run without a baseline


def run_label(r) -> str:
    return (f"{r.run_id}  {r.status:<11} {r.name}  {r.model}  pass@1 "
            + ("—" if r.pass_at_1 is None else f"{r.pass_at_1:.3f}"))


def other_runs(store, run_id: str) -> list[tuple[str, str]]:
    return [(r.run_id, run_label(r)) for r in records.run_rows(store) if r.run_id != run_id]


def baseline_runs(store, run_id: str) -> tuple[list[tuple[str, str]], int]:
    """The runs on the same task set as `run_id` (ids and contents), and how many others were left out."""
    from passgate.core.gate.gather import task_set_fingerprint
    rid = store.run(run_id)["run_id"]
    tasks: dict[str, list] = {}
    for t in task_contents(store):
        tasks.setdefault(t["run_id"], []).append(t)
    keys = {r: task_set_fingerprint(rows) for r, rows in tasks.items()}
    others = [r for r in records.run_rows(store) if r.run_id != rid]
    same = [(r.run_id, run_label(r)) for r in others if r.run_id in keys and keys[r.run_id] == keys.get(rid)]
    return same, len(others) - len(same)


def section(title: str) -> Text:
    return Text(f"\n{title}", style="bold underline")


def words_of(name: str) -> str:
    """A condition or alert name as words: `interval_width` → `interval width`."""
    return name.replace("_", " ")


def verdict_renderable(v) -> Group:
    """The whole verdict as rich renderables, in the order a release engineer reads it: an altered
    record first, then the reasons and what a release needs."""
    parts: list = [section("Reasons")] + [Text(f"• {for_console(r)}", style=_reason_style(r)) for r in v.reasons]
    parts += _needs(v) + _path(v)
    parts += [section(f"Risk: {v.risk}")] + [Text(f"• {r}") for r in v.risk_reasons]
    parts += _evidence(v) + _boundaries(v) + _alerts(v) + _contamination(v)
    return Group(*parts)


def _reason_style(reason: str) -> str:
    return "bold red" if reason.startswith("The record was altered") else ""


def _needs(v) -> list:
    if not v.needs:
        return []
    out: list = [section("To release, you need:")]
    for i, n in enumerate(v.needs, start=1):
        keys = NEED_KEYS.get(n.action, "").format(subject=n.subject)
        line = Text(f"{i}. ")
        if keys:
            line.append(f"[{keys}] ", style="bold cyan")
        line.append(n.what.replace(n.subject, words_of(n.subject), 1) if n.action == "evidence" else n.what)
        out.append(line)
    return out


def _path(v) -> list:
    def wide() -> Table:
        path = Table(box=None, show_header=True, header_style="bold", expand=True)
        path.add_column("step", width=11)
        path.add_column("used", ratio=1)
        path.add_column("relaxed", ratio=1)
        for s in v.path:
            path.add_row(Text(s.step, style="yellow" if s.relaxed else ""), s.used,
                         Text(", ".join(s.relaxations), style="yellow"))
        return path

    def narrow() -> Group:
        rows = []
        for s in v.path:
            rows.append(Text.assemble((f"{s.step}: ", "bold yellow" if s.relaxed else "bold"), s.used))
            if s.relaxations:
                rows.append(Text(f"  relaxed: {', '.join(s.relaxations)}", style="yellow"))
        return Group(*rows)
    return [section("Execution path (relaxed steps in yellow)"), ByWidth(wide, narrow)]


def _evidence(v) -> list:
    def wide() -> Table:
        ev = Table(box=None, show_header=True, header_style="bold", expand=True)
        ev.add_column("level", width=8)
        ev.add_column("condition", width=22, overflow="fold")
        for name, ratio in (("measured", 1), ("threshold", 1), ("why", 2)):
            ev.add_column(name, ratio=ratio, overflow="fold")
        for c in v.conditions:
            ev.add_row(Text(c.level, style=LEVEL_STYLE.get(c.level, "")), words_of(c.name), c.measured, c.threshold,
                       c.sentence)
        return ev

    def narrow() -> Group:
        rows = []
        for c in v.conditions:
            rows.append(Text.assemble((f"{c.level:<9}", LEVEL_STYLE.get(c.level, "")), (words_of(c.name), "bold"),
                                      f": {c.measured} (needs {c.threshold})"))
            rows.append(Text(f"  {c.sentence}", style="dim"))
        return Group(*rows)
    return [section(f"Evidence: {v.evidence}"), ByWidth(wide, narrow)]


def _boundaries(v) -> list:
    def wide() -> Table:
        bt = Table(box=None, show_header=True, header_style="bold", expand=True)
        for name in ("boundary", "secure", "policy", "used", "status"):
            bt.add_column(name, ratio=1, overflow="fold")
        for b in v.boundaries:
            bt.add_row(b.boundary, b.secure, b.policy, b.used or "?",
                       Text(b.status, style=STATUS_STYLE.get(b.status, "")))
        return bt

    def narrow() -> Group:
        return Group(*(Text.assemble((f"{b.boundary}: ", "bold"), (b.status, STATUS_STYLE.get(b.status, "")),
                                     f"; used {b.used or '?'}, policy {b.policy}, secure default {b.secure}")
                       for b in v.boundaries))
    why = [Text(f"  {b.boundary} is {b.used or b.effective}: {b.saw}", style="yellow")
           for b in v.boundaries if b.relaxed or b.status != "secure"]
    return [section("Boundaries (press b to review and sign off)"), ByWidth(wide, narrow)] + why


def _alerts(v) -> list:
    if not v.baseline:
        return [section("Alerts"), Text("No baseline chosen: press a to compare against a run on the same tasks.")]

    def wide() -> Table:
        at = Table(box=None, show_header=True, header_style="bold", expand=True)
        for name, width in (("", 7), ("alert", 22), ("run", 8), ("baseline", 8), ("cap", 8)):
            at.add_column(name, width=width)
        at.add_column("why", ratio=1)
        for a in v.alerts:
            at.add_row(_raised(a), words_of(a.name), _num(a.run), _num(a.baseline), a.cap, a.sentence)
        return at

    def narrow() -> Group:
        rows = []
        for a in v.alerts:
            rows.append(Text.assemble(_raised(a), " ", (words_of(a.name), "bold"),
                                      f": run {_num(a.run)}, baseline {_num(a.baseline)}; caps at {a.cap}"))
            rows.append(Text(f"  {a.sentence}", style="dim"))
        return Group(*rows)
    return [section(f"Alerts against baseline {v.baseline}"), ByWidth(wide, narrow)]


def _raised(a) -> Text:
    return Text("RAISED" if a.raised else "ok", style="bold red" if a.raised else "green")


def _contamination(v) -> list:
    c = v.contamination
    noun = "finding" if len(c.findings) == 1 else "findings"
    out: list = [section("Contamination"),
                 Text(f"{len(c.findings)} {noun}; corpus {c.corpus if c.corpus_checked else 'not given'}; "
                      f"reference reproduction {'checked' if c.references_checked else 'not checked'}"
                      + "".join(f"\n  note: {n}" for n in c.notes))]
    if not c.findings:
        return out
    shown = c.findings[:FINDINGS_SHOWN]

    def wide() -> Table:
        ft = Table(box=None, show_header=True, header_style="bold", expand=True)
        for name in ("task", "slice", "kind", "overlap"):
            ft.add_column(name, no_wrap=True)
        ft.add_column("detail", ratio=1)
        for f in shown:
            ft.add_row(f.task_id, f.slice, f.kind, f"{100 * f.fraction:.0f}% ({f.matched}/{f.compared})", f.detail)
        return ft

    def narrow() -> Group:
        return Group(*(Text.assemble((f"{f.task_id} ", "bold"), f"[{f.slice}] {f.kind.replace('_', ' ')}: "
                                     f"{100 * f.fraction:.0f}% ({f.matched}/{f.compared} n-grams). {f.detail}")
                       for f in shown))
    out.append(ByWidth(wide, narrow))
    if len(c.findings) > FINDINGS_SHOWN:
        out.append(Text(f"… {len(c.findings) - FINDINGS_SHOWN} more (passgate gate RUN --json lists every one)"))
    return out


def _num(x) -> str:
    return "—" if x is None else f"{x:.3f}"


def altered(v) -> bool:
    return any(c.name == "records_intact" and c.level == "invalid" for c in v.conditions)


def head_text(v) -> Text:
    s = v.score
    score = "pass@1 —" if s.pass_at_1 is None else (
        f"pass@1 {s.pass_at_1:.3f}" + (f" [{s.ci_low:.3f}, {s.ci_high:.3f}] at {s.level:.0%}" if s.ci_low is not None
                                       else ""))
    text = Text()
    if altered(v):
        text.append(" RECORD ALTERED ", style="bold reverse red")
        text.append("  ")
    text.append(f" {v.consequence.upper()} ", style=CONSEQUENCE_STYLE[v.consequence] + " reverse")
    text.append(f"  exit {v.exit_code}   risk ")
    text.append(v.risk, style=LEVEL_STYLE.get(v.risk, ""))
    text.append("   evidence ")
    text.append(v.evidence, style=LEVEL_STYLE.get(v.evidence, ""))
    text.append(f"   {score}   policy {v.policy['name']}   baseline {v.baseline or '—'}")
    return text


class VerdictScreen(RecordScreen):
    """The gate's verdict for one run, optionally against a baseline."""

    BINDINGS = [Binding("a", "baseline", "Baseline"), Binding("b", "boundaries", "Boundaries"),
                Binding("e", "export", "Export")]

    def __init__(self, run_id: str, baseline: str | None = None):
        super().__init__()
        self.run_id, self.baseline = run_id, baseline
        self.verdict = None

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("Judging the run…", id="verdict-head")
        yield VerticalScroll(Static("", id="verdict-text"), id="verdict-body")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = f"verdict · {self.run_id}"
        self.check_record()
        self.refresh_verdict()

    def on_screen_resume(self) -> None:
        if self.verdict is not None:
            self.refresh_verdict()          # a sign-off may have changed it

    def refresh_verdict(self) -> None:
        if optional("passgate.core.gate", "evaluate") is None:
            self.query_one("#verdict-head", Static).update("The verdict is not available: passgate.core.gate is "
                                                           "not installed in this build.")
            return
        self.load("verdict", evaluate_run, self.run_id, self.baseline)

    def show_verdict(self, v) -> None:
        self.verdict = v
        self.run_id = v.run_id
        self.query_one("#verdict-head", Static).update(head_text(v))
        self.query_one("#verdict-text", Static).update(verdict_renderable(v))

    def action_baseline(self) -> None:
        self.load("others", baseline_runs, self.run_id)

    def show_others(self, found: tuple[list[tuple[str, str]], int]) -> None:
        from .dialogs import PickRunScreen
        runs, skipped = found

        def picked(run_id: str | None) -> None:
            if run_id is None or run_id == (self.baseline or NO_BASELINE):
                return
            self.baseline = None if run_id == NO_BASELINE else run_id
            self.query_one("#verdict-head", Static).update(f"Comparing with {run_id}…" if self.baseline
                                                           else "Judging the run without a baseline…")
            self.refresh_verdict()
        note = (f"{skipped} other run{'s are' if skipped != 1 else ' is'} on another task set and cannot be a "
                "baseline." if skipped else "")
        choices = [(NO_BASELINE, "no baseline (judge the run alone)")] + runs
        self.app.push_screen(PickRunScreen("Baseline run (same task set)", choices, note=note,
                                           empty="No other run is on the same task set."), picked)

    def failed_verdict(self, error: Exception) -> bool:
        """A baseline the gate refuses is dropped, so the screen never reopens the same error."""
        from passgate.core.gate import BaselineMismatch
        if self.baseline is None:
            return False
        bad, self.baseline = self.baseline, None
        self.notify(f"Baseline {bad} dropped: {getattr(error, 'message', error)}", title="not a baseline",
                    severity="warning", timeout=10)
        if not isinstance(error, BaselineMismatch):
            self.app.show_error(error)
        self.refresh_verdict()
        return True

    def action_boundaries(self) -> None:
        from .boundaries import BoundaryScreen
        self.app.push_screen(BoundaryScreen(self.run_id))

    def action_export(self) -> None:
        if self.verdict is None:
            return
        from passgate.core.gate.render import render
        target = self.app.workdir / "exports" / f"{self.run_id}-verdict.txt"
        target.parent.mkdir(parents=True, exist_ok=True)
        Path(target).write_text(render(self.verdict))
        self.notify(f"Verdict written to {target}", title="exported")
