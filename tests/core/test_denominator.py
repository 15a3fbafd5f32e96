"""Nothing a candidate does leaves the score: through the engine and the real sandbox, hostile
candidates end in counted classes every time, never `infra_error`, and honest ones beside them pass.

Malformed, oversized and slow-to-decode frames are in tests/adversarial/test_callback_corpus.py
(each followed by an honest candidate in the same worker)."""

from __future__ import annotations

import json

from tests.core.enginekit import make_manifest, outcomes, run, write_samples

FORK_BOMB = ("    import os\n    while True:\n        try:\n            os.fork()\n        except OSError:\n"
             "            pass\n")
HONEST = "    return x + y\n"


def test_a_fork_bomb_that_ignores_eagain_is_the_same_counted_failure_twenty_times(tmp_path, image_digest):
    rows = []
    for _ in range(20):
        rows += [("HumanEval/53", FORK_BOMB), ("HumanEval/53", HONEST)]
    samples = write_samples(tmp_path / "bombs.jsonl", rows)
    m = make_manifest(tmp_path, image_digest, ["HumanEval/53"], samples,
                      execution={"timeout": {"calibrate": False, "floor_s": 1.0}, "limits": {"cpu_s": 1.0},
                                 "crosscheck": "none"})
    store, run_id = run(tmp_path, m)
    out = outcomes(store, run_id)
    bombs = [out[("HumanEval/53", i)] for i in range(0, 40, 2)]
    honest = [out[("HumanEval/53", i)] for i in range(1, 40, 2)]
    assert {(o["outcome"], o["failure_class"]) for o in bombs} == {("failed", "timeout")}, \
        sorted({(o["outcome"], o["failure_class"], o["reason"]) for o in bombs})
    assert all(o["outcome"] == "passed" for o in honest)
    lost = [e for e in store.rows("executions", run_id) if e["status"] == "infra_error"]
    assert all(json.loads(e["evidence_json"])["probe"] == "passed" for e in lost)
