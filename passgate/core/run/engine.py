"""One run, end to end: freeze → check pins → probe the boundary → calibrate → grade → record.

The engine is the single writer of the SQLite record. Sandbox workers run in threads, each owning
one container; results come back on a queue and are appended as they arrive, so a run killed
at any point resumes from the record: nothing recorded is executed again, nothing is lost.
"""

from __future__ import annotations

import json
import os
import platform
import secrets
import threading
import time
from pathlib import Path
from typing import Callable

from passgate.core.candidates.inputs import load_inputs
from passgate.core.candidates.security_scan import check_pins
from passgate.core.errors import BoundaryOpen, PassgateError, StoreError
from passgate.core.manifest import Manifest, load_manifest, parse_manifest
from passgate.core.progress import Progress, ProgressSink
from passgate.core.record.store import Store, utcnow
from passgate.core.sandbox.boundary import container_checks, failed, probe_checks
from passgate.core.sandbox.runner import GRADING_PROTOCOL, Runner, limits_for

from .decide import Policy
from .dispatch import RunContext
from .pipelines import pipeline_of
from .rows import candidate_rows, task_of, task_rows

PASSGATE_VERSION = "0.1.0"


def new_run_id() -> str:
    return time.strftime("r%Y%m%d-%H%M%S-") + secrets.token_hex(3)


def base_limits(manifest: Manifest) -> dict:
    lim = manifest.execution.limits
    return {"cpu_s": lim.cpu_s, "wall_factor": lim.wall_factor, "memory_mb": lim.memory_mb,
            "container_memory_mb": lim.container_memory_mb, "cpus": lim.cpus, "nproc": lim.nproc, "pids": lim.pids,
            "nofile": lim.nofile, "file_size_mb": lim.file_size_mb, "scratch_mb": lim.scratch_mb,
            "output_cap_kb": lim.output_cap_kb, "output_keep_kb": lim.output_keep_kb,
            "seed": manifest.execution.seeds.random_seed}


def make_runner(manifest: Manifest, run_id: str, *, ray_address: str | None = None) -> Runner:
    """The runner of the manifest's pipeline (core/run/pipelines.py); `--ray ADDRESS` places it on a cluster."""
    return pipeline_of(manifest).runner(manifest, run_id, base_limits(manifest), ray_address)


def start_run(store: Store, manifest_path: str | Path, *, progress: ProgressSink | None = None,
              cancel: threading.Event | None = None, operator: str | None = None,
              runner_factory: Callable[[Manifest, str], Runner] = make_runner) -> str:
    """Freeze the manifest, record a new run and execute it. Returns the run id."""
    manifest, text = load_manifest(manifest_path)
    inputs = load_inputs(manifest, manifest_path)          # raises DriftError on any pin mismatch
    run_id = new_run_id()
    store.save_manifest(manifest.manifest_id, manifest.name, manifest.canonical_json(), text, str(manifest_path))
    store.create_run({"run_id": run_id, "manifest_id": manifest.manifest_id, "name": manifest.name,
                      "status": "created", "operator": operator or manifest.operator or os.environ.get("USER", ""),
                      "policy": manifest.gate.policy, "model": inputs.model_label,
                      "passgate_version": PASSGATE_VERSION,
                      "seeds_json": json.dumps({"pythonhashseed": manifest.execution.seeds.pythonhashseed,
                                                "random_seed": manifest.execution.seeds.random_seed,
                                                "tz": manifest.execution.seeds.tz}),
                      "host_json": json.dumps({"host": platform.node(), "python": platform.python_version(),
                                               "platform": platform.platform()})})
    store.save_tasks(run_id, task_rows(inputs.tasks))
    store.append("candidates", candidate_rows(run_id, inputs.candidates))
    for note in inputs.notes:
        store.event(run_id, "input", note)
    if inputs.not_imported:             # chained, so the report's exclusions cannot be edited away
        store.append("evidence", [{"run_id": run_id, "kind": "not_imported", "at": utcnow(),
                                   "body_json": json.dumps({"lines": inputs.not_imported}, sort_keys=True)}])
    return _execute(store, run_id, manifest, progress, cancel, runner_factory, manifest_path=manifest_path)


def resume_run(store: Store, run_id: str, *, progress: ProgressSink | None = None,
               cancel: threading.Event | None = None,
               runner_factory: Callable[[Manifest, str], Runner] = make_runner,
               manifest_path: str | Path | None = None) -> str:
    """Continue a run from its record; the frozen manifest is re-read from the database."""
    run = store.run(run_id)
    if run["status"] == "completed":
        return run["run_id"]
    recorded = run.get("grading_protocol")
    if recorded is not None and int(recorded) != GRADING_PROTOCOL:
        raise StoreError(f"{run_id} was graded under grading protocol {recorded}; this passgate grades under "
                         f"protocol {GRADING_PROTOCOL}, so its remaining candidates would be judged differently. "
                         "Start a new run from its manifest instead")
    stored = store.manifest(run["manifest_id"])
    manifest = parse_manifest(stored["yaml_text"], stored["source_path"])
    if manifest.manifest_id != run["manifest_id"]:
        raise StoreError(f"the stored manifest of {run_id} no longer hashes to {run['manifest_id']}")
    source = manifest_path or stored["source_path"]
    load_inputs(manifest, source, check_only=True)        # pins still hold
    return _execute(store, run["run_id"], manifest, progress, cancel, runner_factory, manifest_path=source)


