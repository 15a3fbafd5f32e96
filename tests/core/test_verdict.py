"""The verdict on plain data: boundaries and sign-off, preflight failures, each evidence condition."""

import dataclasses
import json

import pytest

from passgate.core.gate import verdict
from passgate.core.gate.evidence import assess
from passgate.core.gate.facts import Contamination, Counts, DeclaredRelaxation, Finding, Score, SliceFact
from passgate.core.gate.policy import Policy
from tests.core.gate_kit import EGRESS_KEYS, PREFLIGHT, PROBE, checks, egress, facts, secure, signed


def relaxed_policy(p: Policy, boundary: str, **fields) -> Policy:
    """The policy with one boundary section replaced (the loader's checks do not apply here)."""
    section = dataclasses.replace(p.boundaries.get(boundary), **fields)
    return dataclasses.replace(p, boundaries=dataclasses.replace(p.boundaries, **{boundary: section}))


def condition(v, name):
    return next(c for c in v.conditions if c.name == name)


def state(v, boundary):
    return next(b for b in v.boundaries if b.boundary == boundary)


# ---- the healthy run -------------------------------------------------------------------------------------
def test_a_clean_run_on_the_secure_default_is_released():
    v = verdict(facts(), secure())
    assert (v.consequence, v.exit_code, v.risk, v.evidence) == ("release", 0, "low", "strong")
    assert v.reasons[0].startswith("Release: every boundary is at the secure default")
    assert [s.step for s in v.path] == ["model", "candidates", "runner", "sandbox", "tests", "records"]
    assert not any(s.relaxed for s in v.path)


def test_the_verdict_is_plain_json():
    v = verdict(signed(facts(), *EGRESS_KEYS), egress())
    d = json.loads(json.dumps(v.as_dict()))
    assert d["consequence"] == "canary" and d["exit_code"] == 3
    assert {"run_id", "policy", "consequence", "reasons", "risk", "risk_reasons", "evidence", "conditions",
            "boundaries", "path", "alerts", "score", "contamination"} <= set(d)
    assert d["score"]["width"] == pytest.approx(0.08)


# ---- relaxed policy, sign-off ----------------------------------------------------------------------------
def test_the_relaxed_policy_without_sign_off_is_blocked_naming_each_relaxation():
    v = verdict(facts(), egress())
    assert v.consequence == "blocked" and v.exit_code == 4
    assert {state(v, "network").status, state(v, "dependencies").status} == {"unsigned"}
    assert any("network relaxation to egress-allowlist (pypi-mirror.internal.example:443) has no sign-off" in r
               for r in v.reasons)
    assert any("passgate signoff r-good --boundary dependencies --policy product-egress-mirror" in r for r in v.reasons)


def test_the_relaxed_policy_with_sign_off_allows_a_canary_and_shows_the_relaxation():
    v = verdict(signed(facts(), *EGRESS_KEYS), egress())
    assert (v.consequence, v.risk) == ("canary", "medium")
    assert any(r.startswith("Risk is medium; policy product-egress-mirror releases at low risk only") for r in v.reasons)
    assert any("Signed-off relaxations in effect: network=egress-allowlist" in r for r in v.reasons)
    sandbox = next(s for s in v.path if s.step == "sandbox")
    assert sandbox.relaxed and sandbox.relaxations == EGRESS_KEYS
    net = state(v, "network")
    assert net.status == "signed" and net.signoff.reviewer == "bob" and net.justified_by == "policy"
    assert "runner implements network none only" in net.note


def test_a_sign_off_by_the_operator_does_not_count():
    v = verdict(signed(facts(), *EGRESS_KEYS, reviewer=" Alice "), egress())
    assert v.consequence == "blocked"
    assert "a sign-off by the operator does not count" in state(v, "network").sentence


def test_a_sign_off_for_other_terms_does_not_count():
    other = "network=egress-allowlist[evil.example:443]"
    v = verdict(signed(facts(), other, EGRESS_KEYS[1]), egress())
    assert state(v, "network").status == "unsigned" and v.consequence == "blocked"


