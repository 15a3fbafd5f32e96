"""The console shows how a verdict's assertions were decided: one line beside the verdict in the
inspector, and the per-slice table in the report; an older run says "not recorded", never zero."""

from __future__ import annotations

import re

import pytest

from passgate.core.record.store import Store
from tests.core.integrity_kit import record_integrity_run
from tests.tui.conftest import screen_text, settle, wait_for

SIZE = (120, 40)


@pytest.fixture
def integrity_app(tmp_path):
    store = Store(tmp_path / "integrity.db")
    record_integrity_run(store, "r-new")
    record_integrity_run(store, "r-old", protocol=2)
    store.close()
    from passgate.tui.app import make_app
    return make_app(tmp_path / "integrity.db", workdir=tmp_path, operator="rel-eng", poll_interval=3600)


async def open_candidate(pilot, run_id: str, task_id: str, index: int) -> str:
    """The inspector's line above the candidate's tabs, as words (the pane wraps it on screen)."""
    from textual.widgets import Static

    from passgate.tui.screens.inspector import InspectorScreen
    await pilot.app.push_screen(InspectorScreen(run_id, select=(task_id, index)))
    await wait_for(pilot, lambda: f"{task_id} #{index}" in screen_text(pilot.app), timeout=30,
                   what=f"{task_id} #{index} open in the inspector")
    return str(pilot.app.screen.query_one("#candidate-head", Static).content)


async def test_the_inspector_says_where_the_verdict_was_decided(integrity_app):
    async with integrity_app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        text = await open_candidate(pilot, "r-new", "S/0", 1)
        # the grading attempt decided the verdict; the rerun that decided 9 sites in the process did not
        verdict, decided = text.splitlines()[:2]
        assert "failed wrong_answer" in verdict
        assert decided == "decided: 3 outside · 1 with the expected value visible · 0 in the candidate's process"
        await pilot.app.pop_screen()
        text = await open_candidate(pilot, "r-new", "P/0", 1)
        assert "decided: no assertion recorded (the program did not reach its test)" in text


async def test_an_older_run_is_not_recorded_rather_than_zero(integrity_app):
    async with integrity_app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        text = await open_candidate(pilot, "r-old", "S/0", 1)
        assert "decided: not recorded under grading protocol 2" in text
        assert "0 outside" not in text and "{" not in text


async def test_the_report_screen_shows_the_per_slice_integrity_table(integrity_app):
    from passgate.tui.screens.report import ReportScreen
    async with integrity_app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.app.push_screen(ReportScreen("r-new"))
        await settle(pilot)
        body = pilot.app.screen.query_one("#report-body")
        for _ in range(40):                                  # page down until the table is on screen
            if "all slices" in screen_text(pilot.app):
                break
            body.scroll_page_down(animate=False)
            await pilot.pause()
        text = screen_text(pilot.app)
        assert "Verdict integrity" in text
        assert re.search(r"parsing\s+3\s+2\s+2\s+0\s+4\s+66\.7%\s+1", text)
        assert re.search(r"all slices\s+7\s+6\s+17\s+1\s+4\s+18\.2%\s+1", text)
        assert "integrity_json" not in text and "'outside'" not in text


def test_a_test_that_stopped_before_its_first_assertion_says_so_rather_than_zero():
    from passgate.tui.integrity import decided_line
    attempt = {"status": "ok", "purpose": "grade",
               "integrity_json": '{"outside": 0, "visible": 0, "in_process": 0, "control": "grader"}'}
    line = decided_line([attempt], 3)
    assert line == "decided: no assertion (the test stopped before its first one was decided)"
