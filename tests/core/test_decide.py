"""When a candidate is decided: infra retries, timeout rechecks, reruns and flakiness (plain data)."""

import itertools

from passgate.core.run.decide import Attempt, Final, Need, Policy, decide, recheck_would_follow


def att(protected="passed", cls=None, purpose="grade", status="ok", public="passed", detail=""):
    return Attempt(status=status, purpose=purpose, public_status=public, protected_status=protected,
                   failure_class=cls, detail=detail, oom_killed="OOM-killed" in detail)


INFRA = dict(status="infra_error", protected="not_run", public="not_run", cls="infra_error")


def test_no_attempt_means_not_started():
    assert decide([], Policy()) is None


def test_one_pass_is_final_under_the_default_policy():
    d = decide([att()], Policy())
    assert isinstance(d, Final) and d.outcome == "passed" and d.protected_passed == 1 and d.public_passed == 1


def test_infra_errors_are_retried_then_reported_apart():
    p = Policy(infra_retries=2)
    assert decide([att(**INFRA)], p) == Need("infra_retry")
    assert decide([att(**INFRA)] * 2, p) == Need("infra_retry")
    d = decide([att(**INFRA)] * 3, p)
    assert d.outcome == "infra_error" and d.protected_passed == 0


def test_an_infra_error_then_a_model_verdict_counts_the_model_verdict():
    d = decide([att(**INFRA), att("failed", "wrong_answer", public="failed")], Policy())
    assert d.outcome == "failed" and d.failure_class == "wrong_answer" and d.attempts == 2


def test_a_timeout_is_rerun_alone_before_it_is_final():
    p = Policy()
    assert decide([att("failed", "timeout")], p) == Need("timeout_recheck")
    passed_alone = decide([att("failed", "timeout"), att(purpose="timeout_recheck")], p)
    assert passed_alone.outcome == "passed" and "decided by a run alone" in passed_alone.reason
    still = decide([att("failed", "timeout"), att("failed", "timeout", purpose="timeout_recheck")], p)
    assert still.outcome == "failed" and still.failure_class == "timeout" and "again" in still.reason


def test_a_recheck_lost_to_the_evaluator_is_retried_as_a_recheck_and_still_replaces_the_timeout():
    p = Policy(infra_retries=2)
    timeout = att("failed", "timeout", public="not_run")
    lost = att(**INFRA, purpose="timeout_recheck")
    assert decide([timeout, lost], p) == Need("timeout_recheck")      # alone again, not in the pool
    d = decide([timeout, lost, att(purpose="timeout_recheck")], p)
    assert d.outcome == "passed" and d.public_passed == 1 and "decided by a run alone" in d.reason
    d = decide([timeout, lost, att(**INFRA, purpose="timeout_recheck"), att("failed", "timeout", public="failed",
                                                                          purpose="timeout_recheck")], p)
    assert d.outcome == "failed" and d.failure_class == "timeout" and d.public_passed == 0


def test_a_failure_stands_when_the_attempt_the_policy_asks_for_is_lost_to_the_evaluator():
    p = Policy(infra_retries=1)
    d = decide([att("failed", "timeout", public="not_run"), att(**INFRA, purpose="timeout_recheck"),
                att(**INFRA, purpose="timeout_recheck")], p)
    assert (d.outcome, d.failure_class, d.protected_passed) == ("failed", "timeout", 0)
    assert "the timeout recheck was lost to the evaluator 2 times" in d.reason
    p = Policy(rerun_policy="failures", rerun_count=2, infra_retries=1)
    d = decide([att("failed", "wrong_answer"), att(**INFRA, purpose="rerun"), att(**INFRA)], p)
    assert (d.outcome, d.failure_class) == ("failed", "wrong_answer") and "rerun was lost" in d.reason


def test_a_pass_the_policy_cannot_confirm_is_an_infra_error_not_a_pass():
    p = Policy(rerun_policy="all", rerun_count=2, infra_retries=1)
    d = decide([att(), att(**INFRA, purpose="rerun"), att(**INFRA)], p)
    assert isinstance(d, Final) and d.outcome == "infra_error" and d.protected_passed == 0
    assert "rerun was lost to the evaluator 2 times" in d.reason


def test_each_needed_attempt_gets_its_own_infra_retries():
    p = Policy(infra_retries=2)
    history = [att(**INFRA), att(**INFRA), att("failed", "timeout", purpose="infra_retry", public="not_run"),
               att(**INFRA, purpose="timeout_recheck")]
    assert decide(history, p) == Need("timeout_recheck")


