"""The run's contract scan: what each candidate program's text names and how its entry point's
signature compares with the task's, beside the verdict (never changing it).

Runs in the controller after grading (reading text only, nothing executes) and appends one chained
`contract_scans` row per candidate, so a resumed run scans only what is missing. `stdlib` is the
sandbox's own `sys.stdlib_module_names`, as its worker reported it in the preflight probe.
"""

from __future__ import annotations

import json

from passgate.core.progress import Progress
from passgate.core.record.queries import runs
from passgate.core.record.queries.runs import ProgramToScan
from passgate.core.record.store import Store, utcnow
from passgate.core.tasks.contract import STDLIB, entry_signature, scan_imports, signature_changes

from .security import _task_lines

BATCH = 500


def sandbox_stdlib(store: Store, run_id: str) -> frozenset[str]:
    """The standard library's module names in the run's sandbox (from its probe), else this Python's."""
    run = store.run(run_id)
    try:
        names = json.loads(run.get("probe_json") or "{}").get("raw", {}).get("worker", {}).get("stdlib_modules")
    except (ValueError, AttributeError):
        names = None
    return frozenset(names) if names else STDLIB


def contract_scan_run(store: Store, ctx) -> int:
    """Scan the run's candidates that have no contract scan yet; returns how many rows were written."""
    todo = runs.programs_without_contract_scan(store, ctx.run_id)
    if not todo:
        return 0
    stdlib = sandbox_stdlib(store, ctx.run_id)
    written, cache = 0, {}
    for start in range(0, len(todo), BATCH):
        ctx.progress(Progress(run_id=ctx.run_id, phase="scan", done=start, total=len(todo),
                              message=f"contract scan: {start} of {len(todo)} candidates"))
        rows = [contract_row(ctx, r, stdlib, cache) for r in todo[start:start + BATCH]]
        written += store.append("contract_scans", [r for r in rows if r is not None])
    named = runs.contract_scan_tally(store, ctx.run_id)
    store.event(ctx.run_id, "scan", f"contract scan: {named.scanned} candidates, {named.disallowed or 0} name a module "
                                    f"their task does not allow, {named.signature_changed or 0} change the entry "
                                    "point's signature")
    return written


def contract_row(ctx, r: ProgramToScan, stdlib: frozenset[str], cache: dict) -> dict | None:
    """One candidate's row (scans of an identical program on the same task are shared)."""
    task = ctx.tasks.get(r.task_id)
    if task is None:
        return None
    key = (r.task_id, r.program_sha256)
    if key not in cache:
        cache[key] = _scan(task, r.program, stdlib, _task_lines(ctx, r.task_id, r.program))
    parsed, named, sig, changes = cache[key]
    return {"run_id": ctx.run_id, "task_id": r.task_id, "candidate_index": r.candidate_index,
            "program_sha256": r.program_sha256, "parsed": int(parsed),
            "imports_json": json.dumps([n.as_dict() for n in named]),
            "disallowed": sum(1 for n in named if n.allowed is False),
            "dynamic": sum(1 for n in named if not n.module),
            "signature_json": json.dumps(sig, sort_keys=True) if sig else None,
            "signature_changed": None if changes is None else int(bool(changes)),
            "signature_changes_json": None if changes is None else json.dumps(changes), "scanned_at": utcnow()}


def _scan(task, program: str, stdlib: frozenset[str], skip: int):
    parsed, named = scan_imports(program, task.allowed_imports, skip_lines=skip, stdlib=stdlib)
    expected = json.loads(task.signature) if task.signature else None
    got = entry_signature(program, task.entry_point) if parsed else None
    # without the task's signature, or a program that does not parse, there is nothing to compare
    changes = signature_changes(expected, got) if expected is not None and parsed else None
    return parsed, named, got, changes