def test_a_refusal_blocks_even_with_another_approval():
    f = signed(signed(facts(), *EGRESS_KEYS), EGRESS_KEYS[0], reviewer="carol", decision="refused")
    v = verdict(f, egress())
    assert state(v, "network").status == "refused" and v.consequence == "blocked"
    assert "refused by carol" in state(v, "network").sentence


def test_a_manifest_relaxation_beyond_the_policy_is_blocked_and_cannot_be_signed():
    f = facts(declared=(DeclaredRelaxation("network", "egress-allowlist", "we need the mirror"),))
    v = verdict(signed(f, "network=egress-allowlist"), secure())
    assert state(v, "network").status == "exceeds_policy" and v.consequence == "blocked"
    assert "the manifest declares egress-allowlist, which policy secure-default does not allow" in v.reasons[0]


def test_a_manifest_justification_is_shown_over_the_policy_one():
    f = facts(declared=(DeclaredRelaxation("network", "egress-allowlist", "ticket SEC-12: mirror only"),))
    v = verdict(signed(f, *EGRESS_KEYS), egress())
    assert state(v, "network").justified_by == "manifest" and v.consequence == "canary"


def test_an_unknown_declared_boundary_blocks():
    v = verdict(facts(declared=(DeclaredRelaxation("gpu", "shared", "faster"),)), secure())
    assert v.consequence == "blocked" and any("'gpu', which is not a boundary passgate knows" in r for r in v.reasons)


def test_packages_outside_the_policy_allow_list_are_blocked():
    f = signed(facts(packages=("pandas", "torch")), *EGRESS_KEYS)
    v = verdict(f, egress())
    assert state(v, "dependencies").status == "exceeds_policy"
    assert "torch" in state(v, "dependencies").sentence and v.consequence == "blocked"


def test_declared_packages_inside_the_allow_list_are_accepted():
    v = verdict(signed(facts(packages=("pandas",)), *EGRESS_KEYS), egress())
    assert state(v, "dependencies").status == "signed" and v.consequence == "canary"


# ---- runtime ------------------------------------------------------------------------------------------
def test_runc_under_the_secure_default_is_blocked():
    v = verdict(facts(runtime="runc"), secure())
    rt = state(v, "runtime")
    assert (rt.used, rt.status) == ("runc", "exceeds_policy")
    assert v.consequence == "blocked" and v.risk == "high"
    assert any("Runtime: the run used runc, which policy secure-default does not allow" in r for r in v.reasons)
    runner = next(s for s in v.path if s.step == "runner")
    assert runner.relaxed and runner.relaxations == ("runtime=runc",)


def test_runc_allowed_by_a_policy_needs_a_sign_off_and_then_takes_the_policy_consequence():
    runc_ok = relaxed_policy(secure(), "runtime", setting="runc", justification="gVisor lacks io_uring for task X")
    runc_ok = dataclasses.replace(runc_ok, consequence=dataclasses.replace(
        runc_ok.consequence, canary=dataclasses.replace(runc_ok.consequence.canary, max_risk="high")))
    assert verdict(facts(runtime="runc"), runc_ok).consequence == "blocked"
    v = verdict(signed(facts(runtime="runc"), "runtime=runc"), runc_ok)
    assert (v.consequence, v.risk, state(v, "runtime").status) == ("canary", "high", "signed")


