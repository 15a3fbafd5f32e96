"""Scores must not move with machine load: CPU-time limits with a wall-clock backstop."""

from __future__ import annotations

import json
import os

from passgate.core.record.store import Store
from passgate.core.run.engine import start_run
from passgate.core.sandbox.docker_runner import DockerRunner
from tests.core.enginekit import make_manifest, outcomes, run, write_samples

# about 0.5 s of CPU at load time (module level, once per process), then the real answer. A fixed amount
# of work, not a CPU-clock deadline: under gVisor's ptrace platform the sandbox's CPU clock also counts time
# a runnable task waited for a host core, so a clock deadline would shrink the work under load.
BUSY = "_n = 0\nfor _i in range(5_000_000):\n    _n += 1\n"
SLOW_BUT_HONEST = {
    "HumanEval/0": "    for i, a in enumerate(numbers):\n        for j, b in enumerate(numbers):\n"
                   "            if i != j and abs(a - b) < threshold:\n                return True\n    return False\n" + BUSY,
    "HumanEval/2": "    return number % 1.0\n" + BUSY,
    "HumanEval/4": "    mean = sum(numbers) / len(numbers)\n    return sum(abs(x - mean) for x in numbers) / len(numbers)\n"
                   + BUSY,
}
FAST = {
    "HumanEval/2": "    return number % 1.0\n",
    "HumanEval/7": "    return [s for s in strings if substring in s]\n",
    "HumanEval/7#wrong": "    return strings\n",
    "HumanEval/12": "    while True:\n        pass\n",          # a genuine timeout stays a timeout
}
LIMIT = 2.0


def samples(tmp_path):
    rows = [(k, v) for k, v in SLOW_BUT_HONEST.items()] + [(k.split("#")[0], v) for k, v in FAST.items()]
    return write_samples(tmp_path / "slow.jsonl", rows)


def test_a_cpu_hog_on_the_machine_changes_no_verdict(tmp_path, image_digest, docker_client):
    task_ids = ["HumanEval/0", "HumanEval/2", "HumanEval/4", "HumanEval/7", "HumanEval/12"]
    m = make_manifest(tmp_path, image_digest, task_ids, samples(tmp_path),
                      execution={"timeout": {"calibrate": False, "floor_s": LIMIT}, "limits": {"cpu_s": LIMIT}})
    quiet_store, quiet_run = run(tmp_path, m, "quiet.db")
    # the hog competes where the sandboxes are scheduled: in containers of its own, three per core
    hogs = [docker_client.containers.run("passgate-sandbox:bookworm-py311", ["python3", "-c", "while True: pass"],
                                         detach=True, network_mode="none", labels={"passgate.test": "cpu-hog"})
            for _ in range(3 * (os.cpu_count() or 2))]
    try:
        busy_store, busy_run = run(tmp_path, m, "busy.db")
    finally:
        for h in hogs:
            h.remove(force=True)
    quiet, busy = outcomes(quiet_store, quiet_run), outcomes(busy_store, busy_run)
    assert {k: (o["outcome"], o["failure_class"]) for k, o in quiet.items()} == \
           {k: (o["outcome"], o["failure_class"]) for k, o in busy.items()}
    assert quiet[("HumanEval/12", 0)]["failure_class"] == "timeout"
    assert all(quiet[(t, 0)]["outcome"] == "passed" for t in SLOW_BUT_HONEST)
    # the load was real: the same honest work took at least half as long again on the loaded machine
    def slow_walls(store, run_id):
        return {(e["task_id"], e["candidate_index"]): e["wall_s"] for e in store.rows("executions", run_id)
                if e["task_id"] in SLOW_BUT_HONEST and e["candidate_index"] == 0}
    quiet_walls, busy_walls = slow_walls(quiet_store, quiet_run), slow_walls(busy_store, busy_run)
    slowdown = max(busy_walls[k] / quiet_walls[k] for k in quiet_walls)
    assert slowdown > 1.5, (quiet_walls, busy_walls)


