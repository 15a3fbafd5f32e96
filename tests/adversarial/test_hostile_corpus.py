"""Every hostile candidate through the real Docker + gVisor runner, with the verdict it must get.

After each case the same worker grades an honest and a wrong candidate and checks that no
process or file of the hostile one survived: the next candidate is unharmed.
"""

from __future__ import annotations

import hashlib
import os

import pytest

from tests.conftest import evaluate, sandbox_limits
from tests.adversarial.corpus import ABUSE, ADD_TASK, CHEATS, GOOD, PROBES, PROBE_TASK, WEAK, WRONG

CLEAN_AFTER = ("def probe():\n"
               "    import os\n"
               "    me, parent = os.getpid(), os.getppid()\n"
               "    others = [p for p in os.listdir('/proc') if p.isdigit() and int(p) not in (1, me, parent)]\n"
               "    left = [x for x in os.listdir('/tmp') if x != 'pg-run'] + os.listdir('/tmp/pg-run') + os.listdir('/dev/shm')\n"
               "    if others:\n        return 'processes left: %s' % others\n"
               "    if left:\n        return 'files left: %s' % left\n"
               "    return 'nothing'\n")
RESULTS: list[tuple[str, str, bool, bool]] = []   # (case, class, as_expected, false_pass)


@pytest.fixture(scope="module")
def worker(gvisor_runner):
    w = gvisor_runner.new_worker()
    yield w
    w.close()


def grade(worker, task, program, **limits):
    lim = sandbox_limits(**limits)
    lim["wall_s"] = lim["cpu_s"] * lim["wall_factor"] + 2
    res = evaluate(worker, task, program, limits=lim)
    return ("passed" if res.passed else res.protected.failure_class), res


def check_unharmed(worker):
    assert grade(worker, ADD_TASK, GOOD)[0] == "passed"
    assert grade(worker, ADD_TASK, WRONG)[0] == "wrong_answer"
    verdict, res = grade(worker, PROBE_TASK, CLEAN_AFTER)
    assert verdict == "passed", res.protected.detail


@pytest.mark.parametrize("case", CHEATS + WEAK + ABUSE, ids=lambda c: f"{c.kind}-{c.name}")
def test_hostile_candidate_gets_the_verdict_it_must(worker, case):
    verdict, res = grade(worker, ADD_TASK, case.program, **dict(case.limits))
    false_pass = verdict == "passed"
    RESULTS.append((case.name, verdict, verdict in case.expect, false_pass))
    assert not false_pass, f"{case.name} passed: {res}"
    assert verdict in case.expect, f"{case.name}: got {verdict}: {res.protected.detail}"
    check_unharmed(worker)


@pytest.mark.parametrize("case", PROBES, ids=lambda c: f"probe-{c.name}")
def test_boundary_probe_finds_nothing(worker, case):
    verdict, res = grade(worker, PROBE_TASK, case.program)
    RESULTS.append((case.name, verdict, verdict == "passed", False))
    assert verdict == "passed", f"{case.name}: boundary open: {res.protected.detail}"


def test_controller_canary_never_reaches_a_candidate(docker_client):
    from passgate.core.sandbox.docker_runner import DockerRunner
    canary = "pg-test-canary-" + os.urandom(12).hex()
    os.environ["PASSGATE_TEST_SECRET_KEY"] = canary
    try:
        runner = DockerRunner(image="passgate-sandbox:bookworm-py311", runtime="runsc", limits=sandbox_limits(),
                              client=docker_client)
        w = runner.new_worker()
        digest = hashlib.sha256(canary.encode()).hexdigest()
        program = ("def probe():\n    import os, hashlib\n    seen = []\n"
                   "    for pid in [p for p in os.listdir('/proc') if p.isdigit()] + ['self']:\n"
                   "        try:\n            data = open('/proc/%s/environ' % pid, 'rb').read()\n"
                   "        except OSError:\n            continue\n"
                   "        seen += [kv.split(b'=', 1)[-1] for kv in data.split(b'\\0')]\n"
                   "    seen += [v.encode() for v in os.environ.values()]\n"
                   f"    hit = [v for v in seen if hashlib.sha256(v).hexdigest() == {digest!r}]\n"
                   "    return 'canary visible' if hit else 'nothing'\n")
        verdict, res = grade(w, PROBE_TASK, program)
        env = w.sandbox_config().environment
        runner.close()
    finally:
        del os.environ["PASSGATE_TEST_SECRET_KEY"]
    assert verdict == "passed", res.protected.detail
    assert not any(canary in e for e in env)
    RESULTS.append(("controller_canary", verdict, True, False))


def test_zz_corpus_summary(capsys):
    """Prints the corpus count for CI logs: N/N cases as expected, 0 false passes."""
    expected = sum(1 for r in RESULTS if r[2])
    false_passes = sum(1 for r in RESULTS if r[3])
    with capsys.disabled():
        print(f"\nhostile corpus: {expected}/{len(RESULTS)} cases as expected, {false_passes} false passes")
        for name, verdict, ok, _ in RESULTS:
            if not ok:
                print(f"  unexpected: {name} -> {verdict}")
    total = len(CHEATS) + len(WEAK) + len(ABUSE) + len(PROBES) + 1
    assert len(RESULTS) == total, "run the whole module to get the corpus count"
    assert expected == total and false_passes == 0
