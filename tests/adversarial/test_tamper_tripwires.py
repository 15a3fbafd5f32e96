"""Tamper tripwires through the real Docker + gVisor runner: each hostile kind recorded, verdicts
unchanged, and no tripwire for honest programs that use sys, gc and frame-taking library code."""

from __future__ import annotations

import pytest

from passgate.core.sandbox.runner import TAMPER_KINDS
from tests.adversarial.corpus import ADD_TASK
from tests.adversarial.tampering import HONEST, TAMPERING
from tests.conftest import evaluate, sandbox_limits


@pytest.fixture(scope="module")
def worker(gvisor_runner):
    w = gvisor_runner.new_worker()
    yield w
    w.close()


def grade(worker, program):
    lim = sandbox_limits()
    lim["wall_s"] = lim["cpu_s"] * lim["wall_factor"] + 2
    res = evaluate(worker, ADD_TASK, program, limits=lim)
    return ("passed" if res.passed else res.protected.failure_class), res


def test_every_tripwire_kind_has_a_hostile_candidate():
    assert {t.kind for t in TAMPERING} == set(TAMPER_KINDS)


@pytest.mark.docker
@pytest.mark.parametrize("case", TAMPERING, ids=lambda c: c.name)
def test_a_tampering_candidate_trips_its_wire_and_keeps_its_verdict(worker, case):
    verdict, res = grade(worker, case.program)
    assert verdict == case.verdict, res.protected.detail
    assert any(e.startswith(case.kind + ":") for e in res.tamper), res.tamper


@pytest.mark.docker
@pytest.mark.parametrize("name,program", HONEST, ids=[h[0] for h in HONEST])
def test_an_honest_candidate_using_sys_and_gc_trips_nothing(worker, name, program):
    verdict, res = grade(worker, program)
    assert verdict == "passed", res.protected.detail
    assert res.tamper == (), res.tamper
