"""The console on a run in other languages, at 80x24 and 120x40 (the fixed record of
tests/tui/language_db.py): the report's language tables, and a candidate in the inspector with its
language, dataset and integrity in the head and its code drawn in its language.

Update only after looking at the report: `pytest tests/tui/test_language_snapshots.py --snapshot-update`.
"""

from __future__ import annotations

import pytest
from textual.containers import VerticalScroll
from textual.widgets import DataTable, Static

from tests.tui import language_db
from tests.tui.conftest import settle

SIZES = {"80x24": (80, 24), "120x40": (120, 40)}


@pytest.fixture(params=list(SIZES))
def size(request):
    return SIZES[request.param]


@pytest.fixture
def language_app(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    language_db.build(tmp_path / "languages.db")
    from passgate.tui.app import make_app
    return make_app("languages.db", workdir=".", operator="rel-eng", poll_interval=3600)


def test_report_languages(snap_compare, language_app, size):
    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        body = pilot.app.screen.query_one("#report-body", VerticalScroll)
        text = pilot.app.screen.query_one("#report-text", Static)
        lines = [strip.text for strip in text.render_lines(text.region.reset_offset)]   # as drawn
        body.scroll_to(y=next(i for i, ln in enumerate(lines) if "Languages: pass@1" in ln), animate=False)
        await settle(pilot)
    assert snap_compare(language_app, terminal_size=size, run_before=run_before)


def test_inspector_language_candidate(snap_compare, language_app, size):
    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("i")
        await settle(pilot)
        pilot.app.screen.query_one("#failures", DataTable).move_cursor(row=0)
        await settle(pilot)
    assert snap_compare(language_app, terminal_size=size, run_before=run_before)
