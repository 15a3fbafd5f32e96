"""One conformance suite that every runner passes, against the real engine (gVisor and runc)."""

from __future__ import annotations

import pytest

from passgate.core.sandbox.docker_runner import DockerRunner
from passgate.core.sandbox.runner import WorkerLost
from tests.adversarial.corpus import ADD_TASK, GOOD, WRONG
from tests.conftest import IMAGE, sandbox_limits


@pytest.fixture(params=["runsc", "runc"], scope="module")
def runner(request, docker_client):
    r = DockerRunner(image=IMAGE, runtime=request.param, limits=sandbox_limits(), client=docker_client)
    yield r
    r.close()


def protected(res):
    return res["suites"]["protected"]


def test_check_reports_what_will_run(runner, image_digest):
    info = runner.check(image_digest)
    assert info.runtime == runner.runtime and info.image_digest == image_digest and len(info.worker_sha256) == 64


def test_a_correct_candidate_passes_and_a_wrong_one_fails(runner):
    w = runner.new_worker()
    try:
        assert protected(w.evaluate(ADD_TASK, GOOD, sandbox_limits(), timeout=60))["status"] == "passed"
        res = w.evaluate(ADD_TASK, WRONG, sandbox_limits(), timeout=60)
        assert protected(res)["class"] == "wrong_answer" and res["suites"]["public"]["class"] == "wrong_answer"
    finally:
        w.close()


def test_cpu_time_limit_is_enforced_and_reported(runner):
    w = runner.new_worker()
    try:
        res = w.evaluate(ADD_TASK, "def add(a, b):\n    while True:\n        pass\n", sandbox_limits(cpu_s=1.0), timeout=60)
        assert protected(res)["class"] == "timeout" and 0.9 <= res["cpu_s"] <= 3.0
    finally:
        w.close()


def test_output_is_captured_and_capped(runner):
    w = runner.new_worker()
    try:
        res = w.evaluate(ADD_TASK, "print('hello from the candidate')\n" + GOOD, sandbox_limits(), timeout=60)
        assert "hello from the candidate" in res["stdout"] and protected(res)["status"] == "passed"
    finally:
        w.close()


def test_probe_runs_as_a_candidate_would(runner):
    w = runner.new_worker()
    try:
        probe = w.probe(sandbox_limits(cpu_s=20.0, wall_s=60), timeout=120)  # forking to the limit costs CPU
        assert probe["uid"] == 10001 and probe["interfaces"]["value"] == ["lo"]
        assert probe["processes"]["value"]["forked"] <= 32
    finally:
        w.close()


def test_inspect_shows_the_hardened_configuration(runner):
    w = runner.new_worker()
    try:
        hc = w.inspect()["HostConfig"]
        assert hc["Runtime"] == runner.runtime and hc["NetworkMode"] == "none" and hc["ReadonlyRootfs"]
        assert hc["CapDrop"] == ["ALL"] and not hc["Binds"] and hc["PidsLimit"] > 0 and hc["Memory"] > 0
    finally:
        w.close()


def test_a_container_killed_from_outside_is_an_infra_failure(runner, docker_client):
    w = runner.new_worker()
    docker_client.api.kill(w.container_id)
    with pytest.raises(WorkerLost):
        w.evaluate(ADD_TASK, GOOD, sandbox_limits(), timeout=30)
    w.close()


def test_close_removes_the_container(runner, docker_client):
    import docker
    w = runner.new_worker()
    cid = w.container_id
    w.close()
    with pytest.raises(docker.errors.NotFound):
        docker_client.containers.get(cid)
