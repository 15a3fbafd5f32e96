"""Paired comparison of two runs on the same tasks: difference, interval, tasks that changed."""

from __future__ import annotations

import json

import pytest

from passgate.cli.main import main
from passgate.core.record.store import Store
from passgate.core.score.compare import build_comparison
from tests.core.report_kit import Cand, TaskSpec, manifest, record

TASKS = [TaskSpec(f"T/{i}", "humaneval" if i < 30 else "mbpp") for i in range(40)]


def run(store, run_id, solved: set[int], n=4, extra=()):
    cands = [Cand(t.task_id, j, "passed" if i in solved and j < 2 else "failed", cls=None if i in solved and j < 2
                  else "wrong_answer") for i, t in enumerate(TASKS) for j in range(n)]
    tasks = TASKS + [TaskSpec(x, "mbpp") for x in extra]
    cands += [Cand(x, 0, "passed") for x in extra]
    return record(store, run_id, tasks, cands, scoring=manifest(k=(1, 2), resamples=500))


@pytest.fixture()
def store(tmp_path):
    s = Store(tmp_path / "compare.db")
    run(s, "base", solved=set(range(0, 20)), extra=("only-base",))
    run(s, "cand", solved=set(range(3, 30)), extra=("only-cand",))
    yield s
    s.close()


def test_paired_difference_interval_and_changed_tasks(store):
    comp = build_comparison(store, "base", "cand")
    assert comp["schema"] == "passgate.comparison/1"
    assert comp["tasks"]["paired"] == 40
    assert comp["tasks"]["only_baseline"] == ["only-base"] and comp["tasks"]["only_candidate"] == ["only-cand"]
    row = next(r for r in comp["pass_at_k"] if r["k"] == 1)
    # each solved task has pass@1 = 2/4; base solves 20 of 40, candidate 27 of 40
    assert row["baseline"] == pytest.approx(20 * 0.5 / 40)
    assert row["candidate"] == pytest.approx(27 * 0.5 / 40)
    assert row["difference"] == pytest.approx(7 * 0.5 / 40)
    assert row["ci_low"] < row["difference"] < row["ci_high"]
    changed = comp["changed"]
    assert [r["task_id"] for r in changed["pass_to_fail"]] == ["T/0", "T/1", "T/2"]
    assert [r["task_id"] for r in changed["fail_to_pass"]] == [f"T/{i}" for i in range(20, 30)]
    assert changed["counts"]["pass_to_fail"] == 3 and changed["counts"]["fail_to_pass"] == 10
    assert changed["pass_to_fail"][0] == {"task_id": "T/0", "baseline": "2/4", "candidate": "0/4",
                                          "pass_at_1_change": -0.5}
    mbpp = next(r for r in comp["by_slice"] if r["slice"] == "mbpp" and r["k"] == 1)
    assert mbpp["difference"] == 0.0 and mbpp["tasks"] == 10


def test_a_run_against_itself_has_zero_difference(store):
    comp = build_comparison(store, "base", "base")
    for row in comp["pass_at_k"]:
        assert row["difference"] == 0.0
        assert row["ci_low"] <= 0.0 <= row["ci_high"]
    assert comp["changed"]["pass_to_fail"] == [] and comp["changed"]["fail_to_pass"] == []


def test_compare_command_json_and_terminal(store, capsys):
    assert main(["--db", str(store.path), "compare", "base", "cand", "--json", "--k", "1"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [r["k"] for r in data["pass_at_k"]] == [1]
    assert main(["--db", str(store.path), "compare", "base", "cand"]) == 0
    out = capsys.readouterr().out
    assert "candidate − baseline" in out and "pass to fail" in out
