"""Command palette entries for the main actions (ctrl+p)."""

from __future__ import annotations

from typing import Iterable

from textual.app import SystemCommand
from textual.screen import Screen

# (title, help, screen action): shown when the current screen has the action
SCREEN_COMMANDS = (
    ("New run", "Build a manifest step by step, freeze it and launch it", "new_run"),
    ("Open manifest", "Review, freeze and launch an existing manifest file", "open_manifest"),
    ("Open report", "pass@k with intervals, gaps, failure classes, timing, cost, exclusions", "report"),
    ("Verdict", "Release consequence, risk, evidence and every reason", "verdict"),
    ("Watch run", "Live progress of the selected run", "live"),
    ("Inspect failures", "Failed candidates by class and slice; code, tests, output, attempts", "inspect"),
    ("Boundary review", "Every boundary against the secure default; sign off relaxations", "boundaries"),
    ("Compare runs", "Two runs side by side", "compare"),
    ("Resume run", "Continue an interrupted or cancelled run from its record", "resume"),
    ("Cancel run", "Stop the running run; its containers are removed", "cancel_run"),
    ("Export report", "Write the report for the release ticket", "export"),
    ("Choose baseline", "Alerts against another run", "baseline"),
    ("Rerun candidate", "Execute the selected candidate again in the pinned sandbox", "rerun_candidate"),
    ("Sign off relaxation", "Approve or refuse the selected relaxed boundary", "signoff"),
    ("Verify record", "Recompute the run's hash chains and name any altered row (passgate verify)", "verify"),
)


def console_commands(app, screen: Screen) -> Iterable[SystemCommand]:
    for title, help_text, action in SCREEN_COMMANDS:
        method = getattr(screen, f"action_{action}", None)
        if action == "verify" and method is not None and not screen.current_run():
            continue                        # nothing to verify: no run on this screen
        if method is not None:
            yield SystemCommand(title, help_text, method)
    yield from run_commands(app)
    yield SystemCommand("Help", "Screens, keys and the headless command behind each", app.action_help)
    yield SystemCommand("Light/dark theme", "Switch between the light and the dark theme", app.action_toggle_theme)


def run_commands(app) -> Iterable[SystemCommand]:
    """One entry per run in the runs list: the palette jumps to any run's report."""
    from .screens.report import ReportScreen
    from .screens.runs import RunsScreen
    home = next((s for s in app.screen_stack if isinstance(s, RunsScreen)), None)
    for row in (home.rows if home is not None else []):
        def open_report(run_id: str = row.run_id) -> None:
            app.push_screen(ReportScreen(run_id))
        pass_at_1 = "—" if row.pass_at_1 is None else f"{row.pass_at_1:.3f}"
        yield SystemCommand(f"Run {row.run_id} {row.name}", f"{row.status} · {row.model} · pass@1 {pass_at_1}",
                            open_report)
