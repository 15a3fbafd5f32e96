"""Candidates for repository tasks: one unified diff per line of a JSONL file (`task_id`, `patch`).

The raw text is kept as given; nothing is rewritten. A line for an unknown task, or without a
patch, is an error naming the file, line and field."""

from __future__ import annotations

import hashlib
from pathlib import Path

from passgate.core.errors import ConfigError
from passgate.core.model import Candidate, Task
from passgate.core.tasks.io import iter_json_lines, optional, require

FIELDS = {"task_id", "patch", "label", "expected_class"}


def import_patches(path: str | Path, tasks: dict[str, Task]) -> list[Candidate]:
    out: list[Candidate] = []
    counts: dict[str, int] = {}
    for line, record in iter_json_lines(path):
        unknown = sorted(set(record) - FIELDS)
        if unknown:
            raise ConfigError(f"unknown field (allowed: {', '.join(sorted(FIELDS))})", path=str(path), line=line,
                              field=unknown[0])
        task_id = require(record, "task_id", str, path, line)
        if task_id not in tasks:
            raise ConfigError(f"no task {task_id!r} in the manifest's task sets", path=str(path), line=line,
                              field="task_id")
        patch = require(record, "patch", str, path, line)
        if not patch.strip():
            raise ConfigError("must hold a unified diff", path=str(path), line=line, field="patch")
        index = counts.get(task_id, 0)
        counts[task_id] = index + 1
        label = optional(record, "label", str, "", path, line)
        out.append(Candidate(task_id, index, patch, patch, program=patch,
                             program_sha256=hashlib.sha256(patch.encode()).hexdigest(), source="import",
                             source_ref=f"{Path(path).name}:{line}" + (f" ({label})" if label else ""),
                             completion_style="patch"))
    return out
