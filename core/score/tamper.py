"""The report's `tamper` section: tamper tripwires the candidates tripped, per slice and model.

Telemetry from the candidate process's audit hook (core/sandbox/program/candidate.py) and the
grader (an exit while a test waited): attempts to trace, walk frames or the heap, swap code, use
ctypes, reach the grader's channel or other processes' memory. The process boundary is the barrier;
these say that a candidate tried, and never change its verdict.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from typing import Mapping

EXAMPLES = 20


def tamper_section(store, run: Mapping) -> dict:
    """Candidates with at least one tripwire event, per slice, by kind, with examples."""
    rid, model = run["run_id"], run.get("model") or ""
    if "tamper_json" not in store.db["executions"].columns_dict:
        return {"recorded": False, "reason": "the record predates tamper tripwires"}
    counted = dict(((r["slice"]), r["n"]) for r in store.query(
        "SELECT t.slice, COUNT(*) AS n FROM outcomes o JOIN tasks t ON t.run_id = o.run_id AND t.task_id = o.task_id "
        "WHERE o.run_id = ? AND o.outcome IN ('passed', 'failed', 'flaky') GROUP BY t.slice", [rid]))
    events: dict[tuple, set] = defaultdict(set)
    where: dict[tuple, tuple] = {}
    for r in store.query("SELECT e.task_id, e.candidate_index, e.tamper_json, t.slice, o.outcome FROM executions e "
                         "JOIN tasks t ON t.run_id = e.run_id AND t.task_id = e.task_id LEFT JOIN outcomes o "
                         "ON o.run_id = e.run_id AND o.task_id = e.task_id AND o.candidate_index = e.candidate_index "
                         "WHERE e.run_id = ? AND e.candidate_index >= 0 AND e.tamper_json IS NOT NULL "
                         "ORDER BY e.task_id, e.candidate_index", [rid]):
        key = (r["task_id"], r["candidate_index"])
        events[key] |= set(json.loads(r["tamper_json"] or "[]"))
        where[key] = (r["slice"], r["outcome"])
    per_slice: Counter = Counter(where[k][0] for k in events)
    kinds: Counter = Counter(kind for evs in events.values() for kind in {e.split(":", 1)[0] for e in evs})
    total = sum(counted.values())
    return {"recorded": True, "candidates": total, "with_events": len(events),
            "rate": len(events) / total if total else None,
            "groups": [{"slice": s, "model": model, "candidates": n, "with_events": per_slice.get(s, 0),
                        "rate": per_slice.get(s, 0) / n if n else None} for s, n in sorted(counted.items())],
            "kinds": [{"kind": k, "candidates": v} for k, v in sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0]))],
            "examples": [{"task_id": k[0], "candidate_index": k[1], "slice": where[k][0], "outcome": where[k][1],
                          "events": sorted(events[k])} for k in sorted(events)[:EXAMPLES]]}
