"""Every samples-file line that became no candidate is an exclusion a reader sees (issue 24, item 9): in the
JSON, Markdown and terminal reports, with its count and reason; a failed `passgate run` leaves no empty
record file behind."""

from __future__ import annotations

import io
import json

from passgate.cli.main import main
from passgate.core.record.store import Store
from tests.core import report_kit as kit

LINES = [{"file": "samples.jsonl", "line": 2, "reason": "not valid JSON (Expecting value, column 1)"},
         {"file": "samples.jsonl", "line": 5, "reason": "task HumanEval/999 is not in the task set",
          "task_id": "HumanEval/999"}]


def recorded(tmp_path) -> Store:
    store = Store(tmp_path / "kit.db")
    kit.standard_run(store)
    store.append("evidence", [{"run_id": "run-kit", "kind": "not_imported", "at": "2026-12-02T10:00:00",
                               "body_json": json.dumps({"lines": LINES})}])
    return store


def test_the_report_counts_and_lists_every_line_that_became_no_candidate(tmp_path):
    from passgate.core.export.formats import to_json, to_markdown
    from passgate.core.score.report import build_report
    store = recorded(tmp_path)
    report = build_report(store, "run-kit")
    omissions = json.loads(to_json(report))["omissions"]
    assert omissions["counts"]["not_imported"] == 2 and omissions["not_imported"] == LINES
    markdown = to_markdown(report)
    assert "2 samples-file lines became no candidate" in markdown
    assert "| samples.jsonl:5 | task HumanEval/999 is not in the task set |" in markdown


def test_the_terminal_report_shows_them(tmp_path):
    from rich.console import Console

    from passgate.core.score.report import build_report
    from passgate.tui.report_render import print_report
    console = Console(width=80, file=io.StringIO(), record=True)
    print_report(build_report(recorded(tmp_path), "run-kit"), console)
    text = console.export_text()
    assert "2 samples lines that became no candidate" in text
    assert "samples.jsonl:2" in text and "not valid JSON" in text


def test_the_lines_are_chained_so_editing_them_is_caught(tmp_path):
    import sqlite3

    from passgate.core.record.verify import verify_run
    store = recorded(tmp_path)
    store.close()
    con = sqlite3.connect(tmp_path / "kit.db")
    con.execute("DROP TRIGGER evidence_no_update")
    con.execute("UPDATE evidence SET body_json = '{\"lines\": []}' WHERE kind = 'not_imported'")
    con.commit()
    con.close()
    check = verify_run(Store(tmp_path / "kit.db"), "run-kit")
    assert not check.intact and check.problems[0].startswith("evidence row")


def test_a_run_that_cannot_start_leaves_no_record_file(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PASSGATE_DB", raising=False)
    assert main(["run", "nope.yaml"]) == 2
    assert "cannot read manifest" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())
