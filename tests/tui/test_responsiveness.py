"""A run of 16,400 candidates must keep the console responsive.

A record of that size is written through the real Store (164 tasks x 100 candidates) and the
screens' queries read all of it (benchmarks/console_queries.py times them). The live screen is
driven by 16,400 progress reports posted from a thread as fast as the engine's callback could emit
them (a real run that size takes hours on this machine) while keys are pressed. What would make a
key wait is counted, not timed (a shared 2-core machine can stall any key for seconds): the reports
reach the screen throttled to a few hundred messages, none of them reads the record on the UI
thread, and keys open and close screens all the while. benchmarks/console_queries.py times the
queries themselves.
"""

from __future__ import annotations

import threading
import time

import pytest

from passgate.core.progress import Progress
from passgate.core.record.store import Store
from passgate.tui import records
from tests.tui.big_record import PER_TASK, RUN, TASKS, write_big_record
from tests.tui.conftest import screen_text, settle

SIZE = (120, 40)


@pytest.fixture(scope="module")
def big_db(tmp_path_factory):
    path = tmp_path_factory.mktemp("big") / "big.db"
    write_big_record(path)
    return path


async def key_latency(app, key: str, screen: str) -> float:
    """Seconds from a key press to the screen it opens (or returns to) being on top."""
    import asyncio
    start = time.perf_counter()
    app.simulate_key(key)
    while type(app.screen).__name__ != screen:
        if time.perf_counter() - start > 120:          # a hung console, not a slow machine
            raise AssertionError(f"{key} did not reach {screen} in 120 s")
        await asyncio.sleep(0.005)
    return time.perf_counter() - start


def test_the_screens_queries_read_the_whole_16400_candidate_record(big_db):
    """What each screen's query returns on the big record; their speed is measured by
    benchmarks/console_queries.py, side by side with a plain scan of the same rows."""
    store = Store(big_db)
    rows = records.run_rows(store)
    assert rows[0].total == TASKS * PER_TASK
    snap = records.live_snapshot(store, RUN)
    assert snap.decided == 12300 and len(snap.slices) == 2
    assert len(records.outcome_rows(store, RUN)) == 123 * 34
    assert len(records.outcome_rows(store, RUN, include_passed=True)) == 12300


async def test_keys_are_handled_while_the_engine_reports_16400_candidates(big_db):
    from passgate.tui.app import Launch, ThrottledSink, make_app
    from passgate.tui.messages import EngineProgress
    from passgate.tui.screens.live import LiveRunScreen
    seen: list = []
    app = make_app(big_db, workdir=big_db.parent, operator="rel-eng", poll_interval=0.5)
    ui_reads: list[str] = []                       # record reads on the UI thread (workers read in threads)
    open_store = app.open_store

    def counted_open_store():
        if threading.get_ident() == ui_thread:
            ui_reads.append(threading.current_thread().name)
        return open_store()
    app.open_store = counted_open_store
    ui_thread = threading.get_ident()              # run_test runs the app on this thread's event loop
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await settle(pilot)
        launch = Launch(token=99, kind="resume", target=RUN, run_id=RUN)
        app.launches[launch.token] = launch
        await app.push_screen(LiveRunScreen(launch=launch))
        await settle(pilot)
        total = TASKS * PER_TASK
        sink = ThrottledSink(lambda p: app.post_message(EngineProgress(launch.token, p)))
        finished = threading.Event()

        def engine():
            start = time.monotonic()
            for done in range(1, total + 1):
                sink(Progress(run_id=RUN, phase="grade", done=done, total=total, counts={"passed": done},
                              rate=done / max(time.monotonic() - start, 1e-6)))
                if done % 2000 == 0:
                    time.sleep(0.05)               # the real engine also waits on its sandboxes
            finished.set()

        flood = threading.Thread(target=engine)
        ui_reads.clear()
        flood.start()
        keys = 0
        while not finished.is_set() or keys < 5:   # keys open and close a screen while the engine reports
            await key_latency(app, "f1", "HelpScreen")
            await key_latency(app, "escape", "LiveRunScreen")
            keys += 1
        flood.join()
        await settle(pilot)
        posted = [m for m in seen if isinstance(m, EngineProgress)]
        # what a UI thread stuck behind the engine would do: handle thousands of reports, or read the
        # record for each; neither happens, whatever the machine's speed
        assert len(posted) < 200, f"{len(posted)} progress messages for {total} candidates: the sink must throttle"
        assert ui_reads == [], f"{len(ui_reads)} record reads on the UI thread while the engine reported"
        assert f"{total}/{total}" in screen_text(app)              # the last report always lands


async def test_the_failure_list_caps_what_it_draws(big_db):
    from passgate.tui.app import make_app
    from passgate.tui.screens.inspector import MAX_ROWS, InspectorScreen
    app = make_app(big_db, workdir=big_db.parent, operator="rel-eng", poll_interval=3600)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await app.push_screen(InspectorScreen(RUN))
        await settle(pilot)
        app.screen.query_one("#show").value = "all"
        await settle(pilot)
        table = app.screen.query_one("#failures")
        assert table.row_count == MAX_ROWS
        assert f"12300 candidates (showing {MAX_ROWS}; filter to narrow)" in screen_text(app)
