"""The run's security scan: every candidate program not yet scanned, once per distinct program.

Runs in the controller after grading (outside any sandbox: the scanners only read the text) and
appends one chained `scans` row per candidate, so a resumed run scans only what is missing.
"""

from __future__ import annotations

import json

from passgate.core.candidates.security_scan import SEVERITIES, check_pins, scan_programs, severity_rank
from passgate.core.progress import Progress
from passgate.core.record.queries import runs
from passgate.core.record.queries.runs import ProgramToScan
from passgate.core.record.store import Store, utcnow

BATCH = 400


def scan_run(store: Store, ctx) -> int:
    """Scan the run's unscanned candidates; returns how many rows were written."""
    spec = ctx.manifest.scoring.security
    if not spec.scan:
        return 0
    pins = check_pins(spec)
    todo = runs.unscanned_programs(store, ctx.run_id)
    written, scanned = 0, {}           # scanned: each distinct program's scan, across batches
    for start in range(0, len(todo), BATCH):
        batch = todo[start:start + BATCH]
        ctx.progress(Progress(run_id=ctx.run_id, phase="scan", done=start, total=len(todo),
                              message=f"security scan: {start} of {len(todo)} candidates"))
        written += store.append("scans", _rows(ctx, batch, spec, pins, scanned))
    if todo:
        programs = len({r.program_sha256 for r in todo})
        store.event(ctx.run_id, "scan", f"security scan: {len(todo)} candidates, {programs} distinct programs "
                                        f"(bandit {pins['bandit']}, detect-secrets {pins['detect-secrets']})")
    return written


def _task_lines(ctx, task_id: str, program: str) -> int:
    """How many leading lines of the program are the task's own text (its preamble, and the prompt a
    body-style completion continues): a finding there is the task's, not the candidate's."""
    task = ctx.tasks.get(task_id)
    if task is None:
        return 0
    for prefix in (task.candidate_preamble + task.prompt, task.candidate_preamble):
        if prefix and program.startswith(prefix):
            return prefix.count("\n") + (0 if prefix.endswith("\n") else 1)
    return 0


def _rows(ctx, batch: list[ProgramToScan], spec, pins: dict, scans: dict) -> list[dict]:
    """The batch's scans rows; programs not in `scans` (by sha256 and the task's lines) are scanned and added."""
    keys = {}
    for r in batch:
        skip = _task_lines(ctx, r.task_id, r.program)
        keys[(r.task_id, r.candidate_index)] = (f"{r.program_sha256}:{skip}", skip)
    programs = {key: r.program for r, (key, _s) in zip(batch, keys.values()) if key not in scans}
    if programs:
        scans.update(scan_programs(programs, spec, {key: skip for key, skip in keys.values() if key in programs}))
    at = utcnow()
    rows = []
    for r in batch:
        scan = scans[keys[(r.task_id, r.candidate_index)][0]]
        worst = max((severity_rank(f.severity) for f in scan.findings), default=None)
        rows.append({"run_id": ctx.run_id, "task_id": r.task_id, "candidate_index": r.candidate_index,
                     "program_sha256": r.program_sha256, "scanners_json": json.dumps(pins, sort_keys=True),
                     "parsed": int(scan.parsed), "findings": len(scan.findings),
                     "max_severity": None if worst is None else SEVERITIES[worst],
                     "findings_json": json.dumps([f.as_dict() for f in scan.findings]), "scanned_at": at})
    return rows
