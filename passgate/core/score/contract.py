"""The report's `contract` section: the task contract beyond the tests, per slice and model.

Disallowed imports counted in pass@k (outcomes failed as `disallowed_import`, with the modules the
sandbox saw the program import), what the programs' text names that the contract does not allow
(the `contract_scans` rows: also code that never ran), and entry points whose signature differs from
the task's in what a caller can pass (a finding beside the verdict, never a failure).
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from typing import Mapping

from passgate.core import kinds
from passgate.core.allowed_imports import imports_words
from passgate.core.manifest import Manifest
from passgate.core.record.queries import sections as q
from passgate.core.record.queries import sections_security as qs

from .report_types import ContractSection, ImportPolicyRow, NotRecorded, RefusedImport, SignatureExample

EXAMPLES = 20


def import_policy(manifest: Manifest | None) -> list[ImportPolicyRow]:
    """Each task set's allowed imports in effect, as the report header shows them (sets in other
    languages have no import contract; a record without its manifest shows none)."""
    sets = manifest.tasks.sets if manifest is not None else ()
    return [{"set": s.slice or s.kind, "kind": s.kind, "declared": s.allowed_imports is not None,
             "allowed_imports": imports_words(s.imports)}
            for s in sets if s.kind not in kinds.names(grader="language")]


def contract_section(store, run: Mapping) -> ContractSection | NotRecorded:
    """Disallowed imports and signature findings per slice, with the modules named and examples."""
    rid, model = run["run_id"], run.get("model") or ""
    if not q.has_table(store, "contract_scans"):
        return {"recorded": False, "reason": "the record predates the task contract"}
    if q.has_language_tasks(store, rid):
        return {"recorded": False, "reason": "the task contract applies to Python programs; this run's tasks are in "
                                             "other languages"}
    policy = {s: json.loads(allowed or '["any"]') for s, allowed in qs.allowed_imports_by_slice(store, rid).items()}
    groups: dict[str, dict] = defaultdict(_group)
    for r in qs.refusals_per_slice(store, rid):
        groups[r.slice].update(candidates=r.candidates, disallowed_import=r.refused or 0)
    examples = _runtime(store, rid, groups)
    _static(store, rid, groups)
    scanned = qs.contract_scan_count(store, rid)
    overall = _group()
    for g in groups.values():
        for key, value in g.items():
            overall[key] = overall[key] + value
    return {"recorded": True, "scanned": scanned, "model": model,
            "allowed_imports": {s: imports_words(v) for s, v in sorted(policy.items())},
            "overall": _plain(overall),
            "groups": [{"slice": s, "model": model, "allowed_imports": imports_words(policy.get(s, ["any"])),
                        **_plain(g)} for s, g in sorted(groups.items())],
            "examples": examples, "signature_examples": _signature_examples(store, rid)}


def _group() -> dict:
    return {"candidates": 0, "disallowed_import": 0, "modules": Counter(), "named": 0, "named_modules": Counter(),
            "named_not_run": 0, "dynamic": 0, "signature_changed": 0, "signature_unknown": 0}


def _plain(g: Mapping) -> dict:
    return {k: (dict(sorted(v.items(), key=lambda kv: (-kv[1], kv[0]))) if isinstance(v, Counter) else v)
            for k, v in g.items()}


def _runtime(store, rid: str, groups: dict) -> list[RefusedImport]:
    """Modules the sandbox saw refused, counted once per candidate; the first attempts as examples."""
    seen: dict[tuple, list] = {}
    where: dict[tuple, tuple] = {}
    for r in qs.refused_import_attempts(store, rid):
        key = (r.task_id, r.candidate_index)
        for a in json.loads(r.imports_json or "[]"):
            if a not in seen.setdefault(key, []):
                seen[key].append(a)
        where[key] = (r.slice, r.outcome, r.failure_class)
    for key, attempts in seen.items():
        groups[where[key][0]]["modules"].update({a.get("top") or "?" for a in attempts})
    out = []
    for key in sorted(seen)[:EXAMPLES]:
        a = seen[key][0]
        out.append({"task_id": key[0], "candidate_index": key[1], "slice": where[key][0], "outcome": where[key][1],
                    "module": a.get("module"), "line": a.get("line"), "how": a.get("how"), "in": a.get("in") or "",
                    "code": _line(store, rid, key, a.get("line"))})
    return out


def _static(store, rid: str, groups: dict) -> None:
    """What the counted candidates' text names that their task does not allow, and signature findings."""
    for r in qs.counted_contract_scans(store, rid):
        g = groups[r.slice]
        if r.disallowed:
            g["named"] += 1
            g["named_modules"].update({n["top"] for n in json.loads(r.imports_json or "[]")
                                       if n.get("allowed") is False})
            g["named_not_run"] += r.failure_class != "disallowed_import"
        g["dynamic"] += bool(r.dynamic)
        g["signature_changed"] += r.signature_changed == 1
        g["signature_unknown"] += r.signature_changed is None


def _signature_examples(store, rid: str) -> list[SignatureExample]:
    return [{"task_id": r.task_id, "candidate_index": r.candidate_index, "outcome": r.outcome,
             "changes": json.loads(r.signature_changes_json or "[]")}
            for r in qs.signature_changes(store, rid, EXAMPLES)]


def _line(store, rid: str, key: tuple, line) -> str:
    if not isinstance(line, int) or line < 1:
        return ""
    lines = q.candidate_program(store, rid, *key).splitlines()
    return lines[line - 1].strip()[:160] if line <= len(lines) else ""
