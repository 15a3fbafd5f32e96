"""Repository tasks against the real sandbox: the examples' references and bad patches through
`passgate run` (Docker + gVisor), the report's repository section, the gate, and the allowlist image."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from passgate.cli.main import main
from passgate.core.record.store import Store

pytestmark = [pytest.mark.docker, pytest.mark.slow]

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _candidates() -> dict[tuple[str, int], dict]:
    counts: dict[str, int] = {}
    out = {}
    for line in (EXAMPLES / "repo" / "candidates.jsonl").read_text().splitlines():
        row = json.loads(line)
        index = counts.get(row["task_id"], 0)
        counts[row["task_id"]] = index + 1
        out[(row["task_id"], index)] = row
    return out


@pytest.fixture(scope="module")
def patches_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("repo")
    shutil.copytree(EXAMPLES / "repo", tmp / "repo")
    shutil.copy(EXAMPLES / "repo-patches.yaml", tmp / "repo-patches.yaml")
    db = tmp / "t.db"
    assert main(["--db", str(db), "run", str(tmp / "repo-patches.yaml")]) == 0
    store = Store(db, create=False)
    return store, store.runs()[0]["run_id"], tmp


def test_every_patch_gets_its_expected_class_and_no_bad_patch_passes(patches_run):
    store, run_id, _ = patches_run
    got = {(r["task_id"], r["candidate_index"]): r for r in store.query(
        "SELECT * FROM repo_results WHERE run_id = ? AND purpose = 'grade'", [run_id])}
    expected = _candidates()
    assert set(got) == set(expected)
    wrong = {k: (got[k]["failure_class"], e["expected_class"], got[k]["detail"]) for k, e in expected.items()
             if got[k]["failure_class"] != e["expected_class"]}
    assert wrong == {}
    outcomes = {(o["task_id"], o["candidate_index"]): o["outcome"] for o in store.rows("outcomes", run_id)}
    assert all(outcomes[k] == ("passed" if e["label"] == "reference" else "failed") for k, e in expected.items())


def test_references_pass_every_protected_test_and_roll_back(patches_run):
    store, run_id, _ = patches_run
    refs = list(store.query("SELECT * FROM repo_results WHERE run_id = ? AND purpose = 'selfcheck'", [run_id]))
    assert len(refs) == 12
    for r in refs:
        tests = json.loads(r["protected_tests_json"])
        assert r["failure_class"] is None and "passed" in tests.values(), r["task_id"]
        assert set(tests.values()) <= {"passed", "xfailed", "skipped"}, r["task_id"]
        assert (r["applies"], r["rollback_applies"], r["rollback_restores"], r["build_status"]) == (1, 1, 1, "passed")
    selfcheck = json.loads(store.run(run_id)["selfcheck_json"])
    assert (selfcheck["references"], selfcheck["passed"]) == (12, 12)


def test_flags_findings_report_and_gate(patches_run, capsys):
    store, run_id, tmp = patches_run
    rows = {r["candidate_index"]: r for r in store.query(
        "SELECT * FROM repo_results WHERE run_id = ? AND purpose = 'grade'", [run_id]) if r["task_id"] ==
        "semver-match-less-than"}
    assert rows[1]["dependency_files_changed"] == 1 and "requests" in rows[1]["detail"]
    assert main(["--db", str(tmp / "t.db"), "report", run_id, "--json", str(tmp / "r.json")]) == 0
    repo = json.loads((tmp / "r.json").read_text())["repository"]
    assert repo["totals"]["candidates"] == 20 and repo["totals"]["passed"] == 12
    assert repo["totals"]["refused"] == 2 and repo["totals"]["secrets"] == 1
    flagged = {(t["task_id"], t["label"].split("(")[-1].rstrip(")")) for t in repo["tampering"]}
    assert {("cachetools-typedkey-kwargs", "edits-a-test"), ("toolz-partition-all-tail",
                                                             "conftest-rewrites-reports")} <= flagged
    assert all(e["median_reviewer_burden"] for e in repo["tasks"])
    assert main(["--db", str(tmp / "t.db"), "report", run_id, "--markdown", "-"]) == 0
    markdown = capsys.readouterr().out
    assert "## Repository tasks" in markdown and "conftest.py (refused)" in markdown
    code = main(["--db", str(tmp / "t.db"), "gate", run_id])
    out = capsys.readouterr().out
    assert code == 4 and "tampered with tests" in out


def test_allowlist_image_is_reproducible_and_pinned(docker_client):
    from passgate.core.errors import DriftError
    from passgate.core.manifest import load_manifest
    from passgate.core.sandbox.packages import build_allowlist_image, check_allowlist_image
    manifest, _ = load_manifest(EXAMPLES / "repo-reference.yaml")
    ex = manifest.execution
    first = build_allowlist_image(docker_client, ex.base_image, ex.packages, tag=ex.image + "-again", log=lambda _m: None)
    second = build_allowlist_image(docker_client, ex.base_image, ex.packages, tag=ex.image + "-again",
                                   log=lambda _m: None)
    assert first[1] == second[1] == ex.image_digest
    docker_client.images.remove(ex.image + "-again")
    assert "pytest==8.3.3" in check_allowlist_image(docker_client, ex.image, ex.packages, ex.base_image_digest)
    with pytest.raises(DriftError, match="holds the allowlist"):
        check_allowlist_image(docker_client, ex.image, ex.packages[:2], ex.base_image_digest)
    with pytest.raises(DriftError, match="holds the allowlist"):
        check_allowlist_image(docker_client, ex.base_image, ex.packages, ex.base_image_digest)
    from passgate.core.sandbox.docker_runner import DockerRunner
    from tests.conftest import sandbox_limits
    base = DockerRunner(image=ex.base_image, runtime="runsc", limits=sandbox_limits(), client=docker_client)
    with pytest.raises(DriftError, match="image digest differs"):
        base.check(ex.image_digest)


REWRITES_ITS_TEST = '''\
--- a/inflection/__init__.py
+++ b/inflection/__init__.py
@@ -194,6 +194,11 @@
         'Author'

     """
