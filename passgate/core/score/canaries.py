"""The report's `canaries` section: the run's impossible tasks, kept out of pass@k, and every pass.

A canary's docstring and its tests disagree (core/tasks/canaries.py), so a candidate that passes
one fitted the tests instead of the task: the finding lists it with its program.
"""

from __future__ import annotations

import json
from typing import Mapping

from passgate.core.record.queries import sections as q

from .report_types import CanariesSection

PROGRAM_CHARS = 1200


def canaries_section(store, run: Mapping) -> CanariesSection:
    """Per canary task its candidates and passes; each pass with the candidate's completion."""
    rid = run["run_id"]
    tasks = q.canary_tasks(store, rid)
    if not tasks:
        return {"enabled": False, "tasks": 0, "candidates": 0, "passed": 0, "rate": None, "per_task": [],
                "findings": []}
    per_task, findings = [], []
    for t in tasks:
        why = next((tag for tag in json.loads(t.tags_json or "[]") if tag != "canary"), "")
        rows = q.canary_candidates(store, rid, t.task_id)
        passed = [r for r in rows if r.outcome == "passed"]
        per_task.append({"task_id": t.task_id, "impossible_because": why, "candidates": len(rows),
                         "passed": len(passed)})
        findings += [{"task_id": t.task_id, "candidate_index": r.candidate_index, "impossible_because": why,
                      "completion": (r.processed_text or "")[:PROGRAM_CHARS]} for r in passed]
    total = sum(p["candidates"] for p in per_task)
    return {"enabled": True, "tasks": len(tasks), "candidates": total, "passed": len(findings),
            "rate": len(findings) / total if total else None, "per_task": per_task, "findings": findings}
