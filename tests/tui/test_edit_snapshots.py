"""Snapshots of the console on a fixed record of local edits at 80x24: the report with its edit slices
and latency, the comparison with a faster baseline, and the verdict's latency evidence.

Update only after looking at the report: `pytest tests/tui/test_edit_snapshots.py --snapshot-update`.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.containers import VerticalScroll

from tests.tui import fixture_edits
from tests.tui.conftest import settle


@pytest.fixture
def edits_app(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    fixture_edits.build(tmp_path / "edits.db")
    from passgate.tui.app import make_app
    return make_app(Path("edits.db"), workdir=".", operator="rel-eng", poll_interval=3600)


async def scroll(pilot, y: int) -> None:
    pilot.app.screen.query_one(VerticalScroll).scroll_to(y=y, animate=False)
    await settle(pilot)


def test_report_shows_the_edit_slices(snap_compare, edits_app):
    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("enter")                         # the newest run: the slower candidate
        await settle(pilot)
    assert snap_compare(edits_app, terminal_size=(80, 24), run_before=run_before)


def test_report_shows_latency_and_acceptance(snap_compare, edits_app):
    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        await scroll(pilot, 13)                            # past the edit slices: latency, then acceptance
    assert snap_compare(edits_app, terminal_size=(80, 24), run_before=run_before)


def test_compare_shows_edit_and_latency_changes(snap_compare, edits_app):
    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("c")
        await settle(pilot)
        await pilot.press("enter")                         # the picker: the baseline run
        await settle(pilot)
        await scroll(pilot, 15)                            # past the pass@k difference
    assert snap_compare(edits_app, terminal_size=(80, 24), run_before=run_before)


def test_verdict_shows_the_latency_budget(snap_compare, edits_app):
    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("v")
        await settle(pilot)
    assert snap_compare(edits_app, terminal_size=(80, 24), run_before=run_before)
