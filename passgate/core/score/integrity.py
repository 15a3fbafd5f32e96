"""The report's `integrity` section: how the verdicts' assertions were decided, per slice.

Under grading protocol 3 each assertion site of the protected suite is decided `outside` the
candidate's process (the grader holds the expected value), `visible` (the grader decides, but the
expected value is also in the process) or `in_process` (the candidate's process decides it, e.g.
`isinstance(...)`). A verdict whose assertions were decided in the candidate's process is weaker
evidence than one the grader decided, so the report counts them per slice and the gate weighs the
in-process share (core/gate/evidence.py `verdict_integrity`).

Shape (JSON-ready; figures over counted candidates, canaries left out):

    {"recorded": bool,               # false: the run's grading protocol does not record it
     "grading_protocol": int | None,
     "reason": str,                  # why not recorded ("" when recorded)
     "headline": BLOCK | None,       # every slice together (the headline pass@k's set)
     "slices": [{"slice": str, **BLOCK}, ...]}   # by slice name

    BLOCK = {"candidates": int,      # counted candidates (passed, failed, flaky)
             "with_record": int,     # of them, whose deciding attempt carries an integrity record
             "outside": int, "visible": int, "in_process": int,   # assertions decided, summed
             "decided": int,         # outside + visible + in_process
             "in_process_share": float | None,   # in_process / decided; None when nothing was decided
             "process_control": int} # verdicts where the test's own control flow, in the process,
                                     # decided which sites had to run (control "process")

A run graded before protocol 3 is `recorded: false` with `headline: None` and no slices: its
figures are unknown, never zero.
"""

from __future__ import annotations

import json
from typing import Iterable, Mapping

from passgate.core.record.queries import report as queries

from .report_types import IntegrityBlock, IntegrityNotRecorded, IntegritySection

FIRST_PROTOCOL = 3        # the first grading protocol that records how assertions were decided
COUNTS = ("outside", "visible", "in_process")


def integrity_section(store, run: Mapping) -> IntegritySection | IntegrityNotRecorded:
    """The run's integrity block: not recorded before protocol 3, else per slice and overall."""
    protocol = run.get("grading_protocol")
    if not protocol or int(protocol) < FIRST_PROTOCOL:
        return {"recorded": False, "grading_protocol": protocol, "headline": None, "slices": [],
                "reason": f"grading protocol {protocol or 1} does not record how assertions were decided"}
    if queries.has_language_tasks(store, run["run_id"]):
        return {"recorded": False, "grading_protocol": int(protocol), "headline": None, "slices": [],
                "reason": "the run's tasks are in other languages; the languages section says where their "
                          "verdicts were decided"}
    rows = store.verdict_integrity(run["run_id"])
    by_slice: dict[str, list[dict]] = {}
    for row in rows:
        by_slice.setdefault(row["slice"] or "", []).append(row)
    return {"recorded": True, "grading_protocol": int(protocol), "reason": "", "headline": summarise(rows),
            "slices": [{"slice": name, **summarise(part)} for name, part in sorted(by_slice.items())]}


def summarise(rows: Iterable[Mapping]) -> IntegrityBlock:
    """One BLOCK over these verdict rows (each with an `integrity_json` text, or None)."""
    block = {"candidates": 0, "with_record": 0, **{k: 0 for k in COUNTS}, "process_control": 0}
    for row in rows:
        block["candidates"] += 1
        record = parse_record(row.get("integrity_json"))
        if record is None:
            continue
        block["with_record"] += 1
        for key in COUNTS:
            block[key] += record[key]
        block["process_control"] += record["control"] == "process"
    block["decided"] = sum(block[k] for k in COUNTS)
    block["in_process_share"] = block["in_process"] / block["decided"] if block["decided"] else None
    return block


def parse_record(text: str | None) -> dict | None:
    """An integrity record with whole counts, or None when absent or unreadable (never guessed as zero).
    A record that does not name its control counts as process-controlled: the grader did not say it
    knew every site that had to run."""
    try:
        data = json.loads(text) if text else None
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    try:
        return {**{k: int(data.get(k) or 0) for k in COUNTS}, "control": str(data.get("control") or "process")}
    except (TypeError, ValueError):
        return None
