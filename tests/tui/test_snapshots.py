"""Snapshots of each screen at 120x40 on the fixed record (no clock, no randomness, fixed paths).

Update only after looking at the report: `pytest tests/tui/test_snapshots.py --snapshot-update`.
"""

from __future__ import annotations

from textual.widgets import DataTable, Input

from tests.tui.conftest import settle

SIZE = (120, 40)


def test_runs(snap_compare, fixed_app):
    assert snap_compare(fixed_app, terminal_size=SIZE, run_before=settle)


def test_runs_light_theme(snap_compare, fixed_app):
    fixed_app.theme = "textual-light"
    assert snap_compare(fixed_app, terminal_size=SIZE, run_before=settle)


def test_wizard_boundary_step(snap_compare, fixed_app):
    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("n")
        wizard = pilot.app.screen
        wizard.query_one("#task-ids", Input).value = "HumanEval/0-4"
        while wizard.step != "b-holdout":
            await pilot.press("ctrl+n")
            await pilot.pause()
    assert snap_compare(fixed_app, terminal_size=SIZE, run_before=run_before)


def test_live_run(snap_compare, fixed_app):
    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("l")            # the interrupted run, followed through the record
        await settle(pilot)
    assert snap_compare(fixed_app, terminal_size=SIZE, run_before=run_before)


def test_report(snap_compare, fixed_app):
    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("down", "enter")
        await settle(pilot)
    assert snap_compare(fixed_app, terminal_size=SIZE, run_before=run_before)


def test_verdict(snap_compare, fixed_app):
    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("down", "v")
        await settle(pilot)
    assert snap_compare(fixed_app, terminal_size=SIZE, run_before=run_before)


def test_inspector(snap_compare, fixed_app):
    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("down", "i")
        await settle(pilot)
        pilot.app.screen.query_one("#failures", DataTable).move_cursor(row=2)   # the timeout
        await settle(pilot)
    assert snap_compare(fixed_app, terminal_size=SIZE, run_before=run_before)


def test_boundaries(snap_compare, fixed_app):
    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("down", "b")
        await settle(pilot)
        pilot.app.screen.query_one("#boundary-table", DataTable).move_cursor(row=5)
        await settle(pilot)
    assert snap_compare(fixed_app, terminal_size=SIZE, run_before=run_before)


def test_signoff_dialog(snap_compare, fixed_app):
    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("down", "b")
        await settle(pilot)
        pilot.app.screen.query_one("#boundary-table", DataTable).move_cursor(row=5)
        await pilot.press("s")
        await pilot.pause()
        pilot.app.screen.query_one("#reviewer", Input).value = "sec-reviewer"
        pilot.app.screen.query_one("#decision").focus()     # not an input: no blinking cursor in the picture
        await pilot.pause()
    assert snap_compare(fixed_app, terminal_size=SIZE, run_before=run_before)


def test_compare(snap_compare, fixed_app):
    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("down", "c")
        await settle(pilot)
        await pilot.press("down", "enter")
        await settle(pilot)
    assert snap_compare(fixed_app, terminal_size=SIZE, run_before=run_before)


def test_help(snap_compare, fixed_app):
    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("f1")
        await pilot.pause()
    assert snap_compare(fixed_app, terminal_size=SIZE, run_before=run_before)
