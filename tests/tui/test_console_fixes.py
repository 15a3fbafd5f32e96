"""Pilot tests for what got in the way when the three users walked their journeys (issue 14), on the
fixed record plus a run on another task set. Each drives the real app by keys and reads the screen.
"""

from __future__ import annotations

import pytest
from textual.widgets import DataTable, Input, OptionList

from passgate.core.record.store import Store
from tests.core import report_kit as kit
from tests.tui.conftest import screen_text, settle, wait_for
from tests.tui.fixture_db import BASELINE, INTERRUPTED, RUN

SIZE = (120, 40)
SMALL = (80, 24)
OTHER = "r20261201-080000-mbppxx"       # a run on another task set: never a baseline of RUN


@pytest.fixture
def mixed_app(fixed_db):
    store = Store(fixed_db)
    kit.record(store, OTHER, [kit.TaskSpec("Mbpp/2", "mbpp"), kit.TaskSpec("Mbpp/3", "mbpp")],
               [kit.Cand("Mbpp/2", 0, "passed"), kit.Cand("Mbpp/3", 0, "passed")])
    store.close()
    from passgate.tui.app import make_app
    return make_app(fixed_db, workdir=".", operator="rel-eng", poll_interval=3600)


def select_run(app, run_id: str) -> None:
    table = app.screen.query_one("#runs", DataTable)
    table.move_cursor(row=table.get_row_index(run_id))


# ---- 1. the baseline picker ---------------------------------------------------------------------
async def test_the_baseline_picker_lists_only_runs_on_the_same_task_set(mixed_app):
    async with mixed_app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        select_run(mixed_app, RUN)
        await pilot.press("v")
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        options = mixed_app.screen.query_one("#runs", OptionList)
        ids = [options.get_option_at_index(i).id for i in range(options.option_count)]
        assert OTHER not in ids and BASELINE in ids and INTERRUPTED in ids
        assert "1 other run is on another task set" in screen_text(mixed_app)


async def test_a_bad_baseline_is_dropped_once_and_the_screen_can_be_left(mixed_app):
    from passgate.tui.screens.verdict import VerdictScreen
    async with mixed_app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await mixed_app.push_screen(VerdictScreen(RUN, baseline=OTHER))
        await settle(pilot, rounds=5)
        screen = mixed_app.screen
        assert isinstance(screen, VerdictScreen) and screen.baseline is None and screen.verdict is not None
        assert "baseline —" in screen_text(mixed_app)
        await pilot.press("escape")
        await settle(pilot)
        assert mixed_app.screen.__class__.__name__ == "RunsScreen"


async def test_a_chosen_baseline_can_be_cleared_from_the_picker(mixed_app):
    async with mixed_app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        select_run(mixed_app, RUN)
        await pilot.press("v")
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        options = mixed_app.screen.query_one("#runs", OptionList)
        ids = [options.get_option_at_index(i).id for i in range(options.option_count)]
        options.highlighted = ids.index(BASELINE)
        await pilot.press("enter")
        await settle(pilot, rounds=5)
        assert f"baseline {BASELINE}" in screen_text(mixed_app)
        await pilot.press("a")
        await settle(pilot)
        mixed_app.screen.query_one("#runs", OptionList).highlighted = 0      # no baseline
        await pilot.press("enter")
        await settle(pilot, rounds=5)
        assert "baseline —" in screen_text(mixed_app)
