"""The verdict is CPython's verdict: each case through the real worker under gVisor gives what the
reference harness's one-process program gives in plain CPython (tests/core/semantics_cases.py),
for a candidate that passes and for a wrong variant; the cross-check runs that one-process program
in the sandbox too and agrees."""

from __future__ import annotations

import pytest

from passgate.core.sandbox.runner import TaskSpec
from tests.conftest import evaluate, sandbox_limits
from tests.core.semantics_cases import CASES, classic_program, plain_cpython_verdict

pytestmark = pytest.mark.docker
LIMITS = sandbox_limits(cpu_s=10.0, wall_s=60.0, memory_mb=768, output_keep_kb=4)


@pytest.fixture(scope="module")
def worker(docker_client):
    from passgate.core.sandbox.docker_runner import DockerRunner
    from tests.conftest import IMAGE
    runner = DockerRunner(image=IMAGE, runtime="runsc", client=docker_client,
                          limits=sandbox_limits(memory_mb=768, container_memory_mb=2048))
    w = runner.new_worker()
    yield w
    runner.close()


def spec(case) -> TaskSpec:
    return TaskSpec.build(f"Semantics/{case.name}", protected=f"candidate = {case.entry_point}\n" + case.tests)


@pytest.mark.parametrize("variant", ["good", "bad"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.category}-{c.name}")
def test_the_isolated_verdict_is_plain_cpythons(worker, case, variant):
    program = getattr(case, variant)
    cpython = plain_cpython_verdict(case, program)
    assert cpython == (variant == "good"), "the case itself is wrong: plain CPython disagrees with its label"
    res = evaluate(worker, spec(case), program, limits=LIMITS, timeout=300,
                   classic_program=classic_program(case, program))
    assert res.passed == cpython, f"{case.name}/{variant}: {res.protected.failure_class}: {res.protected.detail}"
    assert (res.classic.status == "passed") == cpython, f"classic: {res.classic.detail}"
    assert res.protected.failure_class != "infra_error"
    assert not [n for n in res.notes if "order" in n], res.notes


def test_a_failed_assert_names_its_line_and_what_the_candidate_returned(worker):
    case = next(c for c in CASES if c.name == "key_is_len")
    res = evaluate(worker, spec(case), case.bad, limits=LIMITS)
    assert res.protected.line == 2 and "candidate(['zz', 'a', 'yyy'], len)" in res.protected.source   # after `candidate = ...`
    assert "['a', 'yyy', 'zz']" in res.protected.returned and "line 2" in res.protected.detail
