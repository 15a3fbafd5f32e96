"""How a run is graded, per grader its kinds name (core/kinds): the runner, the grading, what follows.

The engine asks `pipeline_of(manifest)` and runs what it says; nothing in the engine names a grader.
A grader a kind may name (`kinds.Grader`) without a pipeline here is refused by the tests.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from passgate.core.manifest import Manifest, grader_of
from passgate.core.record.store import Store
from passgate.core.sandbox.runner import Runner

from .contract_scan import contract_scan_run
from .dispatch import RunContext
from .grading import GradingSession
from .languages import make_language_runner
from .repo import RepoGrading
from .security import scan_run
from .selfcheck import calibrate, seal_reference_run

RunnerMaker = Callable[[Manifest, str, dict, "str | None"], Runner]   # manifest, run id, limits, Ray address


@dataclass(frozen=True)
class Pipeline:
    """What grading a run of one grader takes. `after` runs once every candidate is graded, never
    after a cancelled run."""

    grader: str
    runner: RunnerMaker
    grade: Callable[[Store, RunContext, Runner], None]
    after: Callable[[Store, RunContext], None]


def sandbox_runner(manifest: Manifest, run_id: str, limits: dict, address: str | None) -> Runner:
    """The local Docker runner; on a Ray cluster (`--ray ADDRESS` or `execution.ray_address`) the same
    runner on every node, `execution.workers` sandboxes per node (core/sandbox/ray_runner.py)."""
    ex = manifest.execution
    args = dict(image=ex.image, runtime=ex.runtime, limits=limits,
                seeds={"pythonhashseed": ex.seeds.pythonhashseed, "tz": ex.seeds.tz}, run_label=run_id)
    address = address or ex.ray_address
    if address:
        from passgate.core.sandbox.ray_runner import RayRunner
        return RayRunner(address=address, per_node=ex.workers, isolation=ex.isolation, **args)
    from passgate.core.sandbox.docker_runner import DockerRunner
    return DockerRunner(**args)


def _language_runner(manifest: Manifest, run_id: str, limits: dict, address: str | None) -> Runner:
    return make_language_runner(manifest, run_id, limits, ray_address=address)


def _grade_programs(store: Store, ctx: RunContext, runner: Runner) -> None:
    """References first (the self-check and each task's CPU limit), then every candidate."""
    calibrate(store, ctx, runner)
    GradingSession(store, ctx, runner).run()


def _grade_patches(store: Store, ctx: RunContext, runner: Runner) -> None:
    RepoGrading(store, ctx, runner).run()        # seals its own reference summary


def _seal_reference_run(store: Store, ctx: RunContext) -> None:
    """A run whose candidates are the references: its outcomes are the self-check."""
    if ctx.manifest.candidates.source == "reference":
        seal_reference_run(store, ctx)


def _scan_and_seal(store: Store, ctx: RunContext) -> None:
    """The static security scan and the task contract's scan read Python function programs."""
    scan_run(store, ctx)
    contract_scan_run(store, ctx)
    _seal_reference_run(store, ctx)


def _nothing(store: Store, ctx: RunContext) -> None:
    return None


PIPELINES: dict[str, Pipeline] = {p.grader: p for p in (
    Pipeline("python", sandbox_runner, _grade_programs, _scan_and_seal),
    Pipeline("language", _language_runner, _grade_programs, _seal_reference_run),
    Pipeline("repository", sandbox_runner, _grade_patches, _nothing),
)}


def pipeline_of(manifest: Manifest) -> Pipeline:
    """The pipeline of the grader the manifest's kinds name (one per manifest, checked at parse)."""
    return PIPELINES[grader_of(manifest)]
