"""The report's `canaries` section: the run's impossible tasks, kept out of pass@k, and every pass.

A canary's docstring and its tests disagree (core/tasks/canaries.py), so a candidate that passes
one fitted the tests instead of the task: the finding lists it with its program.
"""

from __future__ import annotations

import json
from typing import Mapping

from passgate.core.model import CANARY_GLOB_SQL

PROGRAM_CHARS = 1200


def canaries_section(store, run: Mapping) -> dict:
    """Per canary task its candidates and passes; each pass with the candidate's completion."""
    rid = run["run_id"]
    tasks = list(store.query(f"SELECT task_id, tags_json FROM tasks WHERE run_id = ? AND task_id GLOB "
                             f"{CANARY_GLOB_SQL} ORDER BY position", [rid]))
    if not tasks:
        return {"enabled": False, "tasks": 0, "candidates": 0, "passed": 0, "rate": None, "per_task": [],
                "findings": []}
    per_task, findings = [], []
    for t in tasks:
        why = next((tag for tag in json.loads(t["tags_json"] or "[]") if tag != "canary"), "")
        rows = list(store.query(
            "SELECT o.candidate_index, o.outcome, c.processed_text FROM outcomes o JOIN candidates c "
            "ON c.run_id = o.run_id AND c.task_id = o.task_id AND c.candidate_index = o.candidate_index "
            "WHERE o.run_id = ? AND o.task_id = ? AND o.outcome IN ('passed', 'failed', 'flaky') "
            "ORDER BY o.candidate_index", [rid, t["task_id"]]))
        passed = [r for r in rows if r["outcome"] == "passed"]
        per_task.append({"task_id": t["task_id"], "impossible_because": why, "candidates": len(rows),
                         "passed": len(passed)})
        findings += [{"task_id": t["task_id"], "candidate_index": r["candidate_index"], "impossible_because": why,
                      "completion": (r["processed_text"] or "")[:PROGRAM_CHARS]} for r in passed]
    total = sum(p["candidates"] for p in per_task)
    return {"enabled": True, "tasks": len(tasks), "candidates": total, "passed": len(findings),
            "rate": len(findings) / total if total else None, "per_task": per_task, "findings": findings}
