"""A local Ray cluster for the runner tests: a head with no sandbox slots and one node with `slots`."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest

from tests.conftest import IMAGE, sandbox_limits


@contextlib.contextmanager
def one_node_runner(slots: int, image: str = IMAGE) -> Iterator:
    """A checked RayRunner (runsc) on a fresh one-node cluster; closed and shut down after."""
    ray = pytest.importorskip("ray")
    from ray.cluster_utils import Cluster

    from passgate.core.sandbox.ray_runner import SLOT_RESOURCE, RayRunner
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "include_dashboard": False})
    cluster.add_node(num_cpus=1, resources={SLOT_RESOURCE: slots})
    ray.init(address=cluster.address, logging_level="WARNING", log_to_driver=False)
    cluster.wait_for_nodes()
    runner = RayRunner(address=cluster.address, image=image, runtime="runsc", limits=sandbox_limits(),
                       per_node=slots)
    try:
        runner.check()
        yield runner
    finally:
        runner.close()
        ray.shutdown()
        cluster.shutdown()