# ---- preflight and self-probe checks --------------------------------------------------------------------
@pytest.mark.parametrize("source,name,saw,risk", [
    ("preflight", "no_host_mounts", "mounts ['/home/alice/src']", "critical"),
    ("preflight", "network_none", "network mode 'bridge'", "critical"),
    ("preflight", "environment_scrubbed", "environment keys ['AWS_SECRET_ACCESS_KEY', 'PATH']", "critical"),
    ("preflight", "canary_not_in_config", "planted canary FOUND in the container environment", "critical"),
    ("preflight", "image_pinned", "container image sha256:0000 (pinned sha256:abab)", "high"),
    ("preflight", "read_only_root", "ReadonlyRootfs=False", "high"),
    ("preflight", "runtime", "runtime 'runc' (manifest: 'runsc')", "critical"),
    ("probe", "canary_not_visible", "planted canary FOUND in 14 environment values", "critical"),
    ("probe", "docker_socket_absent", "docker sockets present: ['/var/run/docker.sock']", "critical"),
    ("probe", "no_route_public", "route to a public address: succeeded: 'connected'", "critical"),
    ("probe", "process_limit_enforced", "forked 500 with RLIMIT_NPROC 32", "high"),
])
def test_each_failed_boundary_check_blocks_with_what_it_saw(source, name, saw, risk):
    if source == "preflight":
        f = facts(preflight=checks(PREFLIGHT, "preflight", {name: saw}))
    else:
        f = facts(probe=checks(PROBE, "probe", {name: saw}))
    v = verdict(f, secure())
    assert v.consequence == "blocked" and v.exit_code == 4
    assert v.risk == risk
    assert any(name in r and saw in r for r in v.risk_reasons)
    assert condition(v, "boundary_self_probe").level == "invalid"
    assert any(saw in r for r in v.reasons)


def test_a_mount_makes_the_mounts_boundary_host_paths():
    f = facts(preflight=checks(PREFLIGHT, "preflight", {"no_host_mounts": "mounts ['/srv/repo']"}))
    mounts = state(verdict(f, secure()), "mounts")
    assert (mounts.used, mounts.status) == ("host-paths", "exceeds_policy")


def test_a_run_without_any_boundary_record_is_blocked_as_critical():
    v = verdict(facts(probe=(), preflight=()), secure())
    assert v.risk == "critical" and v.consequence == "blocked"
    assert state(v, "network").status == "unverified"


def test_an_image_other_than_the_pinned_one_is_high_risk():
    v = verdict(facts(image_digest="sha256:" + "cd" * 32), secure())
    assert v.risk == "high" and v.consequence == "blocked"
    assert "NOT the pinned digest" in next(s for s in v.path if s.step == "runner").used


# ---- evidence conditions, one by one ---------------------------------------------------------------------
def level(f, name, policy=None):
    _, conds = assess(f, policy or secure())
    return next(c for c in conds if c.name == name)


def test_evidence_run_not_completed_is_invalid():
    c = level(facts(status="interrupted", error="killed"), "run_completed")
    assert c.level == "invalid" and "interrupted" in c.sentence
    assert verdict(facts(status="interrupted"), secure()).consequence == "blocked"


def test_evidence_altered_records_are_invalid():
    f = facts(chain_findings=({"table": "outcomes", "rowid": 7, "key": {"task_id": "P/3"},
                               "reason": "row content does not match its hash"},))
    c = level(f, "records_intact")
    assert c.level == "invalid" and "outcomes row 7" in c.sentence
    assert verdict(f, secure()).consequence == "blocked"


@pytest.mark.parametrize("failed,expected", [(0, "strong"), (2, "adequate"), (10, "weak")])
def test_evidence_ground_truth_self_check(failed, expected):
    sc = {"ran": True, "references": 120, "passed": 120 - failed,
          "failed": [{"task_id": f"P/{i}", "class": "wrong_answer"} for i in range(failed)]}
    assert level(facts(selfcheck=sc), "ground_truth_selfcheck").level == expected


def test_evidence_self_check_not_run_is_at_most_adequate():
    assert level(facts(selfcheck={"ran": False, "reason": "calibration off"}), "ground_truth_selfcheck").level == "adequate"
    assert level(facts(selfcheck={}), "ground_truth_selfcheck").level == "weak"
    # a reference run that never got its summary is not a self-check that passed
    ref = {"ran": False, "reason": "the candidates are the references; their summary follows the run"}
    assert level(facts(selfcheck=ref), "ground_truth_selfcheck").level == "weak"


