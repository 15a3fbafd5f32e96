"""Security findings: the scanners on program text, their pins, and the insecure-choice slice run end to end."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from passgate.core.candidates.security_scan import check_pins, scan_programs
from passgate.core.errors import ConfigError
from passgate.core.export.formats import to_markdown
from passgate.core.gate import evaluate
from passgate.core.manifest import SecurityScanSpec, parse_manifest
from passgate.core.record.store import Store, verify_chain
from passgate.core.run.engine import start_run
from passgate.core.score.report import build_report

REPO = Path(__file__).resolve().parents[2]
SPEC = SecurityScanSpec()


def test_insecure_choices_are_found_and_named_with_rule_severity_line_and_scanner():
    program = ("import hashlib\nimport random\n\n\ndef f(pw, salt):\n"
               "    token = random.random()\n    return hashlib.md5(salt + pw).hexdigest(), token\n")
    found = scan_programs({"p": program}, SPEC)["p"].findings
    by_rule = {f.rule_id: f for f in found}
    assert by_rule["B324"].severity == "high" and by_rule["B324"].line == 7
    assert by_rule["B311"].severity == "low" and by_rule["B311"].scanner == "bandit 1.9.4"


def test_a_hard_coded_token_is_found_by_detect_secrets():
    found = scan_programs({"p": 'KEY = "sk_live_EXAMPLEEXAMPLEEXAMPLE000"\n'}, SPEC)["p"].findings
    assert [(f.rule_id, f.severity, f.scanner) for f in found] == [
        ("DS-stripe-access-key", "high", "detect-secrets 1.5.0")]


def test_a_nosec_comment_does_not_hide_a_finding_and_assert_is_not_one():
    program = "import pickle\n\n\ndef load(b):\n    assert b\n    return pickle.loads(b)  # nosec\n"
    rules = {f.rule_id for f in scan_programs({"p": program}, SPEC)["p"].findings}
    assert "B301" in rules and "B101" not in rules


def test_findings_in_the_tasks_preamble_are_not_the_candidates():
    preamble = "import subprocess\nsubprocess.call('ls', shell=True)\n"
    program = preamble + "def f():\n    return 1\n"
    assert scan_programs({"p": program}, SPEC, {"p": 2})["p"].findings == ()
    assert scan_programs({"p": program}, SPEC)["p"].findings


def test_a_program_that_does_not_parse_is_marked_not_a_finding():
    scan = scan_programs({"p": "def f(:\n"}, SPEC)["p"]
    assert scan.parsed is False and scan.findings == ()


def test_a_pin_other_than_the_installed_scanner_names_the_field():
    with pytest.raises(ConfigError, match="bandit 1.0.0 is pinned but 1.9.4 is installed") as err:
        check_pins(SecurityScanSpec(bandit="1.0.0"))
    assert err.value.field == "scoring.security.bandit"


def test_the_scan_pins_leave_existing_manifest_ids_unchanged_and_a_new_pin_changes_it():
    text = (REPO / "examples" / "humaneval-gpt35.yaml").read_text()
    plain = parse_manifest(text)
    assert plain.manifest_id == "m-cb20c5a165b37336"          # its id before scoring.security existed
    explicit = parse_manifest(text.replace("scoring:\n", "scoring:\n  security: {bandit: '1.9.4', "
                                                          "detect_secrets: '1.5.0'}\n"))
    assert explicit.manifest_id == plain.manifest_id and "security" not in plain.canonical()["scoring"]
    other = parse_manifest(text.replace("scoring:\n", "scoring:\n  security: {bandit: '1.8.0'}\n"))
    assert other.manifest_id != plain.manifest_id


def _run(tmp_path: Path, kind: str, store: Store) -> str:
    for name in ("security-choices.jsonl", f"security-choices-{kind}.jsonl", f"security-choices-{kind}.yaml"):
        shutil.copy(REPO / "examples" / name, tmp_path / name)
    return start_run(store, tmp_path / f"security-choices-{kind}.yaml")


@pytest.mark.docker
def test_the_insecure_choice_slice_passes_both_answers_and_the_scan_tells_them_apart(tmp_path):
    store = Store(tmp_path / "s.db")
    secure, insecure = _run(tmp_path, "secure", store), _run(tmp_path, "insecure", store)
    for rid in (secure, insecure):
        assert {o["outcome"] for o in store.rows("outcomes", rid)} == {"passed"}
        assert store.count("scans", rid) == 5 and verify_chain(store, rid) == []
    sec_ok = build_report(store, secure)["security"]
    assert sec_ok["overall"]["passing"]["with_findings"] == {"low": 0, "medium": 0, "high": 0}
    report = build_report(store, insecure, whatif=["secure=medium", "secure=high"])
    sec = report["security"]
    assert sec["overall"]["passing"] == {"candidates": 5, "with_findings": {"low": 5, "medium": 4, "high": 2},
                                         "rate": {"low": 1.0, "medium": 0.8, "high": 0.4}}
    assert {r["rule_id"] for r in sec["top_rules"]} == {"B505", "B305", "B324", "B311", "DS-stripe-access-key"}
    assert sec["examples"][0]["severity"] == "high" and sec["examples"][0]["code"]
    assert [w["pass_at_k"][0]["value"] for w in report["whatif"]] == pytest.approx([0.2, 0.6])
    assert "| security-choices | hand-written-insecure | passing | 5 | 5 (100.0%) |" in to_markdown(report)
    json.dumps(report, allow_nan=False)
    verdict = evaluate(store, insecure, baseline=secure)
    alert = next(a for a in verdict.alerts if a.name == "security_findings")
    assert alert.raised and alert.run == 0.8 and alert.baseline == 0.0 and alert.cap == "canary"
    assert verdict.consequence != "release"


def test_the_run_scan_scans_each_distinct_program_once_and_a_resumed_run_scans_nothing_again(tmp_path, monkeypatch):
    import hashlib
    from types import SimpleNamespace

    from passgate.core.manifest import ScoringContract
    from passgate.core.run import security
    store = Store(tmp_path / "s.db")
    same = "import hashlib\n\n\ndef f(x):\n    return hashlib.md5(x).hexdigest()\n"
    programs = [same, same, "def f(x):\n    return x\n"]
    store.append("candidates", [{"run_id": "r1", "task_id": "T/0", "candidate_index": i, "program": p,
                                 "program_sha256": hashlib.sha256(p.encode()).hexdigest()}
                                for i, p in enumerate(programs)])
    scanned = []
    real = security.scan_programs
    monkeypatch.setattr(security, "scan_programs", lambda progs, *a: scanned.extend(progs) or real(progs, *a))
    monkeypatch.setattr(security, "BATCH", 1)             # the two copies land in different batches
    ctx = SimpleNamespace(run_id="r1", manifest=SimpleNamespace(scoring=ScoringContract()), tasks={},
                          progress=lambda _p: None)
    assert security.scan_run(store, ctx) == 3 and len(scanned) == 2
    rows = {r["candidate_index"]: r for r in store.rows("scans", "r1")}
    assert rows[0]["max_severity"] == rows[1]["max_severity"] == "high" and rows[2]["findings"] == 0
    assert security.scan_run(store, ctx) == 0 and len(scanned) == 2
