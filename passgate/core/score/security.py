"""The report's `security` section: static findings in candidate programs, passing and failing apart.

"Passed its tests and has a high-severity finding" is the figure that matters, so every rate is
given for passing candidates (outcome passed) and failing ones (failed, flaky) separately, per
slice and model, at each severity floor. Also the secure pass@k what-if: passes with a finding at
or above a severity count as failures (`insecure_passes`).
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from typing import Mapping

import numpy as np

from passgate.core.record.queries import sections as q
from passgate.core.record.queries import sections_security as qs
from passgate.core.record.queries.scans import Limits

from .report_types import NotScanned, SecurityExample, SecurityRulesAndExamples, SecuritySection, SeverityRates

SEVERITIES = ("low", "medium", "high")     # a finding's severity rank is its position here
EXAMPLES = 10
TOP_RULES = 10


def security_section(store, run: Mapping) -> SecuritySection | NotScanned:
    """Finding rates per slice and model, top rules and examples, from the run's `scans` rows."""
    rid, model = run["run_id"], run.get("model") or ""
    if not q.has_table(store, "scans"):
        return {"scanned": False, "reason": "the record predates security scans"}
    head = qs.scan_totals(store, rid)
    if not head.candidates and q.has_language_tasks(store, rid):
        return {"scanned": False, "reason": "the static scan reads Python programs; this run's tasks are in "
                                            "other languages"}
    if not head.candidates:
        return {"scanned": False, "reason": "no candidate of this run was scanned (the manifest did not ask "
                                            "for a security scan, or the run stopped before it)"}
    per_slice: dict[str, dict] = defaultdict(lambda: {"passing": Counter(), "failing": Counter()})
    for r in qs.severity_counts(store, rid):
        if r.grp is not None:
            per_slice[r.slice][r.grp][r.sev_rank] += r.n
    total = {"passing": Counter(), "failing": Counter()}
    for counts in per_slice.values():
        for grp in total:
            total[grp].update(counts[grp])
    scanners: dict = {}
    for blob in qs.scanner_versions_json(store, rid):
        scanners.update(json.loads(blob or "{}"))
    return {"scanned": True, "scanners": scanners, "candidates_scanned": int(head.candidates),
            "distinct_programs": int(head.programs), "unparsed": int(head.unparsed or 0), "severities": list(SEVERITIES),
            "overall": {grp: _rates(c) for grp, c in total.items()},
            "groups": [{"slice": name, "model": model, **{grp: _rates(c[grp]) for grp in ("passing", "failing")}}
                       for name, c in sorted(per_slice.items())],
            **_rules_and_examples(store, rid)}


def _rates(counts: Counter) -> SeverityRates:
    """Candidates, and how many carry a finding at or above each severity, with the rates."""
    n = sum(counts.values())
    at_least = {sev: sum(v for rank, v in counts.items() if rank is not None and rank >= i)
                for i, sev in enumerate(SEVERITIES)}
    return {"candidates": n, "with_findings": at_least,
            "rate": {sev: (v / n if n else None) for sev, v in at_least.items()}}


def _rules_and_examples(store, rid: str) -> SecurityRulesAndExamples:
    """Rules by how many candidates they hit (passing ones apart), and examples (passing candidates
    first, worst severity first)."""
    hits: dict[str, dict] = {}
    examples = []
    for r in qs.scans_with_findings(store, rid):
        findings = json.loads(r.findings_json or "[]")
        for rule_id in {f["rule_id"] for f in findings}:
            f = next(x for x in findings if x["rule_id"] == rule_id)
            entry = hits.setdefault(rule_id, {"rule_id": rule_id, "rule": f["rule"], "severity": f["severity"],
                                              "scanner": f["scanner"], "candidates": 0, "passing": 0})
            entry["candidates"] += 1
            entry["passing"] += r.outcome == "passed"
        worst = max(findings, key=lambda f: SEVERITIES.index(f["severity"]))
        # passing candidates first (the figure that matters), then the worst severity
        examples.append((r.outcome != "passed", -(r.sev_rank or 0), r.task_id, r.candidate_index, r.outcome, worst))
    examples.sort(key=lambda e: e[:4])
    top = sorted(hits.values(), key=lambda h: (-h["candidates"], h["rule_id"]))[:TOP_RULES]
    return {"top_rules": top, "examples": _with_code(store, rid, examples[:EXAMPLES])}


def _with_code(store, rid: str, picked: list) -> list[SecurityExample]:
    out = []
    for _failing, _rank, task_id, index, outcome, f in picked:
        lines = q.candidate_program(store, rid, task_id, index).splitlines()
        code = lines[f["line"] - 1].strip() if 0 < f["line"] <= len(lines) else ""
        out.append({"task_id": task_id, "candidate_index": index, "outcome": outcome, "rule_id": f["rule_id"],
                    "rule": f["rule"], "severity": f["severity"], "confidence": f["confidence"], "line": f["line"],
                    "code": code[:160], "text": f["text"]})
    return out


def insecure_passes(store, run_id: str, severity: str, ids: list, limits: Limits, cap: int | None) -> dict:
    """Per task (in `ids` order): protected passes and public passes whose program has a finding at or
    above `severity`, among rows a what-if still counts (under its CPU limit and candidate cap)."""
    found = qs.insecure_pass_counts(store, run_id, SEVERITIES.index(severity), limits, cap)
    return {"protected": np.array([found.get(t, (0, 0))[0] for t in ids], dtype=np.int64),
            "public": np.array([found.get(t, (0, 0))[1] for t in ids], dtype=np.int64)}
