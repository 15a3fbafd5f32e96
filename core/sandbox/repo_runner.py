"""Repository grading in the sandbox: one fresh container per patch, the same boundary as every
function candidate's (Docker + runsc, no network, read-only root, tmpfs scratch, dropped
capabilities), running the repository grader (repo_program/) instead of the function worker."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Callable

from .docker_runner import DockerRunner
from .runner import WorkerLost

PROGRAM_DIR = Path(__file__).resolve().parent / "repo_program"
PROGRAM_PARTS = ("apply.py", "grader.py")


def repo_program() -> str:
    """The program as the container's bootstrap takes it (docker_runner.BOOT): modules by name, the
    grader's parts as one module `worker`."""
    source = "\n\n".join((PROGRAM_DIR / part).read_text() for part in PROGRAM_PARTS)
    return json.dumps({"__init__": "", "worker": source}, sort_keys=True)


def plugin_source() -> str:
    return (PROGRAM_DIR / "plugin.py").read_text()


def program_sha256() -> str:
    return hashlib.sha256((repo_program() + plugin_source()).encode()).hexdigest()


def repo_job(spec: dict, patch: str, *, public_args: list[str], limits: dict) -> dict:
    """What the grader receives for one patch: the snapshot, the patch to apply, the commands, the
    protected tests (copied in only after the build and the public tests) and the limits."""
    return {"op": "repo", "snapshot": spec["snapshot_b64"], "patch": patch, "setup_command": spec["setup_command"],
            "public_args": public_args, "protected": spec["protected_tests"],
            "protected_args": list(spec["protected_test_ids"]), "pythonpath": spec["pythonpath"],
            "limits": limits, "plugin": plugin_source()}


class RepoRunner:
    """Grades patches, one container each; `grade` returns the grader's reply or raises WorkerLost."""

    def __init__(self, *, image: str, runtime: str, limits: dict, seeds: dict | None = None, run_label: str = ""):
        self.docker = DockerRunner(image=image, runtime=runtime, limits=limits, seeds=seeds, run_label=run_label,
                                   program=repo_program())

    def grade(self, job: dict, *, timeout_s: float, on_test: Callable[[dict], None] | None = None) -> dict:
        worker = self.docker.new_worker()
        try:
            reply = worker._request(job, timeout=timeout_s, on_interim=on_test)
            reply["container_id"] = worker.container_id[:12]
            return reply
        finally:
            worker.close()
            if worker in self.docker._workers:
                self.docker._workers.remove(worker)

    def close(self) -> None:
        self.docker.close()


__all__ = ["RepoRunner", "WorkerLost", "repo_job", "repo_program", "plugin_source", "program_sha256"]
