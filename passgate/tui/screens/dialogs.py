"""Modal dialogs; each dismisses a typed result."""

from __future__ import annotations

from dataclasses import dataclass

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, OptionList, RadioButton, RadioSet, Static
from textual.widgets.option_list import Option

from passgate.core.errors import PassgateError


class ErrorScreen(ModalScreen[None]):
    """An error as a title and a sentence the operator can act on."""

    BINDINGS = [Binding("escape,enter", "dismiss", "Close")]

    def __init__(self, title: str, message: str):
        super().__init__()
        self.error_title, self.error_message = title, message

    @classmethod
    def from_exception(cls, error: Exception) -> "ErrorScreen":
        """A title and a sentence: a library's error text (a docker tuple, a Python list) read as words."""
        from passgate.core.words import plain
        if isinstance(error, PassgateError):
            return cls(error.title, plain(error.message))
        return cls(type(error).__name__, plain(str(error)) or repr(error))

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog error"):
            yield Label(self.error_title, classes="dialog-title")
            yield Static(self.error_message, id="error-message", markup=False)
            yield Button("Close", id="close", variant="error")

    @on(Button.Pressed, "#close")
    def _close(self) -> None:
        self.dismiss(None)


class ConfirmScreen(ModalScreen[bool]):
    """A yes/no question; No has the focus, so enter never does the destructive thing by accident."""

    AUTO_FOCUS = "#no"
    BINDINGS = [Binding("escape,n", "no", "No"), Binding("y", "yes", "Yes")]

    def __init__(self, title: str, question: str):
        super().__init__()
        self.question_title, self.question = title, question

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.question_title, classes="dialog-title")
            yield Static(self.question, markup=False)
            with Horizontal(classes="dialog-buttons"):
                yield Button("Yes", id="yes", variant="warning")
                yield Button("No", id="no")

    @on(Button.Pressed, "#yes")
    def action_yes(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#no")
    def action_no(self) -> None:
        self.dismiss(False)


class PathScreen(ModalScreen[str | None]):
    """Ask for a file path (open a manifest, export a report)."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str, prompt: str, value: str = ""):
        super().__init__()
        self.path_title, self.prompt, self.value = title, prompt, value

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.path_title, classes="dialog-title")
            yield Static(self.prompt, markup=False)
            yield Input(self.value, id="path")
            with Horizontal(classes="dialog-buttons"):
                yield Button("OK", id="ok", variant="primary")
                yield Button("Cancel", id="cancel")

    @on(Input.Submitted)
    @on(Button.Pressed, "#ok")
    def _ok(self) -> None:
        value = self.query_one("#path", Input).value.strip()
        self.dismiss(value or None)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)


class PickRunScreen(ModalScreen[str | None]):
    """Choose a run (a baseline, or the other side of a comparison)."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str, runs: list[tuple[str, str]], *, note: str = "",
                 empty: str = "No other run in the record."):
        super().__init__()
        self.pick_title, self.runs, self.note, self.empty = title, runs, note, empty

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide"):
            yield Label(self.pick_title, classes="dialog-title")
            yield OptionList(*[Option(label, id=run_id) for run_id, label in self.runs], id="runs")
            if not any(run_id != "-" for run_id, _ in self.runs):
                yield Static(self.empty, id="pick-empty")
            if self.note:
                yield Static(self.note, classes="note", id="pick-note")

    @on(OptionList.OptionSelected)
    def _picked(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)


@dataclass(frozen=True)
class SignoffDecision:
    """What a reviewer decided on one relaxed boundary."""

    boundary: str
    decision: str                  # approve | refuse
    reviewer: str
    statement: str


