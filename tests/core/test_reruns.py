"""Reruns and flakiness; the seeds a candidate can observe are pinned and recorded."""

from __future__ import annotations

import json

from tests.core.enginekit import make_manifest, outcomes, run, write_samples

COIN = ("    return x + y if _HEADS else x - y\n"
        "_HEADS = __import__('os').urandom(1)[0] < 128\n")     # decided once per process, at random
OBSERVE = ("    import random, time\n"
           "    print('seeds', hash('passgate'), random.random(), time.tzname[0])\n"
           "    return x + y\n")


def test_attempts_that_disagree_make_a_flaky_candidate_never_a_pass(tmp_path, image_digest):
    s = write_samples(tmp_path / "coin.jsonl", [("HumanEval/53", COIN), ("HumanEval/53", "    return x + y\n")])
    m = make_manifest(tmp_path, image_digest, ["HumanEval/53"], s,
                      execution={"reruns": {"policy": "all", "count": 12}})
    store, run_id = run(tmp_path, m)
    out = outcomes(store, run_id)
    assert out[("HumanEval/53", 0)]["outcome"] == "flaky"
    assert out[("HumanEval/53", 0)]["protected_passed"] == 0
    assert out[("HumanEval/53", 1)]["outcome"] == "passed" and out[("HumanEval/53", 1)]["attempts"] == 12
    attempts = [e for e in store.rows("executions", run_id) if e["candidate_index"] == 0]
    assert len(attempts) == 12 and {e["protected_status"] for e in attempts} == {"passed", "failed"}


def test_failures_only_policy_reruns_failures(tmp_path, image_digest):
    s = write_samples(tmp_path / "f.jsonl", [("HumanEval/53", "    return x - y\n"), ("HumanEval/53", "    return x + y\n")])
    m = make_manifest(tmp_path, image_digest, ["HumanEval/53"], s,
                      execution={"reruns": {"policy": "failures", "count": 3}})
    store, run_id = run(tmp_path, m)
    out = outcomes(store, run_id)
    assert out[("HumanEval/53", 0)]["attempts"] == 3 and out[("HumanEval/53", 0)]["outcome"] == "failed"
    assert out[("HumanEval/53", 1)]["attempts"] == 1


def test_observable_seeds_are_pinned_across_processes_and_containers(tmp_path, image_digest):
    s = write_samples(tmp_path / "o.jsonl", [("HumanEval/53", OBSERVE)] * 4)
    m = make_manifest(tmp_path, image_digest, ["HumanEval/53"], s,
                      execution={"reruns": {"policy": "all", "count": 2}, "workers": 2})
    store, run_id = run(tmp_path, m)
    lines = {e["stdout"].strip() for e in store.rows("executions", run_id)}
    assert len(lines) == 1, lines
    first = lines.pop().splitlines()[0]
    assert first.endswith("0.8444218515250481 UTC"), first      # random.seed(0); TZ=UTC
    seeds = json.loads(store.run(run_id)["seeds_json"])
    assert seeds == {"pythonhashseed": 0, "random_seed": 0, "tz": "UTC"}
