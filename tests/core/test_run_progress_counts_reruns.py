"""`passgate run` never reads as if every decided candidate passed while failures wait for their
reruns: the progress counts candidates that failed an attempt and have no outcome yet apart from the
passed and failed ones (issue 24, item 4, on the command line)."""

from __future__ import annotations

import pytest

from passgate.cli.commands.run import progress_line
from passgate.core.progress import Progress
from passgate.core.record.store import Store
from passgate.core.run.engine import start_run
from tests.tui import realrun

pytestmark = pytest.mark.docker


def test_first_attempt_failures_are_counted_while_they_wait_for_reruns(tmp_path):
    # one worker: the queue is first in, first out, so every first attempt runs before any rerun and
    # HumanEval/1 #0 (passes) is decided after HumanEval/0 #1 failed its first attempt
    manifest = realrun.frozen_manifest(tmp_path, workers=1)
    events: list[Progress] = []
    store = Store(tmp_path / "pg.db")
    try:
        run_id = start_run(store, manifest, operator="rel-eng", progress=events.append)
        assert store.run(run_id)["status"] == "completed"
    finally:
        store.close()
    grading = [e for e in events if e.phase == "grade"]
    waiting = [e for e in grading if e.awaiting]
    assert waiting, [progress_line(e) for e in grading]
    first = waiting[0]
    assert first.counts.get("passed", 0) == first.done            # only passes are decided so far ...
    assert "failed an attempt, waiting for a rerun" in progress_line(first)   # ... and the line says what waits
    assert grading[-1].awaiting == 0 and grading[-1].done == grading[-1].total
    assert "waiting for a rerun" not in progress_line(grading[-1])


def test_the_progress_line_counts_waiting_candidates_apart_and_says_timeout_in_the_singular():
    line = progress_line(Progress("r", "grade", done=5, total=10, counts={"passed": 5}, rate=1.0, eta_s=5,
                                  message="grading", awaiting=3))
    assert line == "[grade] 5/10 1.0/s eta 5s grading passed 5; 3 failed an attempt, waiting for a rerun"
    line = progress_line(Progress("r", "recheck", done=9, total=10, counts={"passed": 9}, awaiting=1))
    assert line == "[recheck] 9/10 re-checking 1 timeout alone (no ETA) passed 9"
