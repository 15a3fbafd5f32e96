"""The terminal report reads as tables at 80 and 120 columns: no JSON, no Python reprs, no line past
the edge, no cell cut with an ellipsis, no interval split over two lines."""

from __future__ import annotations

import io
import re

import pytest

from passgate.core.record.store import Store
from tests.core import report_kit as kit
from tests.tui import realrun

SPLIT_INTERVAL = re.compile(r"\[-?\d\.\d{3},\s*$")


def terminal_report(report: dict, width: int) -> str:
    from rich.console import Console

    from passgate.tui.report_render import print_report
    console = Console(width=width, file=io.StringIO(), record=True)
    print_report(report, console, tasks=True)
    return console.export_text()


def assert_readable(text: str, width: int) -> None:
    assert '{"' not in text and "{'" not in text, "JSON or a Python dict in the terminal report"
    for number, line in enumerate(text.splitlines(), start=1):
        assert len(line) <= width, f"line {number} is past the edge: {line!r}"
        assert "…" not in line, f"line {number} has a cell cut short: {line!r}"
        assert not SPLIT_INTERVAL.search(line), f"line {number} splits an interval: {line!r}"


@pytest.mark.parametrize("width", [80, 120])
def test_the_terminal_report_of_a_recorded_run_reads_at(width, tmp_path):
    from passgate.core.score.report import build_report
    store = Store(tmp_path / "kit.db")
    kit.standard_run(store)
    text = terminal_report(build_report(store, "run-kit"), width)
    assert_readable(text, width)
    assert "only_loopback_interface" in text and "calibrate yes, factor 4.0, floor (s) 1.0" in text


def test_the_histogram_has_no_bin_narrower_than_the_cpu_clock():
    from passgate.tui.report_render import histogram_rows
    edges = [0.001 * 1.3 ** i for i in range(27)]
    counts = [3, 0, 0, 1, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]
    rows = histogram_rows(edges, counts)
    assert sum(n for _, _, n in rows) == 7 and len(rows) <= 10
    assert all(hi - lo >= 0.01 for lo, hi, _ in rows[:-1])


@pytest.mark.docker
def test_the_terminal_report_of_a_real_run_has_no_json_and_no_line_cut_at_the_edge(tmp_path):
    import contextlib
    import os

    from passgate.cli.main import main
    db = tmp_path / "real.db"
    run_id = realrun.record_run(db, realrun.frozen_manifest(tmp_path))
    out = io.StringIO()
    os.environ["COLUMNS"] = "80"
    try:
        with contextlib.redirect_stdout(out):
            assert main(["--db", str(db), "report", run_id]) == 0
    finally:
        del os.environ["COLUMNS"]
    assert "Self-probe" in out.getvalue() and "pass@1" in out.getvalue()
    assert_readable(out.getvalue(), 80)