def test_a_reference_run_with_a_broken_reference_is_not_strong_and_names_it():
    sc = {"ran": True, "reference_run": True, "references": 200, "passed": 199,
          "failed": [{"task_id": "Product/7", "class": "wrong_answer", "detail": "assertion failed at line 3",
                      "known_defect": None}]}
    cond = level(facts(selfcheck=sc), "ground_truth_selfcheck")
    assert cond.level != "strong" and "Product/7" in cond.sentence and "wrong_answer" in cond.sentence


def test_failing_references_that_are_known_defects_keep_the_self_check_strong():
    sc = {"ran": True, "references": 378, "passed": 377,
          "failed": [{"task_id": "Mbpp/255", "class": "memory_exceeded", "known_defect": "too large"}]}
    cond = level(facts(selfcheck=sc), "ground_truth_selfcheck")
    assert cond.level == "strong" and "known defects: Mbpp/255" in cond.sentence


def test_evidence_missing_self_probe_is_invalid():
    assert level(facts(probe=()), "boundary_self_probe").level == "invalid"


def test_evidence_missing_protected_tests():
    f = facts(tasks_with_protected=100)
    assert level(f, "protected_tests").level == "adequate"
    v = verdict(f, secure())
    assert state(v, "protected_tests").status == "exceeds_policy" and v.consequence == "blocked"


def test_evidence_without_reruns():
    f = facts(rerun_policy="none", rerun_count=1)
    assert level(f, "rerun_stability").level == "adequate"
    assert state(verdict(f, secure()), "rerun_stability").status == "exceeds_policy"


@pytest.mark.parametrize("flaky,expected,consequence", [(1, "strong", "release"), (4, "adequate", "canary"),
                                                       (12, "weak", "blocked")])
def test_evidence_flaky_rate(flaky, expected, consequence):
    f = facts(counts=Counts(candidates=120, passed=84, failed=36 - flaky, flaky=flaky))
    assert level(f, "flaky_rate").level == expected
    assert verdict(f, secure()).consequence == consequence


@pytest.mark.parametrize("timeouts,expected", [(6, "strong"), (12, "adequate"), (30, "weak")])
def test_evidence_timeout_rate(timeouts, expected):
    f = facts(counts=Counts(candidates=120, passed=84, failed=36, timeouts=timeouts))
    assert level(f, "timeout_rate").level == expected


@pytest.mark.parametrize("infra,expected", [(1, "strong"), (5, "adequate"), (20, "weak")])
def test_evidence_infra_error_rate(infra, expected):
    f = facts(counts=Counts(candidates=120 + infra, passed=84, failed=36, infra_error=infra))
    assert level(f, "infra_error_rate").level == expected


def test_evidence_public_benchmarks_only_are_exposed_not_a_holdout():
    f = facts(slices=(SliceFact("humaneval", "humaneval", "humaneval", "exposed", 164),))
    c = level(f, "holdout_cleanliness")
    assert c.level == "adequate" and "exposed" in c.sentence
    v = verdict(f, secure())
    assert state(v, "holdout").used == "public-only" and v.consequence == "blocked"


def test_evidence_a_holdout_not_checked_against_a_corpus_is_adequate():
    f = facts(contamination=Contamination(corpus_checked=False, references_checked=True))
    assert level(f, "holdout_cleanliness").level == "adequate"
    assert verdict(f, secure()).consequence == "canary"


def test_evidence_a_finding_in_the_holdout_downgrades_to_weak():
    finding = Finding("P/7", "product", "holdout", "task_in_corpus", 0.42, 21, 50, "e.g. ...")
    f = facts(contamination=Contamination(corpus_checked=True, corpus="c", references_checked=True,
                                          findings=(finding,)))
    c = level(f, "holdout_cleanliness")
    assert c.level == "weak" and "P/7" in c.sentence
    assert verdict(f, secure()).consequence == "blocked"


