"""Through the engine and the real sandbox: the cross-check against the reference harness's one-process
program, the self-check that names a broken reference, and the prompt context of full functions."""

from __future__ import annotations

import json

from passgate.core.gate import evaluate
from passgate.core.sandbox.runner import GRADING_PROTOCOL
from passgate.core.score.report import build_report
from tests.conftest import REPO
from tests.core.enginekit import make_manifest, outcomes, run, write_samples

TRUNCATE = "    return number % 1.0\n"
# its module-level `abs` replaces the one the test calls: CPython fails it, and so does the isolated suite
SHADOWS_ABS = "    return number % 1.0\nabs = lambda x: 1.0\n"
# fails the isolated suite by design (never compared); one process compares it and passes
ALWAYS_EQUAL = ("    class Any(float):\n        def __eq__(self, other):\n            return True\n"
                "        def __sub__(self, other):\n            return 0.0\n    return Any(0.5)\n")


def test_the_cross_check_agrees_where_the_program_changes_what_the_test_calls_and_explains_the_rest(
        tmp_path, image_digest):
    samples = write_samples(tmp_path / "s.jsonl", [("HumanEval/2", TRUNCATE), ("HumanEval/2", SHADOWS_ABS),
                                                    ("HumanEval/2", ALWAYS_EQUAL)])
    m = make_manifest(tmp_path, image_digest, ["HumanEval/2"], samples, execution={"crosscheck": "all"})
    store, run_id = run(tmp_path, m)
    out = outcomes(store, run_id)
    assert out[("HumanEval/2", 0)]["outcome"] == "passed"
    # the test runs after the program in its namespace, so it calls the program's `abs`, as CPython does
    assert (out[("HumanEval/2", 1)]["outcome"], out[("HumanEval/2", 1)]["failure_class"]) == ("failed", "wrong_answer")
    assert out[("HumanEval/2", 2)]["failure_class"] == "not_plain_data"
    fidelity = build_report(store, run_id)["fidelity"]
    assert fidelity["grading_protocol"] == GRADING_PROTOCOL and fidelity["checked"] == 3 and fidelity["agreed"] == 2
    (only,) = fidelity["disagreements"]
    assert only["candidate_index"] == 2 and "never compares" in only["explained"]
    v = evaluate(store, run_id)
    cond = next(c for c in v.conditions if c.name == "verdict_fidelity")
    assert cond.level == "strong", cond.sentence


PRODUCT = REPO / "examples" / "product-tasks.jsonl"


def test_a_reference_run_with_a_broken_reference_is_not_strong_and_names_it(tmp_path, image_digest):
    rows = [json.loads(line) for line in PRODUCT.read_text().splitlines()[:3]]
    rows[1]["reference_solution"] = rows[1]["prompt"] + "    return None\n"
    path = tmp_path / "tasks.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    from passgate.core.kinds.sets import file_sha256
    m = make_manifest(tmp_path, image_digest, [], tasks={"sets": [{"kind": "product", "path": str(path),
                                                                    "sha256": file_sha256(path)}]})
    store, run_id = run(tmp_path, m)
    selfcheck = json.loads(store.run(run_id)["selfcheck_json"])
    assert selfcheck["reference_run"] and selfcheck["unexplained"] == 1
    assert selfcheck["failed"][0]["task_id"] == rows[1]["task_id"] and selfcheck["failed"][0]["known_defect"] is None
    cond = next(c for c in evaluate(store, run_id).conditions if c.name == "ground_truth_selfcheck")
    assert cond.level != "strong" and rows[1]["task_id"] in cond.sentence


FULL_FILTER = ("def filter_by_substring(strings: List[str], substring: str) -> List[str]:\n"
               "    return [s for s in strings if substring in s]\n")


def test_a_full_function_gets_the_prompts_imports_and_helpers_before_it(tmp_path, image_digest):
    path = tmp_path / "full.jsonl"
    path.write_text(json.dumps({"task_id": "HumanEval/7", "solution": FULL_FILTER}) + "\n")
    results = {}
    for context in ("preamble", "none"):
        m = make_manifest(tmp_path, image_digest, ["HumanEval/7"], write_samples(tmp_path / "x.jsonl", []),
                          name=f"ctx-{context}")
        doc = __import__("yaml").safe_load(m.read_text())
        from passgate.core.kinds.sets import file_sha256
        doc["candidates"]["import"] = {"path": str(path), "sha256": file_sha256(path), "format": "auto"}
        doc["candidates"]["postprocess"] = {"style": "full", "prompt_context": context}
        m.write_text(__import__("yaml").safe_dump(doc))
        store, run_id = run(tmp_path, m, db_name=f"{context}.db")
        cand = store.rows("candidates", run_id)[0]
        results[context] = (outcomes(store, run_id)[("HumanEval/7", 0)], cand["program"])
    passed, program = results["preamble"]
    assert passed["outcome"] == "passed" and program.startswith("from typing import List\n")
    failed, bare = results["none"]
    assert failed["failure_class"] == "runtime_error" and bare.startswith("def filter_by_substring")