# passes HumanEval/12's docstring examples (three strings at most), loops on check()'s six-string list
SLOW_ON_HIDDEN_INPUTS = ("    while len(strings) > 3:\n        pass\n"
                         "    return max(strings, key=len) if strings else None\n")


def test_a_timeout_the_host_cannot_confirm_leaves_its_public_suite_to_the_run_alone(tmp_path, image_digest):
    """Without the host's CPU count a timeout is always re-run alone, and that run replaces the
    attempt whole: the first attempt does not spend a second budget on its public suite."""
    s = write_samples(tmp_path / "hidden.jsonl", [("HumanEval/12", SLOW_ON_HIDDEN_INPUTS)])
    limits = {"limits": {"cpu_s": 1.0}}
    m = make_manifest(tmp_path, image_digest, ["HumanEval/12"], s,
                      execution={"timeout": {"calibrate": False, "floor_s": 1.0}, **limits})
    store, run_id = Store(tmp_path / "t.db"), None
    run_id = start_run(store, m, runner_factory=blind_runner)
    first, alone = store.rows("executions", run_id, order="exec_id")
    assert (first["purpose"], first["protected_class"], first["public_status"]) == ("grade", "timeout", "not_run")
    assert (alone["purpose"], alone["protected_class"], alone["public_status"]) == \
           ("timeout_recheck", "timeout", "passed")
    o = outcomes(store, run_id)[("HumanEval/12", 0)]
    assert (o["outcome"], o["failure_class"], o["public_passed"]) == ("failed", "timeout", 1)
    # with no recheck the one attempt is final, so it runs the public suite itself
    m = make_manifest(tmp_path, image_digest, ["HumanEval/12"], s, name="no-recheck",
                      execution={"timeout": {"calibrate": False, "floor_s": 1.0, "recheck_alone": False}, **limits})
    store, run_id = run(tmp_path, m, "no-recheck.db")
    (only,) = store.rows("executions", run_id)
    assert (only["protected_class"], only["public_status"]) == ("timeout", "passed")
    assert outcomes(store, run_id)[("HumanEval/12", 0)]["public_passed"] == 1


def test_a_timeout_the_host_confirms_needs_no_run_alone(tmp_path, image_digest):
    """Where the host's cgroup shows the sandbox got at least the CPU the candidate's clock counted,
    the timeout lost nothing to contention: the attempt runs its public suite too and stands; on a
    loaded machine it cannot be confirmed and is re-run alone as before."""
    s = write_samples(tmp_path / "hidden.jsonl", [("HumanEval/12", SLOW_ON_HIDDEN_INPUTS)])
    m = make_manifest(tmp_path, image_digest, ["HumanEval/12"], s,
                      execution={"timeout": {"calibrate": False, "floor_s": 1.0}, "limits": {"cpu_s": 1.0}})
    store, run_id = run(tmp_path, m)
    rows = store.rows("executions", run_id, order="exec_id")
    first = rows[0]
    assert (first["purpose"], first["protected_class"], first["public_status"]) == ("grade", "timeout", "passed")
    evidence = json.loads(first["evidence_json"])
    assert evidence["host_cpu_s"] > 0
    if evidence.get("timeout_confirmed"):
        assert len(rows) == 1 and evidence["host_cpu_s"] >= first["cpu_s"]
    else:
        assert [r["purpose"] for r in rows] == ["grade", "timeout_recheck"]
    o = outcomes(store, run_id)[("HumanEval/12", 0)]
    assert (o["outcome"], o["failure_class"], o["public_passed"]) == ("failed", "timeout", 1)


class _Blind(DockerRunner):
    measures_host_cpu = False


def blind_runner(manifest, run_id):
    """The Docker runner as on a host whose cgroups the controller cannot read."""
    from passgate.core.run.engine import base_limits
    ex = manifest.execution
    return _Blind(image=ex.image, runtime=ex.runtime, limits=base_limits(manifest), run_label=run_id,
                  seeds={"pythonhashseed": ex.seeds.pythonhashseed, "tz": ex.seeds.tz})
