"""Hostile candidates against the grader's new channels (handles, copy-back, back-references, digests,
frames), through the real Docker + gVisor runner: none may pass, none may end as infra_error, and
an honest candidate that uses every handle passes in the same worker afterwards."""

from __future__ import annotations

import pytest

from tests.adversarial.callbacks import CALLBACK_CASES, HONEST, HONEST_TASK, SECRET_TASK
from tests.conftest import evaluate, sandbox_limits

RESULTS: list[tuple[str, str, bool]] = []


@pytest.fixture(scope="module")
def worker(gvisor_runner):
    w = gvisor_runner.new_worker()
    yield w
    w.close()


def verdict(res):
    return "passed" if res.passed else res.protected.failure_class


def test_an_honest_candidate_uses_every_handle_and_passes(worker):
    res = evaluate(worker, HONEST_TASK, HONEST)
    assert res.passed, res.protected.detail


@pytest.mark.parametrize("case", CALLBACK_CASES, ids=lambda c: c.name)
def test_a_hostile_candidate_cannot_climb_out_through_a_handle(worker, case):
    res = evaluate(worker, SECRET_TASK, case.program, limits=sandbox_limits(cpu_s=2.0, wall_s=8.0, memory_mb=768,
                                                                           container_memory_mb=1536))
    got = verdict(res)
    # under grading protocol 3 a forged report is the process's own frame at a site it did not reach: tampering
    expect = case.expect | {"tampering"}
    RESULTS.append((case.name, got, got in expect))
    assert got != "passed", f"{case.name} passed: {res.protected.detail}"
    assert got != "infra_error", f"{case.name} left the score: {res.protected.detail}"
    assert got in expect, f"{case.name}: {got}: {res.protected.detail}"
    assert evaluate(worker, HONEST_TASK, HONEST).passed


def test_zz_callback_corpus_summary(capsys):
    with capsys.disabled():
        print(f"\ncallback corpus: {sum(ok for *_, ok in RESULTS)}/{len(RESULTS)} as expected, "
              f"{sum(v == 'passed' for _, v, _ in RESULTS)} false passes")
    assert len(RESULTS) == len(CALLBACK_CASES) and all(ok for *_, ok in RESULTS)


def test_a_candidate_cannot_shadow_the_builtins_the_test_calls(worker):
    from tests.adversarial.callbacks import SHADOW_TASK, SHADOWING
    res = evaluate(worker, SHADOW_TASK, SHADOWING)
    assert not res.passed and res.protected.failure_class == "wrong_answer"
    assert evaluate(worker, SHADOW_TASK, "def double(x):\n    return 2 * x\n").passed
