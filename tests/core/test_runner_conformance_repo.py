"""Repository grading through the runner interface, on every runner: Docker with runsc, Docker with
runc, and Ray on a local cluster. `Runner.for_program` boots the repository grader; each worker is a
fresh sandbox that takes one patch (`Worker.run_job`) and is removed when it closes."""

from __future__ import annotations

import json
import time
from pathlib import Path

import docker
import pytest
import yaml

from passgate.core.candidates.diffscan import scan_patch
from passgate.core.kinds.sets import load_task_set
from passgate.core.model import RepoSpec
from passgate.core.run.repo import known_modules
from passgate.core.run.repo_verdict import judge_patch
from passgate.core.sandbox.docker_runner import DockerRunner
from passgate.core.sandbox.repo_jobs import repo_job, repo_program
from tests.conftest import sandbox_limits
from tests.core.raykit import one_node_runner

pytestmark = [pytest.mark.docker]

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
# the image with the runner's own packages (pytest), as the repository example pins it
IMAGE = yaml.safe_load((EXAMPLES / "repo-patches.yaml").read_text())["execution"]["image"]


def _candidate(task_id: str, label: str) -> dict:
    rows = [json.loads(line) for line in (EXAMPLES / "repo" / "candidates.jsonl").read_text().splitlines()]
    return next(r for r in rows if (r["task_id"], r["label"]) == (task_id, label))


@pytest.fixture(params=["runsc", "runc", "ray"], scope="module")
def repo_runner(request, docker_client):
    if request.param == "ray":
        yield from _ray_repo_runner()
        return
    base = DockerRunner(image=IMAGE, runtime=request.param, limits=sandbox_limits(), client=docker_client)
    r = base.for_program(repo_program())
    r.check()
    yield r
    r.close()
    base.close()


def _ray_repo_runner():
    # one slot on the node: the run's runner holds it until `for_program` gives it back
    with one_node_runner(slots=1, image=IMAGE) as base:
        r = base.for_program(repo_program())
        r.check()                # the nodes admit it on the function worker's boundary self-probe
        assert r.concurrency == 1
        try:
            yield r
        finally:
            r.close()


def _grade(runner, task_id: str, label: str) -> tuple[str | None, str]:
    """The patch's class as the engine judges the reply (against the reference's own reply), and the
    sandbox it ran in."""
    (task,) = load_task_set("repo", EXAMPLES / "repo" / "tasks.jsonl", task_ids=[task_id]).tasks
    spec = task.repo
    reference = _reply(runner, spec, task.reference_solution)[0]
    scan = scan_patch(_candidate(task_id, label)["patch"], refuse_test_edits=True)
    reply, container = _reply(runner, spec, scan.graded_patch)
    outcomes = {suite: {k: v["outcome"] for k, v in ((reference.get(suite) or {}).get("tests") or {}).items()}
                for suite in ("public", "protected")}
    verdict = judge_patch(reply, scan.as_dict(), expected_public=sorted(outcomes["public"]),
                          expected_protected=list(spec.protected_test_ids), known_modules=known_modules(task, ()),
                          reference_public=outcomes["public"], reference_protected=outcomes["protected"])
    return verdict.failure_class, container


def _reply(runner, spec: RepoSpec, patch: str) -> tuple[dict, str]:
    limits = {**sandbox_limits(), "cpu_s": float(spec.timeout_s), "wall_s": float(spec.timeout_s) * 2}
    job = repo_job(spec, patch, public_args=list(spec.public_tests), limits=limits)
    worker = runner.new_worker()
    try:
        return worker.run_job(job, timeout_s=float(spec.timeout_s) * 6 + 60), worker.container_id
    finally:
        worker.close()


@pytest.mark.parametrize("task_id, label", [("inflection-ordinal-teens", "reference"),
                                            ("inflection-ordinal-teens", "os-exit-0"),
                                            ("cachetools-lru-order", "does-not-apply")])
def test_every_runner_gives_each_patch_its_class(repo_runner, task_id, label):
    expected = _candidate(task_id, label).get("expected_class")
    assert _grade(repo_runner, task_id, label)[0] == expected


def test_each_patch_runs_in_a_fresh_sandbox_that_goes_with_it(repo_runner, docker_client):
    spec = load_task_set("repo", EXAMPLES / "repo" / "tasks.jsonl", task_ids=["inflection-ordinal-teens"]).tasks[0].repo
    patch = _candidate("inflection-ordinal-teens", "reference")["patch"]
    containers = [_reply(repo_runner, spec, patch)[1] for _ in range(2)]
    assert containers[0] != containers[1]
    assert all(_removed(docker_client, c) for c in containers)


def _removed(client, container: str, within_s: float = 60.0) -> bool:
    """Gone now, or soon: a Ray slot removes its sandbox when the call to stop it arrives."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        try:
            client.containers.get(container)
        except docker.errors.NotFound:
            return True
        time.sleep(0.5)
    return False
