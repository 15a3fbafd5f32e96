"""Snapshots of every screen at 80x24 and 120x40 on the fixed record (no clock, no randomness,
fixed paths); each shows pass@1 and the verdict where the screen has them.

Update only after looking at the report: `pytest tests/tui/test_snapshots.py --snapshot-update`.
"""

from __future__ import annotations

import pytest
from textual.widgets import DataTable, Input

from tests.tui.conftest import settle

SIZES = {"80x24": (80, 24), "120x40": (120, 40)}


@pytest.fixture(params=list(SIZES))
def size(request):
    return SIZES[request.param]


def test_runs(snap_compare, fixed_app, size):
    assert snap_compare(fixed_app, terminal_size=size, run_before=settle)


def test_runs_light_theme(snap_compare, fixed_app, size):
    fixed_app.theme = "textual-light"
    assert snap_compare(fixed_app, terminal_size=size, run_before=settle)


def test_wizard_boundary_step(snap_compare, fixed_app, size):
    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("n")
        wizard = pilot.app.screen
        wizard.query_one("#task-ids", Input).value = "HumanEval/0-4"
        while wizard.step != "b-holdout":
            await pilot.press("ctrl+n")
            await pilot.pause()
        await settle(pilot)               # the page keeps its focused field in view once laid out
    assert snap_compare(fixed_app, terminal_size=size, run_before=run_before)


def test_live_run(snap_compare, fixed_app, size):
    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("l")            # the interrupted run, followed through the record
        await settle(pilot)
    assert snap_compare(fixed_app, terminal_size=size, run_before=run_before)


def test_report(snap_compare, fixed_app, size):
    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("down", "enter")
        await settle(pilot)
    assert snap_compare(fixed_app, terminal_size=size, run_before=run_before)


def test_verdict(snap_compare, fixed_app, size):
    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("down", "v")
        await settle(pilot)
    assert snap_compare(fixed_app, terminal_size=size, run_before=run_before)


def test_inspector(snap_compare, fixed_app, size):
    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("down", "i")
        await settle(pilot)
        pilot.app.screen.query_one("#failures", DataTable).move_cursor(row=2)   # the timeout
        await settle(pilot)
    assert snap_compare(fixed_app, terminal_size=size, run_before=run_before)


def test_boundaries(snap_compare, fixed_app, size):
    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("down", "b")
        await settle(pilot)
        pilot.app.screen.query_one("#boundary-table", DataTable).move_cursor(row=5)
        await settle(pilot)
    assert snap_compare(fixed_app, terminal_size=size, run_before=run_before)


def test_signoff_dialog(snap_compare, fixed_app, size):
    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("down", "b")
        await settle(pilot)
        pilot.app.screen.query_one("#boundary-table", DataTable).move_cursor(row=5)
        await pilot.press("s")
        await pilot.pause()
        pilot.app.screen.query_one("#reviewer", Input).value = "sec-reviewer"     # typed: never pre-filled
        pilot.app.screen.query_one("#decision").focus()     # not an input: no blinking cursor in the picture
        await pilot.pause()
    assert snap_compare(fixed_app, terminal_size=size, run_before=run_before)


def test_compare(snap_compare, fixed_app, size):
    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("down", "c")
        await settle(pilot)
        await pilot.press("down", "enter")                # the picker: the baseline run
        await settle(pilot)
    assert snap_compare(fixed_app, terminal_size=size, run_before=run_before)


def test_help(snap_compare, fixed_app, size):
    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("f1")
        await pilot.pause()
    assert snap_compare(fixed_app, terminal_size=size, run_before=run_before)


def test_wizard_tasks_step(snap_compare, fixed_app, size):
    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("n")
        await pilot.pause()
        pilot.app.screen.query_one("#kind").focus()          # not an input: no blinking cursor in the picture
        await pilot.pause()
    assert snap_compare(fixed_app, terminal_size=size, run_before=run_before)


def test_baseline_picker(snap_compare, fixed_app, size):
    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("down", "v")
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
    assert snap_compare(fixed_app, terminal_size=size, run_before=run_before)


def test_rerun_confirmation(snap_compare, fixed_app, size):
    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("down", "i")
        await settle(pilot)
        await pilot.press("x")
        await pilot.pause()
    assert snap_compare(fixed_app, terminal_size=size, run_before=run_before)


# ---- a run with failures, a timeout, relaxations waiting for sign-off, and an altered record, at 80x24 ----
ALTERED_SCREENS = {            # key pressed on the altered run in the runs list, then what to do there
    "runs": (), "report": ("enter",), "verdict": ("v",), "failures": ("i",), "boundaries": ("b",),
    "live": ("l",), "compare": ("c", "down", "down", "enter"), "signoff": ("b", "s"), "verify": ("ctrl+p", *"verify", "enter"),
}


@pytest.mark.parametrize("screen", list(ALTERED_SCREENS))
def test_altered_run(snap_compare, fixed_app, screen):
    from tests.tui.fixture_db import ALTERED

    async def run_before(pilot):
        await settle(pilot)
        table = pilot.app.screen.query_one("#runs", DataTable)
        table.move_cursor(row=table.get_row_index(ALTERED))
        await settle(pilot)
        for key in ALTERED_SCREENS[screen]:
            await pilot.press(key)
            await settle(pilot, rounds=2)
        if screen == "signoff":
            pilot.app.screen.query_one("#decision").focus()     # not an input: no cursor in the picture
        await settle(pilot)
    assert snap_compare(fixed_app, terminal_size=(80, 24), run_before=run_before)
