"""Infrastructure faults mid-run: the run finishes with every candidate recorded once, infra
failures labelled as infra and retried, and the record consistent."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

from passgate.core.record.store import Store, verify_chain
from passgate.core.run.engine import start_run
from tests.core.test_resume import manifest


def run_in_thread(db: Path, m: Path):
    box: dict = {}

    def go():
        try:
            box["run_id"] = start_run(Store(db), m)
        except BaseException as exc:  # surfaced by the test
            box["error"] = exc
    t = threading.Thread(target=go)
    t.start()
    return t, box


def wait_for_outcomes(db: Path, n: int, timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    while True:
        s = Store(db)
        try:
            done = s.db.execute("SELECT COUNT(*) FROM outcomes").fetchone()[0]
        finally:
            s.close()
        if done >= n:
            return
        assert time.monotonic() < deadline, "run made no progress"
        time.sleep(0.1)


def assert_consistent(db: Path, run_id: str, n_tasks: int) -> Store:
    store = Store(db)
    assert store.run(run_id)["status"] == "completed"
    outcomes = store.rows("outcomes", run_id)
    assert len(outcomes) == n_tasks
    assert len({(o["task_id"], o["candidate_index"]) for o in outcomes}) == n_tasks
    assert all(o["outcome"] == "passed" for o in outcomes), [o for o in outcomes if o["outcome"] != "passed"]
    assert store.integrity_ok() and verify_chain(store, run_id) == []
    return store


def test_a_sandbox_container_killed_from_outside_is_retried_as_infra(tmp_path, image_digest, docker_client):
    db = tmp_path / "f.db"
    t, box = run_in_thread(db, manifest(tmp_path, image_digest, n_tasks=40))
    wait_for_outcomes(db, 8)
    victims = docker_client.containers.list(filters={"label": f"passgate.controller_pid={os.getpid()}"})
    assert victims
    victims[0].kill()
    t.join(300)
    assert "error" not in box, box.get("error")
    store = assert_consistent(db, box["run_id"], 40)
    infra = [e for e in store.rows("executions", box["run_id"]) if e["status"] == "infra_error"]
    assert infra and all(e["failure_class"] == "infra_error" for e in infra)
    retried = {(e["task_id"], e["candidate_index"]) for e in infra}
    for key in retried:
        attempts = [e for e in store.rows("executions", box["run_id"])
                    if (e["task_id"], e["candidate_index"]) == key]
        assert attempts[-1]["status"] == "ok" and attempts[-1]["purpose"] == "infra_retry"


def _dockerd_pid() -> int | None:
    out = subprocess.run(["pidof", "dockerd"], capture_output=True, text=True).stdout.split()
    return int(out[0]) if out else None


def _containerd_pid() -> int | None:
    try:
        return int(Path("/var/run/docker/containerd/containerd.pid").read_text().strip())
    except (OSError, ValueError):
        return None


def _wait_gone(pid: int | None, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while pid and time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)


def _skip_unless_the_engine_is_passgates_alone(docker_client) -> None:
    """Killing dockerd kills every container it runs: never do that to someone else's workload."""
    from passgate.core.sandbox.docker_runner import LABEL
    others = [c.name for c in docker_client.containers.list() if LABEL not in (c.labels or {})]
    if others:
        pytest.skip(f"this dockerd also runs containers that are not passgate's ({', '.join(others[:5])}); "
                    "the engine crash tests would kill them")


@pytest.mark.slow
def test_dockerd_restarted_mid_run_is_ridden_out(tmp_path, image_digest, docker_client):
    _skip_unless_the_engine_is_passgates_alone(docker_client)
    db = tmp_path / "d.db"
    t, box = run_in_thread(db, manifest(tmp_path, image_digest, n_tasks=164))   # long enough to span the restart
    wait_for_outcomes(db, 8)
    pid = _dockerd_pid()
    assert pid, "dockerd is not running"
    os.kill(pid, signal.SIGKILL)     # a crash: the engine's API and every attach stream vanish at once
    _wait_gone(pid)
    _wait_gone(_containerd_pid())    # dockerd's own containerd goes down after it; a new one needs its socket
    from passgate.core.sandbox.setup import ensure_dockerd
    time.sleep(5)                    # the run meets the dead engine first
    ensure_dockerd(reload=False, log=lambda _: None)   # as `passgate setup` would: clears the stale pid file
    t.join(400)
    assert "error" not in box, box.get("error")
    store = assert_consistent(db, box["run_id"], 164)
    assert any(e["status"] == "infra_error" for e in store.rows("executions", box["run_id"]))


