"""Local edits end to end: `passgate freeze` and `passgate run` of a generated fill-in-the-middle run
through the stub (streamed), graded in gVisor, then the report's edit and latency sections and the
gate's latency budget, for a fast stub and a slow one. Real Docker, real SQLite, real HTTP."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from passgate.cli.main import main
from passgate.core.gate import evaluate
from passgate.core.gate.policy import policies_dir
from passgate.core.record.store import Store
from passgate.core.score.report import build_report
from passgate.core.tasks.io import file_sha256
from tests.core.openai_stub import OpenAIStub, infilling_answers

pytestmark = [pytest.mark.docker]

SINGLE = Path(__file__).resolve().parents[3] / "shared/datasets/infilling/HumanEval-SingleLineInfilling.jsonl.gz"
TASK_IDS = ["SingleLineInfilling/HumanEval/0/L0", "SingleLineInfilling/HumanEval/2/L0",
            "SingleLineInfilling/HumanEval/38/L0", "SingleLineInfilling/HumanEval/4/L1"]


@pytest.fixture(scope="module")
def stub():
    server = OpenAIStub({}, infill=infilling_answers(SINGLE)).start()
    yield server
    server.stop()


def budget_policy(tmp: Path) -> Path:
    """code-completion with a first-token budget of 1.5 s: far above what the stub takes on a loaded
    machine, far below the 2 s the slow stub waits."""
    text = (policies_dir() / "code-completion.yaml").read_text()
    path = tmp / "completion-budget.yaml"
    path.write_text(text.replace("name: code-completion ", "name: completion-budget")
                    .replace("limit: 300                # milliseconds", "limit: 1500               # milliseconds"))
    return path


def generated_run(tmp: Path, stub: OpenAIStub, name: str) -> tuple[Store, str]:
    doc = {"version": 1, "name": name, "operator": "tester",
           "tasks": {"sets": [{"kind": "humaneval-infilling", "path": str(SINGLE), "task_ids": TASK_IDS}]},
           "candidates": {"source": "generate"},
           "generation": {"endpoint": stub.base_url, "model": "stub-coder-1b", "n_per_task": 2, "concurrency": 2,
                          "streaming": True, "request_timeout_s": 10,
                          "fim": {"mode": "template", "template": "starcoder"}},
           "execution": {"workers": 2, "timeout": {"calibrate": True, "floor_s": 3.0}},
           "gate": {"policy": "code-completion"}}
    path = tmp / f"{name}.yaml"
    path.write_text(yaml.safe_dump(doc))
    assert main(["freeze", str(path), "--in-place"]) == 0
    frozen = yaml.safe_load(path.read_text())
    assert frozen["generation"]["fim"]["format"] == "<fim_prefix>{prefix}<fim_suffix>{suffix}<fim_middle>"
    assert frozen["tasks"]["sets"][0]["sha256"] == file_sha256(SINGLE)
    db = tmp / "record.db"
    assert main(["--db", str(db), "run", "--quiet", str(path)]) == 0
    store = Store(db)
    return store, store.runs()[0]["run_id"]


def test_a_streamed_fim_run_reports_edits_and_latency_and_the_budget_decides(tmp_path, stub):
    store, fast = generated_run(tmp_path, stub, "fast")
    outcomes = {(o["task_id"], o["candidate_index"]): o["outcome"] for o in store.rows("outcomes", fast)}
    assert outcomes == {(t, i): ("passed" if i == 0 else "failed") for t in TASK_IDS for i in (0, 1)}
    sent = [entry["body"] for entry in stub.log]
    assert all(b["prompt"].startswith("<fim_prefix>") and "<|endoftext|>" in b["stop"] and b["stream"] for b in sent)

    report = build_report(store, fast)
    edits = report["edits"]["slices"][0]
    assert (edits["slice"], edits["candidates"], edits["exact_match"]) == ("single-line", 8, 0.5)
    assert edits["agreement"] == {"exact_passed": 4, "exact_failed": 0, "inexact_passed": 0, "inexact_failed": 4}
    latency = report["latency"]["slices"][0]
    assert latency["first_token_ms"]["n"] == latency["total_ms"]["n"] == 8
    assert latency["pass_at_1"]["value"] == 0.5
    assert report["generation"]["contract"]["fim"]["template"] == "starcoder"
    policy = str(budget_policy(tmp_path))
    fast_verdict = evaluate(store, fast, policy=policy)
    budget = next(c for c in fast_verdict.conditions if c.name == "latency_budget")
    assert budget.level in ("strong", "adequate") and "p90 time to first token" in budget.measured

    stub.first_token_s = 2.0                                # the same model, served slowly
    try:
        store, slow = generated_run(tmp_path, stub, "slow")
    finally:
        stub.first_token_s = 0.0
    slow_verdict = evaluate(store, slow, baseline=fast, policy=policy)
    budget = next(c for c in slow_verdict.conditions if c.name == "latency_budget")
    assert budget.level == "weak" and "past the budget of 1500 ms" in budget.sentence
    assert slow_verdict.consequence == "blocked"
    assert any(a.name == "latency_p90_rise" for a in slow_verdict.alerts)
    md = json.dumps(build_report(store, slow)["latency"])
    assert '"first_token_ms"' in md
