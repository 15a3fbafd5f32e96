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

SEVERITIES = ("low", "medium", "high")
# a scans row's worst severity as 0 / 1 / 2 (NULL: no finding), for rows aliased `s`
SEVERITY_RANK_SQL = "CASE s.max_severity WHEN 'high' THEN 2 WHEN 'medium' THEN 1 WHEN 'low' THEN 0 END"
_GROUP_SQL = ("CASE WHEN o.outcome = 'passed' THEN 'passing' WHEN o.outcome IN ('failed', 'flaky') "
              "THEN 'failing' END")
EXAMPLES = 10
TOP_RULES = 10


def security_section(store, run: Mapping) -> dict:
    """Finding rates per slice and model, top rules and examples, from the run's `scans` rows."""
    rid, model = run["run_id"], run.get("model") or ""
    if "scans" not in store.db.table_names():
        return {"scanned": False, "reason": "the record predates security scans"}
    head = store.db.execute("SELECT COUNT(*), COUNT(DISTINCT program_sha256), SUM(parsed = 0) FROM scans "
                            "WHERE run_id = ?", [rid]).fetchone()
    if not head[0] and store.db.execute("SELECT 1 FROM tasks WHERE run_id = ? AND tags_json LIKE '%\"language:%' "
                                        "LIMIT 1", [rid]).fetchone():
        return {"scanned": False, "reason": "the static scan reads Python programs; this run's tasks are in "
                                            "other languages"}
    if not head[0]:
        return {"scanned": False, "reason": "no candidate of this run was scanned (the manifest did not ask "
                                            "for a security scan, or the run stopped before it)"}
    rows = store.query(f"SELECT t.slice, {_GROUP_SQL} AS grp, {SEVERITY_RANK_SQL} AS sev_rank, COUNT(*) AS n "
                       "FROM scans s "
                       "JOIN outcomes o ON o.run_id = s.run_id AND o.task_id = s.task_id "
                       "AND o.candidate_index = s.candidate_index JOIN tasks t ON t.run_id = s.run_id "
                       "AND t.task_id = s.task_id WHERE s.run_id = ? GROUP BY 1, 2, 3", [rid])
    per_slice: dict[str, dict] = defaultdict(lambda: {"passing": Counter(), "failing": Counter()})
    for r in rows:
        if r["grp"] is not None:
            per_slice[r["slice"]][r["grp"]][r["sev_rank"]] += r["n"]
    total = {"passing": Counter(), "failing": Counter()}
    for counts in per_slice.values():
        for grp in total:
            total[grp].update(counts[grp])
    scanners: dict = {}
    for (blob,) in store.db.execute("SELECT DISTINCT scanners_json FROM scans WHERE run_id = ?", [rid]):
        scanners.update(json.loads(blob or "{}"))
    return {"scanned": True, "scanners": scanners, "candidates_scanned": int(head[0]),
            "distinct_programs": int(head[1]), "unparsed": int(head[2] or 0), "severities": list(SEVERITIES),
            "overall": {grp: _rates(c) for grp, c in total.items()},
            "groups": [{"slice": name, "model": model, **{grp: _rates(c[grp]) for grp in ("passing", "failing")}}
                       for name, c in sorted(per_slice.items())],
            **_rules_and_examples(store, rid)}


def _rates(counts: Counter) -> dict:
    """Candidates, and how many carry a finding at or above each severity, with the rates."""
    n = sum(counts.values())
    at_least = {sev: sum(v for rank, v in counts.items() if rank is not None and rank >= i)
                for i, sev in enumerate(SEVERITIES)}
    return {"candidates": n, "with_findings": at_least,
            "rate": {sev: (v / n if n else None) for sev, v in at_least.items()}}


def _rules_and_examples(store, rid: str) -> dict:
    """Rules by how many candidates they hit (passing ones apart), and examples (passing candidates
    first, worst severity first)."""
    hits: dict[str, dict] = {}
    examples = []
    for r in store.query(f"SELECT s.task_id, s.candidate_index, s.findings_json, o.outcome, "
                         f"{SEVERITY_RANK_SQL} AS sev_rank FROM scans s LEFT JOIN outcomes o "
                         "ON o.run_id = s.run_id AND o.task_id = s.task_id AND o.candidate_index = s.candidate_index WHERE s.run_id = ? AND s.findings > 0 "
                         "ORDER BY s.task_id, s.candidate_index", [rid]):
        findings = json.loads(r["findings_json"] or "[]")
        for rule_id in {f["rule_id"] for f in findings}:
            f = next(x for x in findings if x["rule_id"] == rule_id)
            entry = hits.setdefault(rule_id, {"rule_id": rule_id, "rule": f["rule"], "severity": f["severity"],
                                              "scanner": f["scanner"], "candidates": 0, "passing": 0})
            entry["candidates"] += 1
            entry["passing"] += r["outcome"] == "passed"
        worst = max(findings, key=lambda f: SEVERITIES.index(f["severity"]))
        # passing candidates first (the figure that matters), then the worst severity
        examples.append((r["outcome"] != "passed", -(r["sev_rank"] or 0), r["task_id"], r["candidate_index"],
                         r["outcome"], worst))
    examples.sort(key=lambda e: e[:4])
    top = sorted(hits.values(), key=lambda h: (-h["candidates"], h["rule_id"]))[:TOP_RULES]
    return {"top_rules": top, "examples": _with_code(store, rid, examples[:EXAMPLES])}


def _with_code(store, rid: str, picked: list) -> list[dict]:
    out = []
    for _failing, _rank, task_id, index, outcome, f in picked:
        row = store.db.execute("SELECT program FROM candidates WHERE run_id = ? AND task_id = ? AND "
                               "candidate_index = ?", [rid, task_id, index]).fetchone()
        lines = (row[0] if row else "").splitlines()
        code = lines[f["line"] - 1].strip() if 0 < f["line"] <= len(lines) else ""
        out.append({"task_id": task_id, "candidate_index": index, "outcome": outcome, "rule_id": f["rule_id"],
                    "rule": f["rule"], "severity": f["severity"], "confidence": f["confidence"], "line": f["line"],
                    "code": code[:160], "text": f["text"]})
    return out


def insecure_passes(conn, run_id: str, severity: str, ids: list, limit_sql: tuple, cap: int | None) -> dict:
    """Per task (in `ids` order): protected passes and public passes whose program has a finding at or
    above `severity`, among rows a what-if still counts (under its CPU limit and candidate cap)."""
    join, over, lim = limit_sql
    rank = SEVERITIES.index(severity)
    where = f" AND NOT {over}" if lim else ""
    where += " AND o.candidate_index < ?" if cap is not None else ""
    sql = (f"SELECT o.task_id, SUM(o.protected_passed = 1 AND o.outcome = 'passed'), SUM(o.public_passed = 1) "
           f"FROM outcomes o {join} JOIN scans s ON s.run_id = o.run_id AND s.task_id = o.task_id "
           f"AND s.candidate_index = o.candidate_index WHERE o.run_id = ? AND {SEVERITY_RANK_SQL} >= ? "
           f"AND o.outcome IN ('passed', 'failed', 'flaky'){where} GROUP BY o.task_id")
    params = [run_id, rank] + lim + ([cap] if cap is not None else [])
    found = {r[0]: (r[1] or 0, r[2] or 0) for r in conn.execute(sql, params)}
    return {"protected": np.array([found.get(t, (0, 0))[0] for t in ids], dtype=np.int64),
            "public": np.array([found.get(t, (0, 0))[1] for t in ids], dtype=np.int64)}
