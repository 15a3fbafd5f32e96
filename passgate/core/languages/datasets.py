"""Reading HumanEval-X and MultiPL-E files into TestInputs (the task kinds will pin and wrap these)."""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from pathlib import Path

from .spec import TestInput

HUMANEVAL_X_LANGS = {"cpp": "cpp", "go": "go", "java": "java", "js": "js", "rust": "rs", "python": "py"}
MULTIPLE_LANGS = ("cpp", "cs", "d", "go", "java", "jl", "js", "lua", "php", "pl", "r", "rb", "rkt", "rs", "scala",
                  "sh", "swift", "ts")


@dataclass(frozen=True)
class HumanEvalXTask:
    task_id: str
    hidden: TestInput
    public: TestInput | None
    canonical_solution: str
    record: dict


@dataclass(frozen=True)
class MultiPLETask:
    task_id: str
    language: str
    tests: TestInput
    stop_tokens: tuple[str, ...]
    record: dict


def _lines(path: Path) -> list[dict]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def load_humaneval_x(path: Path) -> list[HumanEvalXTask]:
    tasks = []
    for rec in _lines(Path(path)):
        extras = {k: rec[k] for k in ("import", "test_setup") if k in rec}
        if (Path(path).parent / "evaluation").is_dir():
            extras["evaluation_dir"] = str(Path(path).parent / "evaluation")     # Go: go.mod, vendored testify
        common = dict(task_id=rec["task_id"], prompt=rec["prompt"], declaration=rec.get("declaration", ""),
                      dataset="humaneval-x", extras=extras)
        hidden = TestInput(test=rec["test"], **common)
        example = rec.get("example_test") or ""
        # HumanEval-X's Rust file has the text "None" where it has no example test
        public = TestInput(test=example, **common) if example.strip() not in ("", "None") else None
        tasks.append(HumanEvalXTask(rec["task_id"], hidden, public, rec["canonical_solution"], rec))
    return tasks


def load_multipl_e(path: Path) -> list[MultiPLETask]:
    tasks = []
    for rec in _lines(Path(path)):
        test = TestInput(task_id=rec["name"], prompt=rec["prompt"], test=rec["tests"], dataset="multipl-e",
                         extras={"language": rec["language"]})
        tasks.append(MultiPLETask(rec["name"], rec["language"], test, tuple(rec.get("stop_tokens") or ()), rec))
    return tasks
