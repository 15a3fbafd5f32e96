"""The `repo` task format: repository tasks graded by the repository's own build and tests.

One JSON object per line (docs/task-formats.md). Every file a line names (the snapshot tarball, the
reference patch, each protected test file) is relative to the task file and pinned by sha256 on
that line, so the task file's own sha256 pins everything. Loading reads files; it never runs them.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import tarfile
from pathlib import Path

from passgate.core.errors import ConfigError
from passgate.core.model import RepoSpec, Task

from .io import iter_json_lines, optional, require

FIELDS = {"task_id", "instruction", "snapshot", "snapshot_sha256", "setup_command", "public_tests",
          "protected_tests", "protected_test_ids", "reference_patch", "reference_patch_sha256", "pythonpath",
          "slice", "tags", "exposure", "project", "timeout_s"}
EXPOSURES = ("public", "holdout")


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _pinned_file(base: Path, record: dict, name: str, sha_name: str | None, path: Path, line: int,
                 expected: str | None = None) -> bytes:
    rel = require(record, name, str, path, line) if expected is None else name
    target = (base / rel).resolve()
    if not target.is_relative_to(base.resolve()):
        raise ConfigError(f"{rel!r} is outside the task file's folder", path=str(path), line=line, field=name)
    try:
        data = target.read_bytes()
    except OSError:
        raise ConfigError(f"cannot read {rel}", path=str(path), line=line, field=name) from None
    want = expected if expected is not None else require(record, sha_name, str, path, line)
    if _sha256(data) != want:
        raise ConfigError(f"{rel} has sha256 {_sha256(data)}, the line pins {want}", path=str(path), line=line,
                          field=sha_name or name)
    return data


def _str_list(record: dict, name: str, path: Path, line: int, required: bool = False) -> list[str]:
    value = require(record, name, list, path, line) if required else optional(record, name, list, [], path, line)
    if not all(isinstance(v, str) and v for v in value):
        raise ConfigError("must be a list of non-empty strings", path=str(path), line=line, field=name)
    return value


def _protected(base: Path, record: dict, path: Path, line: int) -> dict[str, str]:
    """{path in the repository: text}: each entry is `{"file": REL, "sha256": HEX}`."""
    files = require(record, "protected_tests", dict, path, line)
    if not files:
        raise ConfigError("must name at least one protected test file", path=str(path), line=line,
                          field="protected_tests")
    out = {}
    for repo_path, entry in sorted(files.items()):
        if not isinstance(entry, dict) or set(entry) != {"file", "sha256"}:
            raise ConfigError(f"{repo_path}: must be {{\"file\": ..., \"sha256\": ...}}", path=str(path), line=line,
                              field="protected_tests")
        data = _pinned_file(base, {}, entry["file"], "protected_tests", path, line, expected=entry["sha256"])
        out[repo_path] = data.decode("utf-8")
    return out


def _check_snapshot(data: bytes, protected: dict[str, str], path: Path, line: int) -> None:
    """A readable tarball of plain files that does not already hold the protected tests."""
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as tar:
            names = {m.name.lstrip("./") for m in tar.getmembers() if m.isfile()}
    except tarfile.TarError as exc:
        raise ConfigError(f"snapshot is not a tarball ({exc})", path=str(path), line=line, field="snapshot") from None
    inside = sorted(set(protected) & names)
    if inside:
        raise ConfigError(f"the snapshot already contains protected test {inside[0]}", path=str(path), line=line,
                          field="protected_tests")


def load(path: Path, text: str, default_slice: str, default_exposure: str) -> tuple[list[Task], list[str]]:
    """Tasks in file order; each Task's `repo` is its grading spec."""
    base = path.parent
    tasks, seen = [], {}
    for line, record in iter_json_lines(path, text):
        unknown = sorted(set(record) - FIELDS)
        if unknown:
            raise ConfigError(f"unknown field (allowed: {', '.join(sorted(FIELDS))})", path=str(path), line=line,
                              field=unknown[0])
        task_id = require(record, "task_id", str, path, line)
        if task_id in seen:
            raise ConfigError(f"duplicate task id {task_id!r} (first on line {seen[task_id]})", path=str(path),
                              line=line, field="task_id")
        seen[task_id] = line
        tasks.append(_task(base, record, task_id, path, line, default_slice, default_exposure))
    return tasks, []


def _task(base, record, task_id, path, line, default_slice, default_exposure) -> Task:
    snapshot = _pinned_file(base, record, "snapshot", "snapshot_sha256", path, line)
    reference = _pinned_file(base, record, "reference_patch", "reference_patch_sha256", path, line).decode("utf-8")
    protected = _protected(base, record, path, line)
    _check_snapshot(snapshot, protected, path, line)
    ids = _str_list(record, "protected_test_ids", path, line, required=True)
    if not ids:
        raise ConfigError("must list the protected test ids", path=str(path), line=line, field="protected_test_ids")
    outside = [i for i in ids if i.split("::", 1)[0] not in protected]
    if outside:
        raise ConfigError(f"{outside[0]} is not in a protected test file", path=str(path), line=line,
                          field="protected_test_ids")
    exposure = optional(record, "exposure", str, default_exposure, path, line)
    if exposure not in EXPOSURES:
        raise ConfigError(f"{exposure!r} is not one of {', '.join(EXPOSURES)}", path=str(path), line=line,
                          field="exposure")
    timeout = optional(record, "timeout_s", (int, float), 120, path, line)
    spec = RepoSpec(snapshot=str(record["snapshot"]), snapshot_sha256=record["snapshot_sha256"],
                    snapshot_b64=base64.b64encode(snapshot).decode("ascii"),
                    setup_command=optional(record, "setup_command", str, "", path, line),
                    public_tests=_str_list(record, "public_tests", path, line),
                    protected_tests=protected, protected_test_ids=ids,
                    pythonpath=_str_list(record, "pythonpath", path, line),
                    project=optional(record, "project", dict, {}, path, line), timeout_s=float(timeout))
    tags = _str_list(record, "tags", path, line)
    return Task(task_id=task_id, slice=optional(record, "slice", str, default_slice, path, line),
                prompt=require(record, "instruction", str, path, line), entry_point="",
                public_tests=json.dumps(list(spec.public_tests)), protected_tests="\n".join(ids),
                reference_solution=reference, completion_style="patch", tags=tuple(tags), exposure=exposure,
                repo=spec)
