"""Shared fixtures: the real Docker engine with gVisor, real SQLite files, the shared datasets."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
DATASETS = SHARED / "datasets"
IMAGE = "passgate-sandbox:bookworm-py311"


def sandbox_limits(**over) -> dict:
    lim = dict(cpu_s=1.0, wall_s=5.0, wall_factor=3.0, memory_mb=512, container_memory_mb=1024, cpus=1.0, nproc=32,
               pids=1024, nofile=256, file_size_mb=16, scratch_mb=64, output_cap_kb=8192, output_keep_kb=4, seed=0)
    lim.update(over)
    return lim


def evaluate(worker, task, program: str, *, timeout: float = 60, **options):
    """One candidate through a real worker, under the test limits (overrides in `options["limits"]`)."""
    from passgate.core.sandbox.runner import EvalRequest
    limits = options.pop("limits", None) or sandbox_limits()
    return worker.evaluate(EvalRequest(task=task, program=program, limits=limits, timeout_s=timeout, **options))


@pytest.fixture(scope="session")
def docker_client():
    from passgate.core.sandbox.docker_runner import docker_client as make
    return make()  # fails loudly (SandboxUnavailable) when the engine is absent: these tests must run


@pytest.fixture(scope="session")
def image_digest(docker_client):
    return docker_client.images.get(IMAGE).id


@pytest.fixture(scope="module")
def gvisor_runner(docker_client):
    from passgate.core.sandbox.docker_runner import DockerRunner
    runner = DockerRunner(image=IMAGE, runtime="runsc", limits=sandbox_limits(), client=docker_client,
                          run_label="pytest")
    runner.check()
    yield runner
    runner.close()


@pytest.fixture
def datasets() -> Path:
    if not DATASETS.exists():
        pytest.fail(f"shared datasets not found at {DATASETS}")
    return DATASETS