def test_evidence_a_finding_in_an_exposed_slice_does_not_downgrade_the_holdout():
    finding = Finding("HumanEval/0", "humaneval", "exposed", "candidate_reproduces_reference", 1.0, 9, 9)
    f = facts(slices=facts().slices + (SliceFact("humaneval", "humaneval", "humaneval", "exposed", 164),),
              contamination=Contamination(corpus_checked=True, corpus="c", references_checked=True,
                                          findings=(finding,)))
    assert level(f, "holdout_cleanliness").level == "strong"


@pytest.mark.parametrize("tasks,expected", [(120, "strong"), (40, "adequate"), (10, "weak"), (0, "invalid")])
def test_evidence_sample_size(tasks, expected):
    assert level(facts(score=Score(0.7, 0.66, 0.74, 0.95, tasks)), "sample_size").level == expected


@pytest.mark.parametrize("low,high,expected", [(0.66, 0.74, "strong"), (0.62, 0.78, "adequate"),
                                               (0.5, 0.9, "weak"), (None, None, "weak")])
def test_evidence_interval_width(low, high, expected):
    assert level(facts(score=Score(0.7, low, high, 0.95, 120)), "interval_width").level == expected


def test_the_evidence_is_the_worst_condition_and_each_reason_is_a_sentence():
    f = facts(score=Score(0.7, 0.62, 0.78, 0.95, 40))
    v = verdict(f, secure())
    assert v.evidence == "adequate" and v.consequence == "canary"
    reason = next(r for r in v.reasons if r.startswith("Evidence is adequate"))
    assert "40 tasks have at least one counted candidate." in reason
    assert "(width 0.160)" in reason


def test_evidence_a_collapsed_interval_falls_back_to_the_wilson_width():
    small = level(facts(score=Score(1.0, 1.0, 1.0, 0.95, 6)), "interval_width")
    assert small.level == "weak" and "Wilson interval" in small.sentence
    assert level(facts(score=Score(1.0, 1.0, 1.0, 0.95, 164)), "interval_width").level == "strong"


def test_public_benchmarks_only_reach_a_canary_under_the_public_benchmark_policy():
    from passgate.core.gate.policy import load_policy
    public = load_policy("public-benchmark")
    f = facts(slices=(SliceFact("humaneval", "humaneval", "humaneval", "exposed", 164),),
              score=Score(0.7, 0.66, 0.74, 0.95, 164))
    assert verdict(f, public).consequence == "blocked"
    v = verdict(signed(f, "holdout=public-only"), public)
    assert (v.consequence, v.risk, v.evidence) == ("canary", "medium", "adequate")
    assert next(s for s in v.path if s.step == "tests").relaxations == ("holdout=public-only",)


def test_evidence_verdict_fidelity_is_weak_on_an_unexplained_disagreement():
    bad = {"task_id": "P/3", "candidate_index": 0, "isolated": {"status": "passed", "class": None, "detail": ""},
           "classic": {"status": "failed", "class": "wrong_answer", "detail": "AssertionError (line 9)"},
           "explained": None}
    fid = {"checked": 50, "agreed": 49, "rate": 0.98, "disagreements": [bad], "unexplained": 1}
    cond = level(facts(fidelity=fid), "verdict_fidelity")
    assert cond.level == "weak" and "P/3#0" in cond.sentence and "wrong_answer" in cond.sentence
    explained = dict(bad, explained="the isolated grader never compares an object that is not data")
    assert level(facts(fidelity=dict(fid, disagreements=[explained], unexplained=0)), "verdict_fidelity").level == "strong"


def test_evidence_without_a_cross_check_is_at_most_adequate():
    assert level(facts(fidelity={}, crosscheck="none"), "verdict_fidelity").level == "adequate"
    assert level(facts(fidelity={"checked": 0, "disagreements": []}), "verdict_fidelity").level == "adequate"