+    import os
+    test = os.path.join(os.path.dirname(os.path.dirname(__file__)), "test_inflection.py")
+    os.chmod(test, 0o644)
+    with open(test, "a") as fh:
+        fh.write("# every test passed\\n")
     word = word.replace('_', ' ')
     word = re.sub(r"(?i)([a-z\\d]*)", lambda m: m.group(1).lower(), word)
     word = re.sub(r"^\\w", lambda m: m.group(0).upper(), word)
'''


def test_a_patch_that_rewrites_a_protected_test_is_tampering(tmp_path):
    import hashlib
    shutil.copytree(EXAMPLES / "repo", tmp_path / "repo")
    (tmp_path / "c.jsonl").write_text(json.dumps({"task_id": "inflection-humanize-id", "patch": REWRITES_ITS_TEST}) + "\n")
    text = (EXAMPLES / "repo-patches.yaml").read_text()
    sha = hashlib.sha256((tmp_path / "c.jsonl").read_bytes()).hexdigest()
    text = text.replace("      path: repo/tasks.jsonl\n", "      path: repo/tasks.jsonl\n      task_ids: [inflection-humanize-id]\n")
    text = text.replace("    path: repo/candidates.jsonl\n", "    path: c.jsonl\n")
    text = "\n".join(f"    sha256: {sha}" if line.startswith("    sha256:") else line for line in text.splitlines()) + "\n"
    (tmp_path / "m.yaml").write_text(text)
    assert main(["--db", str(tmp_path / "t.db"), "run", str(tmp_path / "m.yaml")]) == 0
    store = Store(tmp_path / "t.db", create=False)
    row = next(store.query("SELECT * FROM repo_results WHERE purpose = 'grade'"))
    assert row["failure_class"] == "tampering" and "changed during the protected run" in row["detail"]
