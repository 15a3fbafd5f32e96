"""The report's `integrity` block from a real SQLite record: per slice and for the headline set,
counted from the attempt that decided each verdict; older runs are "not recorded", never zero."""

from __future__ import annotations

import json

import pytest

from passgate.core.export.formats import to_markdown
from passgate.core.record.store import Store
from passgate.core.score.report import build_report
from tests.core.integrity_kit import record_integrity_run


@pytest.fixture()
def store(tmp_path):
    s = Store(tmp_path / "integrity.db")
    yield s
    s.close()


def test_each_slice_sums_the_deciding_attempts_and_leaves_out_what_is_not_counted(store):
    integ = build_report(store, record_integrity_run(store), parallel=False)["integrity"]
    slices = {s["slice"]: s for s in integ["slices"]}
    assert list(slices) == ["parsing", "strings"]              # the canary's slice is not among them
    # strings: the rerun's 9 in-process sites are not the verdict's; S/0#2 counts the program it ran as;
    # S/1#0 counts its infra retry, not the lost grading attempt
    assert slices["strings"] == {"slice": "strings", "candidates": 4, "with_record": 4, "outside": 15,
                                 "visible": 1, "in_process": 0, "decided": 16, "in_process_share": 0.0,
                                 "process_control": 0}
    # parsing: the infra error and the excluded candidate are not graded; P/0#1 never reached its test
    assert slices["parsing"] == {"slice": "parsing", "candidates": 3, "with_record": 2, "outside": 2,
                                 "visible": 0, "in_process": 4, "decided": 6, "in_process_share": pytest.approx(4 / 6),
                                 "process_control": 1}
    assert integ["headline"] == {"candidates": 7, "with_record": 6, "outside": 17, "visible": 1, "in_process": 4,
                                 "decided": 22, "in_process_share": pytest.approx(4 / 22), "process_control": 1}
    assert (integ["recorded"], integ["grading_protocol"], integ["reason"]) == (True, 3, "")


@pytest.mark.parametrize("protocol", [2, None])
def test_a_run_graded_before_protocol_3_is_not_recorded_rather_than_zero(store, protocol):
    report = build_report(store, record_integrity_run(store, protocol=protocol), parallel=False)
    integ = report["integrity"]
    assert integ["recorded"] is False and integ["headline"] is None and integ["slices"] == []
    assert f"grading protocol {protocol or 1} does not record" in integ["reason"]
    json.loads(json.dumps(report, allow_nan=False))
    md = to_markdown(report)
    section = md.split("## Verdict integrity", 1)[1].split("\n## ", 1)[0]
    assert "Not recorded: grading protocol" in section and "| 0 |" not in section


def test_the_markdown_shows_one_row_per_slice_and_the_headline_set(store):
    md = to_markdown(build_report(store, record_integrity_run(store), parallel=False))
    section = md.split("## Verdict integrity", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ") and "---" not in line]
    assert rows[1:] == ["| parsing | 3 | 2 | 2 | 0 | 4 | 66.7% | 1 |",
                        "| strings | 4 | 4 | 15 | 1 | 0 | 0.0% | 0 |",
                        "| all slices | 7 | 6 | 17 | 1 | 4 | 18.2% | 1 |"]
    assert "{" not in section                                    # words and numbers, never the raw record
