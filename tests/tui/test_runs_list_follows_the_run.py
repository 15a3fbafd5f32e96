"""The runs list keeps its cursor on the run (by id) while rows arrive, and keys act on that run
(issue 24, item 2): with a new run inserted above it, after a refresh that took longer than the
refresh interval, and after the run was hidden by a filter and shown again."""

from __future__ import annotations

import time

from textual.widgets import DataTable, Input

from passgate.core.record.store import Store
from tests.core import report_kit as kit
from tests.tui.conftest import screen_text, settle, wait_for
from tests.tui.fixture_db import BASELINE, INTERRUPTED, RUN

NEW = "r20261201-080000-newrun"        # newer than every fixed run: it arrives at the top of the list


def add_run(db, run_id: str = NEW) -> None:
    store = Store(db)
    kit.record(store, run_id, [kit.TaskSpec("Mbpp/2", "mbpp")], [kit.Cand("Mbpp/2", 0, "passed")])
    store.close()


def cursor_run(app) -> str:
    table = app.screen.query_one("#runs", DataTable)
    return table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value


async def test_a_slow_record_still_fills_the_list_and_new_rows_leave_the_cursor_on_its_run(fixed_db, monkeypatch):
    """Reading the record took longer than the refresh interval: each refresh cancelled the one still
    reading, so the list never filled (or froze on old rows while keys acted on them)."""
    from passgate.tui import records
    from passgate.tui.app import make_app
    real = records.run_rows

    def slow(store):
        time.sleep(2.5)                 # a busy machine judging large runs; the list refreshes every 2 s
        return real(store)
    monkeypatch.setattr(records, "run_rows", slow)
    app = make_app(fixed_db, workdir=".", operator="rel-eng", poll_interval=1.0)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert "Reading the record" in screen_text(app) and "No runs yet" not in screen_text(app)
        await wait_for(pilot, lambda: RUN in screen_text(app), 20, "the runs to be listed")
        table = app.screen.query_one("#runs", DataTable)
        table.move_cursor(row=table.get_row_index(RUN))
        await pilot.pause()
        add_run(fixed_db)
        await wait_for(pilot, lambda: NEW in screen_text(app), 20, "the new run to arrive")
        assert cursor_run(app) == RUN and table.get_row_index(NEW) == 0
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen.sub_title == f"report · {RUN}"


async def test_compare_and_enter_act_on_the_highlighted_run_after_rows_arrive(fixed_app, fixed_db):
    async with fixed_app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        table = fixed_app.screen.query_one("#runs", DataTable)
        table.move_cursor(row=table.get_row_index(BASELINE))
        await pilot.pause()
        add_run(fixed_db)
        fixed_app.screen.action_refresh()
        await settle(pilot)
        assert cursor_run(fixed_app) == BASELINE
        await pilot.press("c")
        await settle(pilot)
        assert fixed_app.screen_stack[-2].sub_title == f"compare · {BASELINE}"    # the picker is on top of it


async def test_a_run_found_by_the_search_keeps_the_cursor_when_the_search_is_cleared(fixed_app):
    async with fixed_app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        table = fixed_app.screen.query_one("#runs", DataTable)
        table.move_cursor(row=table.get_row_index(BASELINE))
        await pilot.pause()
        search = fixed_app.screen.query_one("#search", Input)
        search.value = "cccccc"                      # only the interrupted run is listed
        await pilot.pause()
        assert cursor_run(fixed_app) == INTERRUPTED
        search.value = ""
        await pilot.pause()
        assert cursor_run(fixed_app) == INTERRUPTED


async def test_a_move_still_queued_when_rows_arrive_stays_where_the_user_put_it(fixed_app, fixed_db):
    """The refresh's rows are shown before the table's RowHighlighted for a key just pressed reaches the
    screen: the refill keeps the run under the cursor, not the one highlighted before the key."""
    async with fixed_app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = fixed_app.screen
        table = screen.query_one("#runs", DataTable)
        table.move_cursor(row=table.get_row_index(BASELINE))
        await pilot.pause()
        add_run(fixed_db)
        from passgate.tui.screens.runs import load_runs
        store = Store(fixed_db)
        data = load_runs(store, dict(screen.marks))
        store.close()
        table.move_cursor(row=table.get_row_index(RUN))     # the key's move; its message is not handled yet
        screen.show_runs(data)                              # the refresh lands first
        assert cursor_run(fixed_app) == RUN and table.get_row_index(NEW) == 0
        await pilot.pause()
        assert cursor_run(fixed_app) == RUN
