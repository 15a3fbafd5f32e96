"""The security reviewer's journey at 80x24 (issue 24, item 7): who ran each run and what waits for a
sign-off in the runs list, Boundaries open on the relaxation to review, a refusal says what it refuses,
times are local and readable, the record can be verified from the console, and an altered record is
the first thing every screen says."""

from __future__ import annotations

import pytest
from textual.widgets import DataTable, RadioButton

from tests.tui.conftest import screen_text, settle
from tests.tui.fixture_db import ALTERED, RUN

SMALL = (80, 24)


def select_run(app, run_id: str) -> None:
    table = app.screen.query_one("#runs", DataTable)
    table.move_cursor(row=table.get_row_index(run_id))


def verdict_cell(app, run_id: str) -> str:
    table = app.screen.query_one("#runs", DataTable)
    return str(table.get_row(run_id)[3])


async def test_the_runs_list_names_the_operator_and_what_waits_for_a_sign_off(fixed_app):
    async with fixed_app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        text = screen_text(fixed_app)
        assert "operator" in text and "rel-eng" in text
        assert verdict_cell(fixed_app, RUN) == "blocked: sign-off"
        assert "2 waiting for a sign-off" in text


async def test_an_altered_record_is_marked_in_the_runs_list(fixed_app):
    async with fixed_app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        assert verdict_cell(fixed_app, ALTERED) == "ALTERED"
        assert "1 ALTERED" in screen_text(fixed_app)


async def test_boundaries_open_on_the_relaxation_waiting_for_a_sign_off(fixed_app):
    async with fixed_app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        select_run(fixed_app, RUN)
        await pilot.press("b")
        await settle(pilot)
        screen = fixed_app.screen
        assert screen.selected().boundary == "rerun_stability"       # unsigned; holdout is signed
        assert "Press s to approve or refuse" in screen_text(fixed_app)


async def test_a_sign_off_shows_its_time_local_and_readable(fixed_app):
    async with fixed_app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        select_run(fixed_app, RUN)
        await pilot.press("b")
        await settle(pilot)
        table = fixed_app.screen.query_one("#boundary-table", DataTable)
        table.move_cursor(row=table.get_row_index("holdout"))
        await pilot.pause()
        text = screen_text(fixed_app)
        assert "approved by sec-reviewer at 2026-11-30 09:30 UTC" in text
        assert "2026-11-30T09:30" not in text


async def test_a_refusal_says_what_it_refuses_and_never_that_it_approves(fixed_app):
    async with fixed_app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        select_run(fixed_app, RUN)
        await pilot.press("b")
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        assert "Your approval covers exactly: rerun_stability=not-required" in screen_text(fixed_app)
        fixed_app.screen.query_one("#refuse", RadioButton).value = True
        await pilot.pause()
        text = screen_text(fixed_app)
        assert "Your refusal covers exactly: rerun_stability=not-required" in text
        assert "Approves exactly" not in text and "approval covers" not in text


async def test_the_palette_verifies_the_highlighted_run(fixed_app):
    async with fixed_app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        select_run(fixed_app, ALTERED)
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"verify")
        await settle(pilot)
        assert "Verify record" in screen_text(fixed_app)
        await pilot.press("enter")
        await settle(pilot)
        text = screen_text(fixed_app)
        assert f"Record of {ALTERED}: ALTERED" in text
        assert "outcomes row" in text and "(task HumanEval/1, candidate 0)" in text


@pytest.mark.parametrize("key", ["enter", "v", "i", "b", "l"])
async def test_every_screen_of_an_altered_run_says_so_first(fixed_app, key):
    async with fixed_app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        select_run(fixed_app, ALTERED)
        await pilot.press(key)
        await settle(pilot, rounds=5)
        lines = screen_text(fixed_app).splitlines()
        assert "RECORD ALTERED: outcomes row" in lines[1] and ALTERED in lines[0], lines[:3]


async def test_the_verdict_of_an_altered_run_leads_with_the_alteration(fixed_app):
    async with fixed_app.run_test(size=(120, 60)) as pilot:
        await settle(pilot)
        select_run(fixed_app, ALTERED)
        await pilot.press("v")
        await settle(pilot, rounds=5)
        screen = fixed_app.screen
        assert screen.verdict.reasons[0].startswith("The record was altered")
        text = screen_text(fixed_app)
        assert "RECORD ALTERED" in text
        reasons = text.split("Reasons", 1)[1]
        assert reasons.index("The record was altered") < reasons.index("rerun stability")
