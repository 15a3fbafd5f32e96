"""The strict option: a fresh container for every candidate instead of one per shard."""

from tests.core.enginekit import make_manifest, outcomes, run


def test_container_per_candidate_gives_every_attempt_its_own_container(tmp_path, image_digest):
    ids = [f"HumanEval/{i}" for i in range(4)]
    m = make_manifest(tmp_path, image_digest, ids, execution={"isolation": "candidate"})
    store, run_id = run(tmp_path, m)
    assert all(o["outcome"] == "passed" for o in outcomes(store, run_id).values())
    containers = [e["container_id"] for e in store.rows("executions", run_id)]
    assert len(containers) == 4 and len(set(containers)) == 4 and all(containers)


def test_shard_containers_are_reused_across_candidates(tmp_path, image_digest):
    ids = [f"HumanEval/{i}" for i in range(6)]
    m = make_manifest(tmp_path, image_digest, ids, execution={"workers": 1})
    store, run_id = run(tmp_path, m)
    assert len({e["container_id"] for e in store.rows("executions", run_id)}) == 1
