"""Text match beside execution for local edits (exact match, edit similarity, where they disagree),
and a product's suggestion log joined to a run (real SQLite record)."""

from __future__ import annotations

import json
import random

import pytest

from passgate.core.candidates.acceptance import import_log, read_log
from passgate.core.errors import ConfigError
from passgate.core.record.store import Store, verify_chain
from passgate.core.score.edits import acceptance_rows, edit_similarity, edits_section, levenshtein


def reference_distance(a: str, b: str) -> int:
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def test_the_edit_distance_is_levenshteins():
    rng = random.Random(3)
    for _ in range(300):
        a = "".join(rng.choice("ab \n\té") for _ in range(rng.randint(0, 25)))
        b = "".join(rng.choice("ab \n\té") for _ in range(rng.randint(0, 25)))
        assert levenshtein(a, b) == reference_distance(a, b)
    assert edit_similarity("", "") == 1.0 and edit_similarity("abc", "") == 0.0
    assert edit_similarity("  return ", "    return ") == pytest.approx(1 - 2 / 11)


def row(task, index, middle, canonical, outcome, slice_name="single-line"):
    return {"task_id": task, "candidate_index": index, "slice": slice_name, "middle": middle,
            "canonical": canonical, "outcome": outcome}


def test_text_match_and_execution_are_counted_where_they_disagree():
    rows = [row("a", 0, "    return x + 1\n", "    return x + 1\n", "passed"),
            row("a", 1, "    return 1 + x\n", "    return x + 1\n", "passed"),      # inexact, right
            row("a", 2, "    return x - 1\n", "    return x + 1\n", "failed"),      # close, wrong
            row("b", 0, "    pass\n", "    return []\n", "flaky"),
            row("c", 0, "  y", "  y", "passed", "multi-line")]
    section = edits_section(rows, {"single-line": {"value": 0.25, "ci_low": 0.0, "ci_high": 0.5}})
    single = next(g for g in section["slices"] if g["slice"] == "single-line")
    assert single["agreement"] == {"exact_passed": 1, "exact_failed": 0, "inexact_passed": 1, "inexact_failed": 2}
    assert single["exact_match"] == pytest.approx((1 / 3 + 0) / 2) and single["pass_at_1"]["value"] == 0.25
    assert section["overall"]["candidates"] == 5 and section["overall"]["pass_at_1"]["value"] == pytest.approx(
        (2 / 3 + 0 + 1) / 3)
    close = section["disagreements"]["most_similar_failed"][0]
    assert (close["task_id"], close["candidate_index"]) == ("a", 2)
    assert close["similarity"] == pytest.approx(1 - 1 / 17, abs=1e-4)
    assert [d["candidate_index"] for d in section["disagreements"]["inexact_passed"]] == [1]
    assert edits_section([]) is None


@pytest.fixture
def record(tmp_path):
    store = Store(tmp_path / "r.db")
    store.create_run({"run_id": "r1", "manifest_id": "m-x", "status": "completed"})
    store.save_tasks("r1", [{"task_id": "t/0", "position": 0, "slice": "edits", "prompt": "p",
                             "reference_solution": "pxs", "completion_style": "infill", "infill_suffix": "s"}])
    store.append("candidates", [{"run_id": "r1", "task_id": "t/0", "candidate_index": i, "raw_text": "x",
                                 "processed_text": "x", "program": "pxs", "source": "import", "gen_status": "ok",
                                 "created_at": "now"} for i in range(3)])
    store.append("outcomes", [{"run_id": "r1", "task_id": "t/0", "candidate_index": i,
                               "outcome": "passed" if i else "failed", "decided_at": "now"} for i in range(3)])
    return store


def write(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_a_suggestion_log_joins_the_run_and_its_acceptance_is_reported(record, tmp_path):
    log = write(tmp_path / "log.jsonl", [
        {"task_id": "t/0", "candidate_index": 0, "shown": True, "accepted": True, "edited_after": True},
        {"candidate_id": "t/0#1", "shown": True, "accepted": True, "edited_after": False},
        {"task_id": "t/0", "candidate_index": 2, "shown": True, "accepted": False}])
    assert import_log(record, "r1", log)["rows"] == 3
    assert verify_chain(record, "r1") == []
    acc = edits_section([row("t/0", 0, "x", "x", "failed", "edits")], None,
                        acceptance_rows(record.db.conn, "r1"))["acceptance"]["overall"]
    assert (acc["shown"], acc["accepted"], acc["acceptance"], acc["edited_after"]) == (3, 2, pytest.approx(2 / 3), 1)
    assert (acc["pass_rate_accepted"], acc["pass_rate_rejected"], acc["accepted_but_failed"]) == (0.5, 1.0, 1)
    with pytest.raises(ConfigError, match="already in this run's suggestion log"):
        import_log(record, "r1", log)


@pytest.mark.parametrize("line, field, words", [
    ({"task_id": "t/9", "candidate_index": 0, "shown": True, "accepted": False}, "task_id", "not in the run"),
    ({"candidate_id": "t/0-1", "shown": True, "accepted": False}, "candidate_id", "TASK_ID#INDEX"),
    ({"task_id": "t/0", "candidate_index": 1, "shown": False, "accepted": True}, "accepted", "never shown"),
    ({"task_id": "t/0", "candidate_index": 1, "shown": True, "accepted": False, "edited_after": True}, "edited_after",
     "only an accepted"),
    ({"task_id": "t/0", "candidate_index": 1, "shown": "yes", "accepted": False}, "shown", "must be bool"),
    ({"task_id": "t/0", "candidate_index": 0, "shown": True, "accepted": False}, "task_id", "logged twice"),
])
def test_a_bad_log_line_names_file_line_and_field(tmp_path, line, field, words):
    path = write(tmp_path / "log.jsonl", [{"task_id": "t/0", "candidate_index": 0, "shown": True, "accepted": True},
                                          line])
    with pytest.raises(ConfigError) as caught:
        read_log(path, {("t/0", 0), ("t/0", 1)})
    assert (caught.value.path, caught.value.line, caught.value.field) == (str(path), 2, field)
    assert words in str(caught.value)


def test_a_candidates_middle_is_its_program_less_the_code_around_the_gap(record):
    from passgate.core.score.edits import edit_rows
    rows = edit_rows(record.db.conn, "r1")
    assert [(r["middle"], r["canonical"], r["outcome"]) for r in rows] == [("x", "x", "failed"), ("x", "x", "passed"),
                                                                          ("x", "x", "passed")]
