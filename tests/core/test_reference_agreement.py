"""Per-sample verdicts on real model samples agree with the official harness's own verdicts."""

from __future__ import annotations

import json
from collections import Counter

from tests.core.enginekit import make_manifest, outcomes, run


def test_gpt35_1640_samples_agree_with_the_official_harness_on_every_sample(tmp_path, image_digest, datasets):
    samples = datasets / "samples/humaneval/gpt-3.5-turbo-instruct_t0_n10_samples.jsonl"
    reference = [json.loads(line) for line in open(str(samples) + "_results.jsonl")]
    m = make_manifest(tmp_path, image_digest, [f"HumanEval/{i}" for i in range(164)], samples,
                      execution={"dedupe_identical_programs": True})
    store, run_id = run(tmp_path, m)
    ours = outcomes(store, run_id)
    seen: Counter = Counter()
    disagree = []
    for ref in reference:
        index = seen[ref["task_id"]]
        seen[ref["task_id"]] += 1
        o = ours[(ref["task_id"], index)]
        if bool(o["protected_passed"]) != ref["passed"]:
            disagree.append((ref["task_id"], index, ref["result"], o["outcome"], o["failure_class"]))
    assert len(ours) == len(reference) == 1640
    assert disagree == []
    assert sum(o["protected_passed"] for o in ours.values()) == 1078
    # the official harness's 10 "timed out" are timeouts here too, decided on CPU time
    timed_out = {(r["task_id"]) for r in reference if r["result"] == "timed out"}
    assert all(o["failure_class"] == "timeout" for (t, _), o in ours.items() if t in timed_out
               and not o["protected_passed"])
