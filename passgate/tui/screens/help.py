"""Help: the screens, their keys, and the headless command behind each action."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static

ANYWHERE = ("ctrl+p command palette (any run by its id; verify: recompute a run's hash chains) · f1 this help · "
            "z maximise the focused pane · ctrl+t light/dark theme · escape back · ctrl+q quit (a running run is "
            "cancelled first)")
KEYS = (  # screen, keys, headless equivalent
    ("Runs", "n new run · o open manifest · enter report · l live · v verdict · i failures · b boundaries · "
             "c compare · r resume · / search", "passgate run; passgate report"),
    ("New run", "ctrl+n next step · ctrl+b back a step · p at Review: gate the run under the offered policy it "
                "does better under · ctrl+l launch · escape discard (asks first)",
     "passgate freeze M -o F; passgate run F"),
    ("Live run", "c cancel (asks first; containers removed) · r resume · enter report · v verdict · "
                 "i failures · 1-9 the failures of a class",
     "passgate run --resume RUN"),
    ("Report", "v verdict · i failures · b boundaries · e export", "passgate report RUN"),
    ("Verdict", "a choose or clear the baseline (runs on the same task set) · b boundaries · e export",
     "passgate gate RUN --baseline B"),
    ("Failures", "1-9 one class, 0 every class · enter the whole candidate (enter again: the list) · c code, "
                 "s tests, o output, a attempts · x rerun candidate, t rerun task (each asks first) · / search",
     "passgate rerun RUN TASK [--candidate N]"),
    ("Boundaries", "s sign off (approve or refuse) the selected relaxation; it opens on the one waiting",
     "passgate signoff RUN --boundary B"),
    ("Compare", "a choose the other run", "passgate gate A --baseline B"),
)
NOTE = ("A run's record is append-only: a rerun adds attempts and never changes a decided outcome; a sign-off "
        "adds a row; a cancelled run resumes from the record.")


def screen_keys(screen) -> Table | None:
    """Every key the screen under the help answers, with what it does (its own and the app's)."""
    if screen is None:
        return None
    from textual.app import App
    from textual.screen import Screen
    name = type(screen).__name__.removesuffix("Screen")
    table = Table(title=f"Keys of this screen ({name})", title_justify="left", expand=True, show_header=True,
                  header_style="bold")
    table.add_column("key", width=14, style="bold cyan")
    table.add_column("does", ratio=1)
    seen = set()
    for key, active in screen.active_bindings.items():
        b = active.binding
        if not isinstance(active.node, (Screen, App)):     # a list's own cursor keys: the same everywhere
            continue
        what = b.description or b.action.replace("_", " ")
        if (what, b.action) in seen or b.action.startswith("pick_class") and key != "1":
            continue
        seen.add((what, b.action))
        label = "1-9, 0" if b.action.startswith("pick_class") else screen.app.get_key_display(b)
        table.add_row(label, what if not b.action.startswith("pick_class") else "list one class (0: every class)")
    return table


def help_table() -> Group:
    table = Table(expand=True, show_lines=True)
    table.add_column("screen", width=11, style="bold")
    table.add_column("keys", ratio=3)
    table.add_column("headless equivalent", ratio=2)
    for row in KEYS:
        table.add_row(*row)
    return Group(Text.assemble(("Anywhere: ", "bold"), ANYWHERE), table, Text(NOTE, style="italic"))


class HelpScreen(ModalScreen[None]):
    """The keys of the screen it was opened on, then every screen's keys and journeys."""

    BINDINGS = [Binding("escape,f1,q", "dismiss", "Close")]

    def __init__(self, under=None):
        super().__init__()
        self.under = under

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide"):
            yield Label("passgate console — help", classes="dialog-title")
            with VerticalScroll(id="help-body"):
                current = screen_keys(self.under)
                if current is not None:
                    yield Static(current)
                yield Static(help_table())
