"""A mid-run record of 16,400 candidates (164 tasks x 100, three quarters decided), written through
the real Store: what the console's queries must stay fast on. Used by the responsiveness tests and
by `benchmarks/console_queries.py`."""

from __future__ import annotations

import hashlib
from pathlib import Path

from passgate.core.manifest import parse_manifest
from passgate.core.record.store import Store
from tests.tui.fixture_db import MANIFEST

TASKS, PER_TASK = 164, 100
RUN = "r20261130-120000-big000"


def write_big_record(path: Path) -> None:
    store = Store(path)
    text = MANIFEST.read_text()
    m = parse_manifest(text)
    store.save_manifest(m.manifest_id, m.name, m.canonical_json(), text, str(MANIFEST))
    store.create_run({"run_id": RUN, "manifest_id": m.manifest_id, "name": "big", "status": "running",
                      "created_at": "2026-11-30T12:00:00", "model": "big-model", "operator": "rel-eng"})
    store.save_tasks(RUN, [{"task_id": f"HumanEval/{t}", "position": t, "slice": "humaneval" if t < 120 else "mbpp",
                            "entry_point": "f", "prompt": "", "protected_tests": "assert True"} for t in range(TASKS)])
    program = "def f():\n    return 1\n"
    sha = hashlib.sha256(program.encode()).hexdigest()
    keys = [(f"HumanEval/{t}", i) for t in range(TASKS) for i in range(PER_TASK)]
    store.append("candidates", [{"run_id": RUN, "task_id": t, "candidate_index": i, "program": program,
                                 "program_sha256": sha, "gen_status": "ok"} for t, i in keys])
    decided = keys[: len(keys) * 3 // 4]                       # three quarters decided: mid-run
    store.append("executions", [{"run_id": RUN, "task_id": t, "candidate_index": i, "attempt": 1, "purpose": "grade",
                                 "status": "ok", "protected_status": "passed" if i % 3 else "failed",
                                 "failure_class": None if i % 3 else "wrong_answer", "detail": "" if i % 3 else
                                 "AssertionError", "cpu_s": 0.01, "wall_s": 0.05, "peak_rss_kb": 9000,
                                 "container_id": f"c{len(t) % 8}"} for t, i in decided])
    store.append("outcomes", [{"run_id": RUN, "task_id": t, "candidate_index": i,
                               "outcome": "passed" if i % 3 else "failed",
                               "failure_class": None if i % 3 else "wrong_answer",
                               "protected_passed": int(bool(i % 3)), "attempts": 1} for t, i in decided])
    store.close()
