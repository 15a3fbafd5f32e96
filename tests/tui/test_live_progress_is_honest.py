"""Live progress never misleads (issue 24, item 4): first-attempt failures waiting for their rerun are
counted and listed, re-checks of timeouts give no made-up ETA, the rate falls while nothing is
decided, the self-check counts from the record, and a finished run offers no Cancel or Resume."""

from __future__ import annotations

import threading

from textual.widgets import DataTable

from passgate.core.progress import Progress
from passgate.core.record.store import Store
from tests.tui.conftest import screen_text, settle
from tests.tui.fixture_db import INTERRUPTED, RUN

SIZE = (120, 40)


def select_run(app, run_id: str) -> None:
    table = app.screen.query_one("#runs", DataTable)
    table.move_cursor(row=table.get_row_index(run_id))


async def watch(app, pilot, progress: Progress | None = None):
    """The live screen of the interrupted run, as if this console were running it (with `progress`)."""
    from passgate.tui.app import Launch
    from passgate.tui.screens.live import LiveRunScreen
    launch = None
    if progress is not None:
        launch = Launch(7, "resume", INTERRUPTED, threading.Event(), run_id=INTERRUPTED, last=progress)
        app.launches[7] = launch
    await app.push_screen(LiveRunScreen(run_id=INTERRUPTED, launch=launch))
    await settle(pilot)
    return launch


async def test_a_failure_waiting_for_its_rerun_is_counted_and_listed(fixed_app):
    async with fixed_app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await watch(fixed_app, pilot)
        text = screen_text(fixed_app)
        assert "⟳ 1 re-running" in text                              # the mbpp slice's tally
        assert "failed once, re-running" in str(fixed_app.screen.query_one("#classes", DataTable).get_row_at(2)[1])
        recent = fixed_app.screen.query_one("#recent", DataTable)
        first = [str(c) for c in recent.get_row_at(0)]
        assert first[:3] == ["11", "0", "re-running"] and "IndexError" in first[4]


async def test_rechecking_timeouts_gives_no_made_up_eta(fixed_app):
    async with fixed_app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        launch = await watch(fixed_app, pilot, Progress(INTERRUPTED, "recheck", done=14, total=16, rate=11.8,
                                                        eta_s=1.0, message="re-running 2 timeouts alone"))
        fixed_app.screen.engine_progress(launch)
        await pilot.pause()
        text = screen_text(fixed_app)
        assert "14/16  re-checking 2 timeouts alone (no ETA)" in text and "ETA 1s" not in text
        launch.done = True


def test_the_rate_falls_while_nothing_is_decided():
    from passgate.tui.rate import RateMeter
    meter = RateMeter(window=30)
    for second in range(11):
        meter.add(float(second), second * 10)             # ten a second for ten seconds
    assert abs(meter.rate(10.0) - 10.0) < 0.01
    assert meter.rate(40.0) < 3.0 and meter.idle(40.0) == 30.0   # thirty seconds of reruns: it does not stand still
    assert meter.eta(40.0, 100) > meter.eta(10.0, 100)


async def test_the_self_check_counts_the_references_the_record_holds(fixed_app, fixed_db):
    store = Store(fixed_db)
    store.append("executions", [{"run_id": INTERRUPTED, "task_id": f"HumanEval/{i}", "candidate_index": -1,
                                 "attempt": 1, "purpose": "selfcheck", "status": "ok", "protected_status": "passed"}
                                for i in range(3)])
    store.close()
    async with fixed_app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        launch = await watch(fixed_app, pilot, Progress(INTERRUPTED, "calibrate", total=8,
                                                        message="self-check: 8 reference solutions"))
        fixed_app.screen.engine_progress(launch)
        fixed_app.screen.poll()
        await settle(pilot)
        assert "self-check 3/8 references" in screen_text(fixed_app)
        launch.done = True


async def test_a_finished_run_offers_neither_cancel_nor_resume(fixed_app):
    async with fixed_app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        select_run(fixed_app, RUN)
        await pilot.press("l")
        await settle(pilot)
        footer = screen_text(fixed_app).splitlines()[-1]
        assert "Report" in footer and "Cancel" not in footer and "Resume" not in footer
        await pilot.press("c", "r")
        await settle(pilot)
        assert fixed_app.screen.__class__.__name__ == "LiveRunScreen" and not fixed_app.launches


async def test_an_interrupted_run_offers_resume_but_not_cancel(fixed_app):
    async with fixed_app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await watch(fixed_app, pilot)
        footer = screen_text(fixed_app).splitlines()[-1]
        assert "Resume" in footer and "Cancel" not in footer
