"""One conformance suite that every runner passes, against the real engine: Docker with runsc (gVisor),
Docker with runc, and Ray on a local cluster whose node runs the Docker + gVisor runner."""

from __future__ import annotations

import time

import docker
import pytest

from passgate.core.errors import DriftError, SandboxUnavailable
from passgate.core.sandbox.docker_runner import DockerRunner
from passgate.core.sandbox.runner import EvalRequest, EvalResult, Runner, WorkerLost, limits_for
from tests.adversarial.corpus import ADD_TASK, GOOD, WRONG
from tests.conftest import IMAGE, evaluate, sandbox_limits
from tests.core.raykit import one_node_runner

LOOP = "def add(a, b):\n    while True:\n        pass\n"


@pytest.fixture(params=["runsc", "runc", "ray"], scope="module")
def runner(request, docker_client):
    if request.param == "ray":
        with one_node_runner(slots=2) as r:
            yield r
        return
    r = DockerRunner(image=IMAGE, runtime=request.param, limits=sandbox_limits(), client=docker_client)
    yield r
    r.close()


@pytest.fixture
def worker(runner):
    w = runner.new_worker()
    yield w
    w.close()


def test_every_runner_implements_the_contract(runner):
    assert isinstance(runner, Runner)


def test_check_reports_what_will_run(runner, image_digest):
    info = runner.check(image_digest)
    assert info.runtime == runner.runtime and info.image_digest == image_digest and len(info.worker_sha256) == 64


def test_a_correct_candidate_passes_and_a_wrong_one_fails(worker):
    good = evaluate(worker, ADD_TASK, GOOD)
    assert isinstance(good, EvalResult) and good.passed and good.public.status == "passed"
    wrong = evaluate(worker, ADD_TASK, WRONG)
    assert wrong.protected.failure_class == "wrong_answer" and wrong.public.failure_class == "wrong_answer"
    assert wrong.node == worker.node and wrong.container_id == worker.container_id


def test_cpu_time_limit_is_enforced_and_reported(worker):
    res = evaluate(worker, ADD_TASK, LOOP, limits=sandbox_limits(cpu_s=1.0))
    assert res.protected.failure_class == "timeout" and 0.9 <= res.cpu_s <= 3.0


def test_the_public_suite_can_be_left_to_the_recheck(worker):
    res = evaluate(worker, ADD_TASK, LOOP, limits=sandbox_limits(cpu_s=1.0), public_after_protected_timeout=False)
    assert res.protected.failure_class == "timeout" and res.public.status == "not_run"
    assert "re-check" in res.public.detail


def test_output_is_captured_and_capped(worker):
    res = evaluate(worker, ADD_TASK, "print('hello from the candidate')\n" + GOOD)
    assert "hello from the candidate" in res.stdout and res.passed


def test_probe_runs_as_a_candidate_would(worker):
    probe = worker.probe(limits_for(sandbox_limits(), 20.0), timeout=120)  # forking to the limit costs CPU
    assert probe["uid"] == 10001 and probe["interfaces"]["value"] == ["lo"]
    assert probe["processes"]["value"]["forked"] <= 32


def test_the_sandbox_config_shows_the_hardened_configuration(runner, worker):
    c = worker.sandbox_config()
    assert c.runtime == runner.runtime and c.network == "none" and c.read_only_root
    assert c.capabilities_dropped == ("ALL",) and not c.bind_mounts and not c.mounts
    assert c.pids_limit > 0 and c.memory_bytes > 0


def test_a_container_killed_from_outside_loses_the_worker(runner, docker_client):
    w = runner.new_worker()
    docker_client.api.kill(w.container_id)
    with pytest.raises(WorkerLost):
        w.evaluate(EvalRequest(ADD_TASK, GOOD, sandbox_limits(), timeout_s=30))
    w.close()


def test_close_removes_the_container(runner, docker_client):
    w = runner.new_worker()
    cid = w.container_id
    w.close()
    deadline = time.monotonic() + 20      # a Ray slot removes its container as the actor's next call
    while time.monotonic() < deadline:
        try:
            docker_client.containers.get(cid)
        except docker.errors.NotFound:
            return
        time.sleep(0.2)
    pytest.fail(f"container {cid[:12]} still exists after close()")


def test_zz_check_refuses_a_different_pinned_image(runner):
    """Last: a multi-node runner refuses its nodes for good (each runs another image than the pin)."""
    with pytest.raises((DriftError, SandboxUnavailable)) as refused:
        runner.check("sha256:" + "0" * 64)
    assert "digest differs" in str(refused.value)