def test_a_recheck_that_gets_its_sandbox_killed_for_memory_twice_fails_for_memory():
    oom = dict(INFRA, detail="container exited with 137, OOM-killed", purpose="timeout_recheck")
    d = decide([att("failed", "timeout", public="not_run"), att(**oom), att(**oom)], Policy(infra_retries=5))
    assert (d.outcome, d.failure_class) == ("failed", "memory_exceeded")


def test_the_public_suite_is_skipped_after_a_timeout_only_when_a_recheck_will_replace_the_attempt():
    assert recheck_would_follow([], "grade", Policy())
    assert not recheck_would_follow([], "grade", Policy(recheck_timeouts=False))
    assert not recheck_would_follow([att("failed", "timeout"), att("failed", "timeout", purpose="timeout_recheck")],
                                    "rerun", Policy(rerun_policy="all"))
    assert not recheck_would_follow([att("failed", "timeout")], "timeout_recheck", Policy())
    lost = att(**INFRA, purpose="timeout_recheck")
    assert not recheck_would_follow([att("failed", "timeout"), lost], "timeout_recheck", Policy())
    assert recheck_would_follow([att(**INFRA)], "infra_retry", Policy())


def test_rerun_policy_all_asks_for_every_attempt_and_disagreement_is_flaky():
    p = Policy(rerun_policy="all", rerun_count=3)
    assert decide([att()], p) == Need("rerun")
    assert decide([att(), att(purpose="rerun")], p) == Need("rerun")
    d = decide([att(), att("failed", "wrong_answer", purpose="rerun"), att(purpose="rerun")], p)
    assert d.outcome == "flaky" and d.protected_passed == 0 and d.failure_class == "wrong_answer"


def test_rerun_policy_failures_reruns_only_failures():
    p = Policy(rerun_policy="failures", rerun_count=2)
    assert isinstance(decide([att()], p), Final)
    assert decide([att("failed", "wrong_answer")], p) == Need("rerun")


def test_public_verdict_is_unknown_when_the_task_has_no_public_tests():
    d = decide([att(public="not_run")], Policy())
    assert d.public_passed is None


def test_a_candidate_that_kills_its_sandbox_for_memory_twice_fails_for_memory():
    oom = dict(INFRA, detail="container exited with 137, OOM-killed")
    d = decide([att(**oom), att(**oom)], Policy(infra_retries=5))
    assert d.outcome == "failed" and d.failure_class == "memory_exceeded"


def test_skipping_the_public_suite_agrees_with_decide_on_every_short_history():
    """Whenever the grader is told a recheck will follow, a timeout in that attempt is in fact
    re-checked (so its skipped public suite is never what decides the candidate), and the other way."""
    kinds = [att(), att("failed", "timeout", public="not_run"), att("failed", "wrong_answer"),
             att(**INFRA), att(purpose="timeout_recheck"), att(**INFRA, purpose="timeout_recheck")]
    for policy in (Policy(), Policy(rerun_policy="all", rerun_count=3), Policy(recheck_timeouts=False)):
        for n in range(4):
            for history in itertools.product(kinds, repeat=n):
                step = decide(list(history), policy)
                if history and not isinstance(step, Need):
                    continue
                purpose = "grade" if not history else step.purpose
                timeout = att("failed", "timeout", purpose=purpose, public="not_run")
                after = decide(list(history) + [timeout], policy)
                assert recheck_would_follow(list(history), purpose, policy) == (after == Need("timeout_recheck")), \
                    (policy, history, purpose, after)


def test_a_timeout_the_host_confirmed_is_final_without_a_recheck():
    from dataclasses import replace
    timeout = replace(att(protected="failed", cls="timeout"), timeout_confirmed=True)
    final = decide([timeout], Policy())
    assert isinstance(final, Final) and (final.outcome, final.failure_class) == ("failed", "timeout")
    assert decide([att(protected="failed", cls="timeout")], Policy()) == Need("timeout_recheck")


def test_a_sandbox_lost_twice_while_a_known_good_probe_passes_is_the_candidates_crash():
    from dataclasses import replace
    lost = replace(att(protected="not_run", cls="infra_error", status="infra_error"), probe_passed=True)
    evaluator = replace(lost, probe_passed=False)
    assert decide([lost], Policy()) == Need("infra_retry")
    final = decide([lost, lost], Policy())
    assert (final.outcome, final.failure_class) == ("failed", "sandbox_crash")
    final = decide([evaluator, evaluator, evaluator], Policy())
    assert (final.outcome, final.failure_class) == ("infra_error", "infra_error")