def _execute(store, run_id, manifest, progress, cancel, runner_factory, *, manifest_path) -> str:
    progress = progress or (lambda _p: None)
    cancel = cancel or threading.Event()
    canary = "pg-canary-" + secrets.token_hex(16)
    os.environ["PASSGATE_CANARY"] = canary  # planted in the controller; the probe proves it never arrives
    runner = runner_factory(manifest, run_id)
    status = "failed"
    try:
        if manifest.scoring.security.scan:
            check_pins(manifest.scoring.security)   # a scanner version other than the pin refuses the run
        info = runner.check(manifest.execution.image_digest)
        allowlist = _check_allowlist(runner, manifest)
        store.update_run(run_id, status="running", started_at=utcnow(), error=None)
        store.seal(run_id, "start", runtime=info.runtime, image=info.image, image_digest=info.image_digest,
                   worker_sha256=info.worker_sha256, limits_json=json.dumps(info.limits),
                   grading_protocol=GRADING_PROTOCOL)
        store.event(run_id, "start", f"runner {info.runner}/{info.runtime} on {info.node}, image {info.image_digest}")
        if allowlist:
            store.event(run_id, "start", allowlist)
        _runner_events(store, run_id, runner)
        ctx = _context(store, run_id, manifest, progress, cancel)
        _preflight(store, ctx, runner, info, canary)
        pipeline = pipeline_of(manifest)
        pipeline.grade(store, ctx, runner)
        if not cancel.is_set():
            pipeline.after(store, ctx)
        status = "cancelled" if cancel.is_set() else "completed"
    except BoundaryOpen as exc:
        status = "refused"
        store.update_run(run_id, error=exc.message)
        raise
    except PassgateError as exc:
        store.update_run(run_id, error=exc.message)
        raise
    except KeyboardInterrupt:
        status = "interrupted"
        raise
    except BaseException as exc:
        store.update_run(run_id, error=f"{type(exc).__name__}: {exc}")
        raise
    finally:
        _runner_events(store, run_id, runner)
        runner.close()
        store.seal_finish(run_id, status)
        store.event(run_id, "end", f"run {status}")
        progress(Progress(run_id=run_id, phase="finished", message=f"run {status}"))
    return run_id


def _check_allowlist(runner: Runner, manifest: Manifest) -> str:
    """A manifest with `execution.packages` runs only on the derived image that holds exactly them."""
    ex = manifest.execution
    if not ex.packages:
        return ""
    return runner.check_package_image(ex.image, ex.packages, ex.base_image_digest)


def _runner_events(store: Store, run_id: str, runner: Runner) -> None:
    """A runner with many nodes reports which it accepted, refused or lost; the engine records it."""
    for kind, message in runner.drain_events():
        store.event(run_id, kind, message)


def _context(store, run_id, manifest, progress, cancel) -> RunContext:
    task_rows = {r["task_id"]: r for r in store.rows("tasks", run_id, order="position")}
    tasks = {tid: task_of(run_id, r) for tid, r in task_rows.items()}
    ex = manifest.execution
    policy = Policy(rerun_policy=ex.reruns.policy, rerun_count=ex.reruns.count, infra_retries=ex.reruns.infra_retries,
                    recheck_timeouts=ex.timeout.recheck_alone)
    return RunContext(run_id, manifest, tasks, task_rows, base_limits(manifest), policy, progress, cancel)


def _preflight(store: Store, ctx: RunContext, runner: Runner, info, canary: str) -> None:
    """Boundary self-probe and container checks, recorded before any candidate runs."""
    ctx.progress(Progress(run_id=ctx.run_id, phase="preflight", message="probing the sandbox boundary"))
    worker = runner.new_worker()
    try:
        limits = limits_for(ctx.limits, 30.0)
        probe = worker.probe(limits, timeout=120)
        config = worker.sandbox_config()
    finally:
        worker.close()
    probe.pop("id", None)
    checks = probe_checks(probe, canary=canary, expected_nproc=int(ctx.limits["nproc"]))
    container = container_checks(config, runtime=ctx.manifest.execution.runtime, image_digest=info.image_digest,
                                 canary=canary)
    store.seal(ctx.run_id, "preflight", probe_json=json.dumps({"checks": [c.as_dict() for c in checks], "raw": probe}),
               preflight_json=json.dumps({"checks": [c.as_dict() for c in container],
                                                "runtime": info.runtime, "image_digest": info.image_digest,
                                                "worker_sha256": info.worker_sha256}))
    bad = failed(checks) + failed(container)
    if bad:
        lines = "; ".join(f"{c.name} ({c.saw})" for c in bad)
        store.event(ctx.run_id, "refused", f"boundary open: {lines}")
        raise BoundaryOpen(f"the sandbox boundary is open where the manifest says closed: {lines}")
    store.event(ctx.run_id, "preflight", f"{len(checks) + len(container)} boundary checks passed")
