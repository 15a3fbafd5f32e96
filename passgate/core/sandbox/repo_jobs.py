"""Repository grading in the sandbox: the program and the job.

Each patch runs in a fresh sandbox with the same boundary as every function candidate's (no
network, read-only root, tmpfs scratch, dropped capabilities), booting the repository grader
(repo_program/) instead of the function worker: `Runner.for_program(repo_program())` gives the
runner, `Worker.run_job(repo_job(...))` the grader's reply."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from passgate.core.model import RepoSpec

PROGRAM_DIR = Path(__file__).resolve().parent / "repo_program"
PLUGIN = "plugin.py"       # travels in each job, written where pytest loads it: not a module of the program


def program_modules() -> dict[str, str]:
    """Every module of core/sandbox/repo_program/ but the plugin, by name (`worker` is the entry)."""
    return {path.stem: path.read_text() for path in sorted(PROGRAM_DIR.glob("*.py")) if path.name != PLUGIN}


def repo_program() -> str:
    """The program as the container's bootstrap takes it (docker_runner.BOOT): {module: source}, served
    as the package `pgw`, whose modules import one another as they do here."""
    return json.dumps(program_modules(), sort_keys=True)


def plugin_source() -> str:
    return (PROGRAM_DIR / PLUGIN).read_text()


def program_sha256() -> str:
    return hashlib.sha256((repo_program() + plugin_source()).encode()).hexdigest()


def repo_job(spec: RepoSpec, patch: str, *, public_args: list[str], limits: dict) -> dict:
    """What the grader receives for one patch: the snapshot, the patch to apply, the commands, the
    protected tests (copied in only after the build and the public tests) and the limits."""
    return {"op": "repo", "snapshot": spec.snapshot_b64, "patch": patch, "setup_command": spec.setup_command,
            "public_args": list(public_args), "protected": dict(spec.protected_tests),
            "protected_args": list(spec.protected_test_ids), "pythonpath": list(spec.pythonpath),
            "limits": limits, "plugin": plugin_source()}


__all__ = ["plugin_source", "program_modules", "program_sha256", "repo_job", "repo_program"]
