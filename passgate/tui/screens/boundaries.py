"""Boundary review: every boundary against the secure default, relaxations with their justification and
sign-off, and the preflight and self-probe evidence the run recorded. `s` signs off (or refuses).

The sign-off goes through `passgate signoff` itself, so the console and the CLI apply one rule set
(the reviewer is not the operator; a relaxation beyond the policy cannot be approved).
"""

from __future__ import annotations

import subprocess
import sys

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import DataTable, Footer, Header, Static

from passgate.core.errors import PassgateError

from passgate.core.record.times import local_time

from ..optional import optional
from ..styles import STATUS_STYLE
from ..words import for_console
from .base import RecordScreen

SIGNABLE = ("unsigned", "signed", "refused")
REVIEW_FIRST = ("unsigned", "refused", "unjustified", "exceeds_policy", "unverified")


def first_to_review(states) -> str:
    """The boundary a reviewer came for: the first waiting for a decision, else the first relaxed one."""
    for wanted in (lambda s: s.status in REVIEW_FIRST, lambda s: s.relaxed):
        found = next((s.boundary for s in states if wanted(s)), None)
        if found:
            return found
    return states[0].boundary


def boundary_review(store, run_id: str) -> dict:
    from passgate.core.gate import gather_facts, policy_for
    from passgate.core.gate.relaxations import boundary_states
    policy = policy_for(store, run_id, None)
    facts = gather_facts(store, run_id, policy, check_contamination=False)
    return {"facts": facts, "states": boundary_states(facts, policy), "policy": policy.name}


def record_signoff(_store, db_path: str, run_id: str, boundary: str, reviewer: str, statement: str,
                   refuse: bool) -> str:
    """Run `passgate signoff`; its refusal (exit 2) becomes a PassgateError with its own sentence."""
    cmd = [sys.executable, "-m", "passgate.cli.main", "--db", db_path, "signoff", run_id, "--boundary", boundary,
           "--reviewer", reviewer, "--statement", statement] + (["--refuse"] if refuse else [])
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        message = done.stderr.strip().removeprefix("passgate: ")
        title, _, sentence = message.partition(": ")
        raise PassgateError(sentence or message, title=title or "sign-off refused")
    return done.stdout.strip()


