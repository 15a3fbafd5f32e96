"""The gate over real runs: HumanEval and a product holdout slice graded in gVisor, then judged.

One 30-task reference run (24 HumanEval tasks, 6 product holdout tasks) is recorded once for the
module; a 3-task run under runc shows the runtime boundary. Both use the real Docker engine.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from passgate.cli.main import main
from passgate.core.record.store import Store

pytestmark = [pytest.mark.docker, pytest.mark.slow]

FIXTURE = Path(__file__).parent / "fixtures" / "gate-product-holdout.jsonl"
HUMANEVAL_SHA256 = "b796127e635a67f93fb35c04f4cb03cf06f38c8072ee7cee8833d7bee06979ef"
MANIFEST = """\
version: 1
name: gate-real-run
operator: alice
tasks:
  sets:
    - kind: humaneval
      sha256: {humaneval_sha}
      task_ids: [{humaneval_ids}]
    - kind: product
      path: gate-product-holdout.jsonl
      sha256: {product_sha}
      exposure: holdout
candidates:
  source: reference
  model: {{name: reference}}
execution:
  runtime: {runtime}
  image_digest: {digest}
  workers: 2
  timeout: {{calibrate: false}}
  reruns: {{policy: failures, count: 2}}
gate:
  policy: secure-default
"""


def record(tmp: Path, digest: str, *, runtime: str = "runsc", humaneval: int = 24) -> tuple[Path, str]:
    from passgate.core.tasks.io import file_sha256
    tmp.mkdir(parents=True, exist_ok=True)
    shutil.copy(FIXTURE, tmp / FIXTURE.name)
    ids = ", ".join(f"HumanEval/{i}" for i in range(humaneval))
    (tmp / "manifest.yaml").write_text(MANIFEST.format(humaneval_sha=HUMANEVAL_SHA256, humaneval_ids=ids,
                                                       product_sha=file_sha256(FIXTURE), runtime=runtime,
                                                       digest=digest))
    db = tmp / "record.db"
    assert main(["--db", str(db), "run", "--quiet", str(tmp / "manifest.yaml")]) == 0
    return db, Store(db).runs()[0]["run_id"]


@pytest.fixture(scope="module")
def real_run(tmp_path_factory, image_digest):
    return record(tmp_path_factory.mktemp("gate-real"), image_digest)


def gate(db, run_id, capsys, *args) -> tuple[int, dict]:
    code = main(["--db", str(db), "gate", run_id, "--json", *args])
    return code, json.loads(capsys.readouterr().out)


def test_secure_default_over_a_real_run_gives_a_canary_and_says_exactly_why(real_run, capsys):
    db, run_id = real_run
    code, v = gate(db, run_id, capsys)
    assert (code, v["consequence"], v["risk"], v["evidence"]) == (3, "canary", "low", "adequate")
    assert all(b["status"] == "secure" for b in v["boundaries"])
    below = {c["name"] for c in v["conditions"] if c["level"] != "strong"}
    assert below == {"holdout_cleanliness", "sample_size", "interval_width"}
    (reason,) = v["reasons"]
    assert "releases on strong evidence only" in reason and "30 tasks have at least one counted candidate" in reason
    slices = {s["step"]: s for s in v["path"]}["tests"]["used"]
    assert "humaneval (exposed, 24 tasks)" in slices and "acme-holdout (holdout, 6 tasks)" in slices
    runner = {s["step"]: s for s in v["path"]}["runner"]
    assert "runtime runsc (gVisor)" in runner["used"] and "pinned and matching" in runner["used"]


def test_a_holdout_task_found_in_the_corpus_blocks_and_exposed_findings_are_only_reported(real_run, tmp_path, capsys):
    db, run_id = real_run
    store = Store(db)
    prompts = {r["task_id"]: r["prompt"] for r in store.rows("tasks", run_id)}
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "scraped.jsonl").write_text(json.dumps({"text": prompts["acme/mask_account"]}) + "\n"
                                          + json.dumps({"text": prompts["HumanEval/3"]}) + "\n")
    code, v = gate(db, run_id, capsys, "--corpus", str(corpus))
    assert code == 4 and v["consequence"] == "blocked"
    found = {(f["task_id"], f["exposure"]) for f in v["contamination"]["findings"]}
    assert found == {("acme/mask_account", "holdout"), ("HumanEval/3", "exposed")}
    holdout = next(c for c in v["conditions"] if c["name"] == "holdout_cleanliness")
    assert holdout["level"] == "weak" and "acme/mask_account" in holdout["sentence"]
    assert "HumanEval/3" not in holdout["sentence"]


def test_the_relaxed_policy_blocks_without_sign_off_and_gives_a_canary_with_it(real_run, capsys):
    db, run_id = real_run
    code, v = gate(db, run_id, capsys, "--policy", "product-egress-mirror")
    assert code == 4 and [b["status"] for b in v["boundaries"] if b["relaxed"]] == ["unsigned", "unsigned"]

    def sign(boundary, reviewer):
        return main(["--db", str(db), "signoff", run_id, "--policy", "product-egress-mirror", "--boundary", boundary,
                     "--reviewer", reviewer, "--statement", f"{boundary} reviewed against the mirror runbook"])

    assert sign("network", "alice") == 2                      # the operator cannot review their own run
    assert sign("network", "bob") == 0 and sign("dependencies", "carol") == 0
    capsys.readouterr()
    code, v = gate(db, run_id, capsys, "--policy", "product-egress-mirror")
    assert (code, v["consequence"], v["risk"]) == (3, "canary", "medium")
    net = next(b for b in v["boundaries"] if b["boundary"] == "network")
    assert net["status"] == "signed" and net["signoff"]["reviewer"] == "bob" and net["used"] == "none"
    sandbox = next(s for s in v["path"] if s["step"] == "sandbox")
    assert sandbox["relaxed"] and "network=egress-allowlist[pypi-mirror.internal.example:443]" in sandbox["relaxations"]
    assert any(r.startswith("Risk is medium; policy product-egress-mirror releases at low risk only") for r in v["reasons"])
    assert main(["--db", str(db), "verify", run_id]) == 0


def test_a_real_run_under_runc_is_blocked_by_the_secure_default(tmp_path, image_digest, capsys):
    db, run_id = record(tmp_path, image_digest, runtime="runc", humaneval=3)
    capsys.readouterr()
    code, v = gate(db, run_id, capsys)
    assert code == 4 and v["risk"] == "high"
    runtime = next(b for b in v["boundaries"] if b["boundary"] == "runtime")
    assert (runtime["used"], runtime["status"]) == ("runc", "exceeds_policy")
    assert any("Runtime: the run used runc, which policy secure-default does not allow" in r for r in v["reasons"])
