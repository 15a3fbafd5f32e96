"""Hostile candidates against grading protocol 3 (tests/adversarial/protocol3.py), each graded by the
real Docker + gVisor worker: none may pass (except where the test itself leaves an assertion to the
process, and then only with the result's `integrity` saying so), none may end as `infra_error`, and
the worker must survive each of them. The honest program of every task passes and its wrong one
fails in the same worker, so the corpus can tell a pass from a failure.
"""

from __future__ import annotations

import types

import pytest

from passgate.core.model import FAILURE_CLASSES
from passgate.core.sandbox.runner import WorkerLost
from tests.adversarial.protocol3 import ADD_GOOD, ADD_PROTECTED, ADD_TASK, CASES, CONTROLS, EXPECTED_LITERALS
from tests.conftest import evaluate, sandbox_limits

RESULTS: list[tuple[str, str, bool, bool]] = []      # (case, verdict, as expected, false pass)
VERDICTS = frozenset(FAILURE_CLASSES) - {"infra_error"}


class _Worker:
    """One worker for the whole module, replaced (and the loss recorded) when a case takes it down."""

    def __init__(self, runner):
        self.runner, self.current, self.lost = runner, runner.new_worker(), []

    def grade(self, task, program, **limits):
        lim = sandbox_limits(**limits)
        lim["wall_s"] = lim["cpu_s"] * lim["wall_factor"] + 2
        try:
            return evaluate(self.current, task, program, limits=lim)
        except WorkerLost as lost:
            self.lost.append(str(lost)[:300])
            self.current.close()
            self.current = self.runner.new_worker()
            return None

    def close(self):
        self.current.close()


@pytest.fixture(scope="module")
def worker(gvisor_runner):
    w = _Worker(gvisor_runner)
    yield w
    w.close()


def verdict_of(res):
    """"passed", or the failure class (one a forged report put outside the vocabulary is marked so)."""
    if res is None:
        return "worker_lost"
    if res.passed:
        return "passed"
    cls = str(res.protected.failure_class)
    return cls if cls in VERDICTS or cls == "infra_error" else f"unknown class {cls!r}"


def _consts(code):
    out, stack = [], [code]
    while stack:
        c = stack.pop()
        for k in c.co_consts:
            (stack.append(k) if isinstance(k, types.CodeType) else out.append(k))
    return out


def test_the_expected_literals_never_reach_the_process():
    """What the guessing cases rely on: the process's code of the ADD task holds none of its expected values."""
    from passgate.core.sandbox.program.split import split_test
    split = split_test(ADD_PROTECTED)
    consts = _consts(compile(split.tree, "<test>", "exec"))
    assert not [c for c in consts if type(c) is int and c in EXPECTED_LITERALS], consts
    assert split.counts()["hidden"] == 9 and split.regions == 0


@pytest.mark.parametrize("control", CONTROLS, ids=lambda c: c[0])
def test_the_honest_program_passes_and_the_wrong_one_fails(worker, control):
    _name, task, good, wrong = control
    res = worker.grade(task, good)
    assert verdict_of(res) == "passed", res and res.protected.detail
    res = worker.grade(task, wrong)
    assert verdict_of(res) == "wrong_answer", res and res.protected.detail


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.group}-{c.name}")
def test_a_hostile_candidate_does_not_pass(worker, case):
    res = worker.grade(case.task, case.program, **dict(case.limits))
    verdict = verdict_of(res)
    integrity = dict(res.protected.integrity) if res is not None else {}
    # "control": the test's own control flow ran in the process (`if x != 3345: raise` keeps the value
    # there, as CPython does); the verdict says so and the gate counts it like an in-process decision
    counted = case.may_pass_if is not None and (integrity.get("control") == "process" if case.may_pass_if == "control"
                                                 else integrity.get(case.may_pass_if, 0) > 0)
    false_pass = verdict == "passed" and not counted
    as_expected = verdict in case.expect or (verdict == "passed" and counted)
    RESULTS.append((case.name, verdict, as_expected, false_pass))
    detail = "" if res is None else f"{res.protected.detail} integrity={integrity}"
    if res is None:
        detail = f"the worker was lost: {worker.lost[-1]}"
    assert not false_pass, f"{case.name} passed: {detail}"
    assert verdict not in ("infra_error", "worker_lost"), f"{case.name} left the score: {verdict}: {detail}"
    assert verdict == "passed" or verdict in VERDICTS, f"{case.name}: a class outside the vocabulary: {verdict}"
    assert as_expected, f"{case.name}: got {verdict}: {detail}"
    if verdict == "passed":       # decided where the candidate could decide it, and counted there
        assert integrity.get("control") == "process" or case.may_pass_if == "visible", integrity
    # the next candidate in the same worker is unharmed
    after = worker.grade(ADD_TASK, ADD_GOOD)
    assert verdict_of(after) == "passed", after and after.protected.detail


def test_zz_protocol3_corpus_summary(capsys):
    """Prints the count for CI logs: N/N cases as expected, 0 false passes."""
    expected = sum(1 for r in RESULTS if r[2])
    false_passes = [r[0] for r in RESULTS if r[3]]
    with capsys.disabled():
        print(f"\nprotocol 3 corpus: {expected}/{len(RESULTS)} cases as expected, {len(false_passes)} false passes")
        for name, verdict, ok, _ in RESULTS:
            if not ok:
                print(f"  unexpected: {name} -> {verdict}")
    assert len(RESULTS) == len(CASES), "run the whole module to get the corpus count"
    assert expected == len(CASES) and not false_passes
