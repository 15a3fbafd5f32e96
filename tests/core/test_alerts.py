"""Alerts against a baseline: each one raised and not raised, its cap applied to the verdict."""

import dataclasses

import pytest

from passgate.core.gate import BaselineMismatch, compare, verdict
from passgate.core.gate.facts import CanaryFacts, Contamination, Counts, Finding, Score, SecurityFacts
from tests.core.gate_kit import facts, per_task, secure


def pair(**run_over):
    base = facts(run_id="r-base")
    run = facts(**run_over)
    return run, base


def alert(alerts, name):
    return next(a for a in alerts if a.name == name)


def test_an_unchanged_run_raises_nothing():
    run, base = pair()
    alerts = compare(run, base, secure())
    assert not [a for a in alerts if a.raised]
    assert {a.name for a in alerts} == {"pass_at_1_drop", "pass_at_1_rise", "timeout_rate", "protected_test_gap",
                                        "sandbox_violations", "contamination_findings", "evaluator_flakiness",
                                        "security_findings", "tamper_events", "disallowed_imports"}
    assert verdict(run, secure(), alerts, baseline="r-base").consequence == "release"


def test_a_pass_at_1_drop_beyond_the_paired_interval_blocks():
    run, base = pair(per_task=per_task(120, 60), score=Score(0.5, 0.41, 0.59, 0.95, 120))
    alerts = compare(run, base, secure())
    a = alert(alerts, "pass_at_1_drop")
    assert a.raised and a.change == pytest.approx(-0.2) and a.interval[1] < 0
    assert "excludes zero" in a.sentence
    v = verdict(run, secure(), alerts, baseline="r-base")
    assert v.consequence == "blocked" and any(r.startswith("Alert pass_at_1_drop") for r in v.reasons)


def test_a_drop_inside_the_paired_interval_is_not_an_alert():
    run, base = pair(per_task=per_task(120, 82))
    a = alert(compare(run, base, secure()), "pass_at_1_drop")
    assert not a.raised and "includes zero" in a.sentence


def test_a_drop_smaller_than_the_policy_threshold_is_not_an_alert():
    p = secure()
    p = dataclasses.replace(p, alerts=dataclasses.replace(
        p.alerts, pass_at_1_drop=dataclasses.replace(p.alerts.pass_at_1_drop, threshold=0.25)))
    run, base = pair(per_task=per_task(120, 60))
    assert not alert(compare(run, base, p), "pass_at_1_drop").raised


def test_a_rise_is_reported_without_capping_the_release():
    run, base = pair(per_task=per_task(120, 110))
    alerts = compare(run, base, secure())
    assert alert(alerts, "pass_at_1_rise").raised
    assert verdict(run, secure(), alerts).consequence == "release"


def test_a_higher_timeout_rate_caps_at_canary():
    run, base = pair(counts=Counts(candidates=120, passed=84, failed=36, timeouts=5))
    alerts = compare(run, base, secure())
    a = alert(alerts, "timeout_rate")
    assert a.raised and a.change == pytest.approx(5 / 120)
    assert verdict(run, secure(), alerts).consequence == "canary"


def test_a_small_timeout_rise_within_the_threshold_is_not_raised():
    run, base = pair(counts=Counts(candidates=120, passed=84, failed=36, timeouts=2))
    assert not alert(compare(run, base, secure()), "timeout_rate").raised


def test_a_wider_protected_test_gap_caps_at_canary():
    run, base = pair(counts=Counts(candidates=120, passed=84, failed=36, public_graded=120, public_passed=110,
                                   protected_passed_of_public=84))
    a = alert(compare(run, base, secure()), "protected_test_gap")
    assert a.raised and a.baseline == pytest.approx(6 / 120) and a.run == pytest.approx(26 / 120)


def test_new_sandbox_violations_block():
    run, base = pair(counts=Counts(candidates=120, passed=84, failed=36, sandbox_violations=1))
    alerts = compare(run, base, secure())
    assert alert(alerts, "sandbox_violations").raised
    assert verdict(run, secure(), alerts).consequence == "blocked"


def test_new_contamination_findings_cap_at_canary():
    finding = Finding("HumanEval/3", "humaneval", "exposed", "candidate_reproduces_reference", 0.9, 9, 10)
    run, base = pair(contamination=Contamination(True, "c", True, 13, (finding,)))
    alerts = compare(run, base, secure())
    assert alert(alerts, "contamination_findings").raised
    assert verdict(run, secure(), alerts).consequence == "canary"


def test_contamination_measured_against_different_corpora_says_so():
    run, base = pair(contamination=Contamination(True, "other corpus", True))
    assert "different corpora" in alert(compare(run, base, secure()), "contamination_findings").sentence


def test_more_evaluator_flakiness_caps_at_canary():
    run, base = pair(counts=Counts(candidates=122, passed=84, failed=34, flaky=1, infra_error=2))
    a = alert(compare(run, base, secure()), "evaluator_flakiness")
    assert a.raised and a.run == pytest.approx(3 / 121)


def test_a_baseline_on_other_tasks_is_refused():
    run, base = pair()
    base = dataclasses.replace(base, per_task={**base.per_task, "P/999": (1, 1, "product", "h")})
    with pytest.raises(BaselineMismatch, match=r"different task set: 0 tasks only in r-good, 1 only in the baseline \(P/999\)"):
        compare(run, base, secure())


def test_a_baseline_whose_tasks_changed_content_is_refused():
    run, base = pair()
    changed = dict(base.per_task)
    changed["P/5"] = (1, 1, "product", "another-hash")
    with pytest.raises(BaselineMismatch, match="differ in content"):
        compare(run, dataclasses.replace(base, per_task=changed), secure())


def test_more_passing_candidates_with_security_findings_caps_at_canary_and_no_scan_compares_nothing():
    base = facts(run_id="r-base", security=SecurityFacts(True, "medium", passing=100, passing_with_findings=2))
    run = facts(security=SecurityFacts(True, "medium", passing=100, passing_with_findings=9))
    a = alert(compare(run, base, secure()), "security_findings")
    assert a.raised and a.change == pytest.approx(0.07) and a.cap == "canary"
    assert verdict(run, secure(), [a], baseline="r-base").consequence == "canary"
    unscanned = alert(compare(facts(), base, secure()), "security_findings")
    assert not unscanned.raised and "cannot be compared" in unscanned.sentence


def test_a_rise_in_tamper_tripwires_raises_its_alert():
    base = facts(run_id="r-base", tamper_candidates=0)
    a = alert(compare(facts(tamper_candidates=3), base, secure()), "tamper_events")
    assert a.raised and a.run > 0 and a.baseline == 0.0
    assert not alert(compare(facts(tamper_candidates=0), base, secure()), "tamper_events").raised


def test_any_canary_pass_blocks_under_the_secure_default_and_names_the_candidate():
    run = facts(canaries=CanaryFacts(tasks=3, candidates=3, passes=(("passgate-canary/add", 0),)))
    v = verdict(run, secure())
    assert v.consequence == "blocked"
    assert any("passgate-canary/add#0" in r and "canary task" in r for r in v.reasons)
    assert verdict(facts(canaries=CanaryFacts(tasks=3, candidates=3)), secure()).consequence == "release"
