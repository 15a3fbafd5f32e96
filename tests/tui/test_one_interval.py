"""One run, one scoring contract, one interval: the report (terminal, JSON, Markdown), the gate
(text and JSON) and every console screen that prints pass@1 print the same figures.

The record is built so that the task ids' order differs from the record's order (HumanEval/10
before HumanEval/2, MBPP ids by number), with 1 to 6 candidates per task and macro aggregation
over two weighted slices: the intervals then depend on the order tasks enter the bootstrap and
on the aggregation, which is where the commands used to disagree.
"""

from __future__ import annotations

import contextlib
import io
import json
import random

import pytest

from passgate.core.record.store import Store
from tests.core import report_kit as kit
from tests.tui.conftest import screen_text, settle

RUN = "r20261201-120000-onecii"


def _record(path) -> None:
    rnd = random.Random(1)
    ids = [f"HumanEval/{i}" for i in range(40)] + [str(i) for i in range(2, 30)]
    tasks = [kit.TaskSpec(t, "humaneval" if "/" in t else "mbpp") for t in ids]
    cands = []
    for t in ids:
        for j in range(rnd.randint(1, 6)):
            passed = rnd.random() < 0.6
            cands.append(kit.Cand(t, j, "passed" if passed else "failed", cls=None if passed else "wrong_answer"))
    store = Store(path)
    kit.record(store, RUN, tasks, cands, scoring=kit.manifest(k=(1, 3), aggregation="macro",
                                                               weights={"humaneval": 2.0, "mbpp": 1.0},
                                                               resamples=500))
    store.close()


@pytest.fixture
def one_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _record(tmp_path / "one.db")
    return tmp_path / "one.db"


def _cli(db, *argv) -> str:
    from passgate.cli.main import main
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(["--db", str(db), *argv])
    return out.getvalue()


def _interval(lo, hi) -> str:
    return f"[{lo:.3f}, {hi:.3f}]"


def test_report_gate_json_and_markdown_print_one_interval(one_run):
    report = json.loads(_cli(one_run, "report", RUN, "--json"))
    head = report["scores"]["headline"]
    gate = json.loads(_cli(one_run, "gate", RUN, "--json"))["score"]
    assert (gate["pass_at_1"], gate["ci_low"], gate["ci_high"]) == (head["value"], head["ci_low"], head["ci_high"])
    expected = _interval(head["ci_low"], head["ci_high"])
    assert expected in _cli(one_run, "report", RUN)
    assert expected in _cli(one_run, "report", RUN, "--markdown")
    assert expected in _cli(one_run, "gate", RUN)


def test_the_interval_of_a_k_does_not_move_when_other_ks_are_asked(one_run, monkeypatch):
    import passgate.core.score.intervals as intervals
    from passgate.core.score.report import build_report
    monkeypatch.setattr(intervals, "EXACT_CELLS", 1000)          # the moments path, as for thousands of tasks,
    monkeypatch.setattr(intervals, "_CHUNK_CELLS", 10_000)       # drawn in several chunks
    store = Store(one_run)
    alone = build_report(store, RUN, k=[1])["scores"]["headline"]
    together = build_report(store, RUN, k=[1, 2, 3])["scores"]["headline"]
    assert (alone["ci_low"], alone["ci_high"]) == (together["ci_low"], together["ci_high"])


async def test_every_screen_prints_the_same_pass_at_1_and_interval(one_run):
    from passgate.core.score.report import build_report
    from passgate.tui.app import make_app
    head = build_report(Store(one_run), RUN)["scores"]["headline"]
    value, interval = f"{head['value']:.3f}", _interval(head["ci_low"], head["ci_high"])
    app = make_app(one_run, workdir=one_run.parent, operator="rel-eng", poll_interval=3600)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert value in screen_text(app)                          # the runs table's pass@1
        await pilot.press("enter")
        await settle(pilot)
        assert f"{value}  {interval}" in screen_text(app)         # the report screen's headline
        await pilot.press("escape", "v")
        await settle(pilot)
        assert f"pass@1 {value} {interval}" in screen_text(app)   # the verdict screen's head