class BoundaryScreen(RecordScreen):
    """Boundaries of one run, for a security reviewer."""

    BINDINGS = [Binding("s", "signoff", "Sign off"), Binding("f5", "refresh", "Refresh")]
    AUTO_FOCUS = "#boundary-table"

    def __init__(self, run_id: str):
        super().__init__()
        self.run_id = run_id
        self.review: dict | None = None
        self.draft = None              # (the decision being recorded, the dialog's summary)
        self.chosen: str | None = None  # the boundary under the cursor; it opens on the one waiting for review

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="boundary-head")
        yield DataTable(id="boundary-table", cursor_type="row")
        yield VerticalScroll(Static("", id="boundary-text"), Static("", id="evidence-text"), id="boundary-detail")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = f"boundaries · {self.run_id}"
        self.check_record()
        table = self.query_one("#boundary-table", DataTable)
        # the status first after the name: at 80 columns a reviewer sees what waits for them
        for label, width in (("boundary", 16), ("status", 14), ("used", 16), ("risk", 8), ("policy", 16),
                             ("secure default", 15), ("declared", 16)):
            table.add_column(label, width=width)
        self.action_refresh()

    def action_refresh(self) -> None:
        if optional("passgate.core.gate", "gather_facts") is None:
            self.query_one("#boundary-head", Static).update("Boundary review is not available: passgate.core.gate "
                                                            "is not installed in this build.")
            return
        self.load("review", boundary_review, self.run_id)

    def show_review(self, review: dict) -> None:
        self.review = review
        facts, states = review["facts"], review["states"]
        self.run_id = facts.run_id
        relaxed = [s for s in states if s.relaxed]
        self.query_one("#boundary-head", Static).update(
            f"run {facts.run_id}  operator {facts.operator or '?'}  policy {review['policy']}  "
            f"{len(relaxed)} relaxed boundar{'y' if len(relaxed) == 1 else 'ies'}; "
            f"{sum(s.status == 'unsigned' for s in states)} waiting for a sign-off")
        table = self.query_one("#boundary-table", DataTable)
        names = [s.boundary for s in states]
        keep = self.chosen if self.chosen in names else first_to_review(states)
        table.clear()
        for s in states:
            table.add_row(s.boundary, Text(s.status, style=STATUS_STYLE.get(s.status, "")), s.used or "?",
                          Text(s.risk, style="yellow" if s.relaxed else ""), s.policy, s.secure, s.declared or "—",
                          key=s.boundary)
        table.move_cursor(row=names.index(keep))
        self.chosen = keep
        self._show_detail()
        self.query_one("#evidence-text", Static).update(_evidence(facts))

    @on(DataTable.RowHighlighted, "#boundary-table")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.chosen = event.row_key.value
        self._show_detail()

    def selected(self):
        if not self.review:
            return None
        table = self.query_one("#boundary-table", DataTable)
        if not table.row_count:
            return None
        return next((s for s in self.review["states"] if s.boundary == self.chosen), None)

    def _show_detail(self) -> None:
        s = self.selected()
        if s is None:
            return
        lines = Text()
        lines.append(f"{s.boundary}: ", style="bold")
        lines.append(f"{for_console(s.sentence)}\n")
        if s.relaxed:
            lines.append("Justification", style="bold")
            lines.append(f" ({s.justified_by or 'none'}): {s.justification or '—'}\n")
            lines.append("Sign-off key: ", style="bold")
            lines.append(f"{s.key}\n")
            if s.signoff:
                lines.append("Latest decision: ", style="bold")
                lines.append(f"{s.signoff.decision} by {s.signoff.reviewer} at {local_time(s.signoff.at)}: "
                             f"\"{s.signoff.statement}\"\n")
            if s.status in SIGNABLE:
                lines.append("Press s to approve or refuse this relaxation.\n", style="italic")
        if s.note:
            lines.append(f"Note: {s.note}\n", style="yellow")
        self.query_one("#boundary-text", Static).update(lines)

    def action_signoff(self) -> None:
        s = self.selected()
        if s is None:
            return
        if s.status not in SIGNABLE:
            why = {"secure": "it is at the secure default: nothing to sign",
                   "exceeds_policy": "the policy does not allow it: a sign-off cannot approve it",
                   "unjustified": "it has no justification: the manifest must state one first",
                   "unverified": "the record does not show what the run used"}.get(s.status, s.status)
            self.notify(f"{s.boundary} cannot be signed: {why}.", severity="warning")
            return
        summary = f"{for_console(s.sentence)}\n\nJustification: {s.justification or '—'}"
        self._ask_signoff(s.boundary, summary)

    def _ask_signoff(self, boundary: str, summary: str, draft=None, error: str = "") -> None:
        from .dialogs import SignoffDecision, SignoffScreen
        operator = self.review["facts"].operator if self.review else self.app.operator

        def decided(d: SignoffDecision | None) -> None:
            if d is not None:
                self.draft = (d, summary)
                self.load("signoff", record_signoff, str(self.app.db_path), self.run_id, d.boundary, d.reviewer,
                          d.statement, d.decision == "refuse")
        key = next((s.key for s in self.review["states"] if s.boundary == boundary), boundary) if self.review \
            else boundary
        self.app.push_screen(SignoffScreen(boundary, summary, operator or "unknown", reviewer=self.app.operator,
                                           draft=draft, error=error, key=key), decided)

    def failed_signoff(self, error: Exception) -> bool:
        """The record refused the sign-off: the dialog comes back with what was typed and why."""
        if self.draft is None:
            return False
        d, summary = self.draft
        self._ask_signoff(d.boundary, summary, draft=d, error=getattr(error, "message", str(error)))
        return True

    def show_signoff(self, output: str) -> None:
        self.draft = None
        self.notify(output, title="sign-off recorded")
        self.action_refresh()


def _evidence(facts) -> Group:
    table = Table(box=None, show_header=True, header_style="bold", expand=True, title_justify="left",
                  title="Preflight (container configuration) and self-probe (inside the sandbox)")
    for name, width in (("source", 9), ("check", 26), ("", 4), ("boundary", 12)):
        table.add_column(name, width=width)
    table.add_column("saw", ratio=1)
    for c in facts.preflight + facts.probe:
        table.add_row(c.source, c.name, Text("ok" if c.ok else "FAIL", style="green" if c.ok else "bold red"),
                      c.boundary, c.saw)
    sc = facts.selfcheck or {}
    if sc.get("ran"):
        selfcheck = (f"Self-check: {sc.get('passed')}/{sc.get('references')} reference solutions pass their own "
                     f"protected tests" + (f"; failed: {', '.join(f['task_id'] for f in sc.get('failed', []))}"
                                           if sc.get("failed") else ""))
    else:
        selfcheck = f"Self-check: not run ({sc.get('reason', 'not recorded')})"
    if not facts.preflight and not facts.probe:
        return Group(Text("No preflight or self-probe evidence is recorded for this run.", style="bold red"),
                     Text(selfcheck))
    return Group(table, Text(""), Text(selfcheck))