class SignoffScreen(ModalScreen[SignoffDecision | None]):
    """Approve or refuse a relaxed boundary; a statement is required either way.

    The reviewer starts as the console's user only when that is not the run's operator (whose own
    sign-off never counts); a draft the record refuses comes back with what was typed and why."""

    AUTO_FOCUS = "#reviewer"        # not the dialog itself, which scrolls (and so takes the focus) on a short terminal
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, boundary: str, summary: str, operator: str, *, reviewer: str = "",
                 draft: SignoffDecision | None = None, error: str = "", key: str = ""):
        super().__init__()
        self.boundary, self.summary, self.operator = boundary, summary, operator
        self.key = key or boundary
        self.draft, self.error = draft, error
        same = " ".join(reviewer.split()).casefold() == " ".join(operator.split()).casefold()
        self.reviewer = "" if same else reviewer

    def compose(self) -> ComposeResult:
        d = self.draft
        with Vertical(classes="dialog wide"):
            yield Label(f"Sign off: {self.boundary}", classes="dialog-title")
            yield Static(self.summary, markup=False, id="signoff-summary")
            yield Label(f"Reviewer (not the run's operator, {self.operator})")
            yield Input(d.reviewer if d else self.reviewer, placeholder="your name", id="reviewer")
            with RadioSet(id="decision"):
                yield RadioButton("approve", id="approve", value=not d or d.decision == "approve")
                yield RadioButton("refuse", id="refuse", value=bool(d) and d.decision == "refuse")
            yield Static(self._terms("refuse" if d and d.decision == "refuse" else "approve"), id="signoff-terms",
                         markup=False)
            yield Label("Statement (why)")
            yield Input(d.statement if d else "", placeholder="what you checked and why you accept or refuse it",
                        id="statement")
            yield Static(self.error, id="signoff-error", classes="form-error", markup=False)
            with Horizontal(classes="dialog-buttons"):
                yield Button("Record", id="record", variant="primary")
                yield Button("Cancel", id="cancel")

    def _terms(self, decision: str) -> str:
        """What the decision records, in the words of that decision (a refusal approves nothing)."""
        if decision == "refuse":
            return f"Your refusal covers exactly: {self.key} (the run stays blocked on it)."
        return f"Your approval covers exactly: {self.key}."

    @on(RadioSet.Changed, "#decision")
    def _decision_changed(self, event: RadioSet.Changed) -> None:
        self.query_one("#signoff-terms", Static).update(self._terms(event.pressed.id or "approve"))

    @on(Button.Pressed, "#record")
    @on(Input.Submitted, "#statement")
    def _record(self) -> None:
        reviewer = self.query_one("#reviewer", Input).value.strip()
        statement = self.query_one("#statement", Input).value.strip()
        pressed = self.query_one("#decision", RadioSet).pressed_button
        error = self.query_one("#signoff-error", Static)
        if not reviewer or not statement:
            error.update("A reviewer name and a statement are required.")
            return
        if " ".join(reviewer.split()).casefold() == " ".join(self.operator.split()).casefold():
            error.update(f"{reviewer} is the run's operator: a sign-off needs a second person.")
            return
        self.dismiss(SignoffDecision(self.boundary, pressed.id if pressed else "approve", reviewer, statement))

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)


class VerifyScreen(ModalScreen[None]):
    """What `passgate verify` found for one run: intact, or every altered row in words."""

    BINDINGS = [Binding("escape,enter", "dismiss", "Close")]

    def __init__(self, check):
        super().__init__()
        self.check = check

    def compose(self) -> ComposeResult:
        c = self.check
        title = f"Record of {c.run_id}: intact" if c.intact else f"Record of {c.run_id}: ALTERED"
        body = ("Every chained row matches its hash; the manifest matches its id." if c.intact else
                "\n".join(f"• {p}" for p in c.problems))
        with Vertical(classes="dialog wide" + ("" if c.intact else " error")):
            yield Label(title, classes="dialog-title")
            yield Static(body, id="verify-result", markup=False)
            yield Static("\n".join(c.notes), classes="note", markup=False)
            yield Button("Close", id="close", variant="primary" if c.intact else "error")

    @on(Button.Pressed, "#close")
    def _close(self) -> None:
        self.dismiss(None)
