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

from passgate.core.record.queries import sections as q
from passgate.core.record.queries import sections_security as qs

from .report_types import NotRecorded, TamperSection

EXAMPLES = 20


def tamper_section(store, run: Mapping) -> TamperSection | NotRecorded:
    """Candidates with at least one tripwire event, per slice, by kind, with examples."""
    rid, model = run["run_id"], run.get("model") or ""
    if not q.has_column(store, "executions", "tamper_json"):
        return {"recorded": False, "reason": "the record predates tamper tripwires"}
    counted = qs.counted_per_slice(store, rid)
    events: dict[tuple, set] = defaultdict(set)
    where: dict[tuple, tuple] = {}
    for r in qs.tamper_events(store, rid):
        key = (r.task_id, r.candidate_index)
        events[key] |= set(json.loads(r.tamper_json or "[]"))
        where[key] = (r.slice, r.outcome)
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
