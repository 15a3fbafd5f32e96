"""The task contract through the engine and the real gVisor sandbox: disallowed imports counted in
pass@k and named in the record, the contract scan beside the verdict, the report's section, the
gate's `contract.max_disallowed_imports` and the alert against a baseline."""

from __future__ import annotations

import json

from passgate.core.gate import evaluate
from passgate.core.score.report import build_report
from tests.core.enginekit import make_manifest, outcomes, run, write_samples

TASK = "HumanEval/53"          # def add(x: int, y: int)
HONEST = "    return x + y\n"
CANDIDATES = [
    HONEST,
    "    import requests\n    return x + y\n",                                   # refused where it runs
    "    try:\n        import numpy\n    except ImportError:\n        pass\n    return x + y\n",
    "    if x is None:\n        import yaml\n    return x + y\n",                 # named, never run
    "def add(a, b):\n    return a + b\n",                                          # another signature
]


def test_disallowed_imports_through_the_engine_report_and_gate(tmp_path, image_digest):
    base = make_manifest(tmp_path, image_digest, [TASK], write_samples(tmp_path / "b.jsonl", [(TASK, HONEST)] * 5),
                         name="baseline")
    store, base_id = run(tmp_path, base)
    m = make_manifest(tmp_path, image_digest, [TASK], write_samples(tmp_path / "s.jsonl",
                                                                     [(TASK, c) for c in CANDIDATES]))
    store, run_id = run(tmp_path, m)
    got = {i: o["failure_class"] for (_t, i), o in outcomes(store, run_id).items()}
    assert got == {0: None, 1: "disallowed_import", 2: "disallowed_import", 3: None, 4: None}
    refused = {e["candidate_index"]: json.loads(e["imports_json"]) for e in store.rows("executions", run_id)
               if e["imports_json"]}
    assert refused[1][0]["top"] == "requests" and refused[2][0]["top"] == "numpy"
    program = next(c["program"] for c in store.rows("candidates", run_id) if c["candidate_index"] == 1)
    assert program.splitlines()[refused[1][0]["line"] - 1].strip() == "import requests"   # the program's own line

    report = build_report(store, run_id, parallel=False)
    assert report["config"]["import_policy"] == [{"set": "humaneval", "kind": "humaneval", "declared": False,
                                                  "allowed_imports": "stdlib"}]
    (group,) = report["contract"]["groups"]
    assert (group["candidates"], group["disallowed_import"], group["modules"]) == (5, 2, {"numpy": 1, "requests": 1})
    assert (group["named"], group["named_not_run"], group["named_modules"]) == (3, 1, {"numpy": 1, "requests": 1,
                                                                                       "yaml": 1})
    assert group["signature_changed"] == 1
    assert report["contract"]["signature_examples"][0]["changes"] == [
        "parameter 1 is named a, was x", "parameter 2 is named b, was y"]
    assert abs(report["scores"]["headline"]["value"] - 0.6) < 1e-9         # 3 of 5 pass: the refused two count as failed

    verdict = evaluate(store, run_id, policy="secure-default", baseline=base_id)
    assert verdict.consequence == "blocked"
    assert any("2 candidate(s) imported a module their task does not allow (numpy, requests)" in r
               for r in verdict.reasons)
    alert = next(a for a in verdict.alerts if a.name == "disallowed_imports")
    assert alert.raised and abs(alert.run - 0.4) < 1e-9 and alert.baseline == 0.0
    assert not evaluate(store, base_id, policy="secure-default").needs or all(
        n.subject != "contract" for n in evaluate(store, base_id, policy="secure-default").needs)