@pytest.mark.slow
def test_a_run_whose_engine_stays_down_stops_and_resumes_once_it_is_back(tmp_path, image_digest, docker_client,
                                                                         monkeypatch):
    _skip_unless_the_engine_is_passgates_alone(docker_client)
    from passgate.core.errors import EngineLost
    from passgate.core.run import dispatch
    from passgate.core.run.engine import resume_run
    from passgate.core.sandbox.setup import ensure_dockerd
    monkeypatch.setattr(dispatch, "ENGINE_PATIENCE_S", 10.0)
    db = tmp_path / "g.db"
    t, box = run_in_thread(db, manifest(tmp_path, image_digest, n_tasks=164))
    wait_for_outcomes(db, 8)
    pid = _dockerd_pid()
    assert pid, "dockerd is not running"
    os.kill(pid, signal.SIGKILL)
    _wait_gone(pid)
    _wait_gone(_containerd_pid())
    t.join(120)
    try:
        assert not t.is_alive(), "the run kept waiting for an engine that stayed down"
        assert isinstance(box.get("error"), EngineLost) and box["error"].exit_code == 1, box
        assert "--resume" in box["error"].message
    finally:
        ensure_dockerd(reload=False, log=lambda _: None)
    store = Store(db)
    (run,) = store.runs()
    assert run["status"] == "failed" and "no sandbox could be started" in run["error"]
    decided = store.count("outcomes", run["run_id"])
    assert 8 <= decided < 164
    # the jobs that found no sandbox were never attempts: only the calls in flight were lost
    lost = [e for e in store.rows("executions", run["run_id"]) if e["status"] == "infra_error"]
    assert 1 <= len(lost) <= 4, lost         # the calls in flight when the engine died, not one per waiting job
    store.close()
    resume_run(Store(db), run["run_id"])
    assert_consistent(db, run["run_id"], 164)


OOM_THE_CONTAINER = (
    "    import os\n"
    "    for _ in range(6):\n"           # each child stays under its own RLIMIT_AS; together they exceed the cgroup
    "        if os.fork() == 0:\n"
    "            block = bytearray(700 << 20)\n"
    "            for i in range(0, len(block), 4096):\n"
    "                block[i] = 1\n"
    "            import time\n"
    "            time.sleep(60)\n"
    "    import time\n"
    "    time.sleep(60)\n")


def test_a_candidate_that_ooms_its_container_is_retried_then_failed_for_memory(tmp_path, image_digest):
    from tests.core.enginekit import make_manifest, outcomes, run, write_samples
    s = write_samples(tmp_path / "oom.jsonl", [("HumanEval/53", OOM_THE_CONTAINER), ("HumanEval/53", "    return x + y\n")])
    m = make_manifest(tmp_path, image_digest, ["HumanEval/53"], s,
                      execution={"workers": 1, "limits": {"memory_mb": 1024, "container_memory_mb": 1536, "cpu_s": 20.0},
                                 "timeout": {"calibrate": False, "floor_s": 20.0}})
    store, run_id = run(tmp_path, m)
    out = outcomes(store, run_id)
    assert out[("HumanEval/53", 0)]["outcome"] == "failed"
    assert out[("HumanEval/53", 0)]["failure_class"] == "memory_exceeded"
    attempts = [e for e in store.rows("executions", run_id) if e["candidate_index"] == 0]
    assert [e["status"] for e in attempts] == ["infra_error", "infra_error"] and "OOM" in attempts[0]["detail"]
    assert out[("HumanEval/53", 1)]["outcome"] == "passed"      # the next candidate, in a fresh container
    assert store.integrity_ok() and verify_chain(store, run_id) == []
