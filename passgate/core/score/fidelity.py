"""Verdict fidelity: how often the isolated grader and the reference harness's one-process program
agree on the candidates the cross-check covered, and each time they did not, with both verdicts.

A pure function of execution rows; the report and the gate both call it. A disagreement is
explained when the design accounts for it: the isolated grader refuses what a one-process program
cannot tell from an answer (an object that is not data, an exit before the tests end, a blocked
boundary attempt), or the one-process run ended without saying anything about the answer (timeout,
memory, output). Any other disagreement is unexplained, and makes the evidence weak.
"""

from __future__ import annotations

import json
from typing import Iterable, Mapping

from .report_types import Disagreement, FidelitySummary, FidelityVerdict

REFUSED_BY_DESIGN = {
    "not_plain_data": "the isolated grader never compares an object that is not data; one process compares it",
    "premature_exit": "the isolated grader fails an exit before the tests end; one process cannot tell it from a pass",
    "sandbox_violation": "the isolated grader fails a blocked boundary attempt; one process reports only its tests",
    "disallowed_import": "the isolated run enforces the task's allowed imports; the one-process program does not",
    "classic_failed": None,
}
NOT_ABOUT_THE_ANSWER = {"timeout", "memory_exceeded", "output_exceeded", "infra_error"}


def fidelity_summary(rows: Iterable[Mapping]) -> FidelitySummary:
    """Agreement over every cross-checked attempt, and each disagreement with both sides' details."""
    checked = agreed = 0
    disagreements = []
    for row in rows:
        if not row.get("classic_status"):
            continue
        evidence = json.loads(row.get("evidence_json") or "{}").get("classic") or {}
        isolated = evidence.get("isolated") or row.get("protected_status")
        if isolated == "not_run":
            continue
        checked += 1
        if isolated == row["classic_status"]:
            agreed += 1
            continue
        disagreements.append(_disagreement(row, evidence, isolated))
    unexplained = sum(1 for d in disagreements if not d["explained"])
    return {"checked": checked, "agreed": agreed, "rate": agreed / checked if checked else None,
            "disagreements": disagreements, "unexplained": unexplained}


def _disagreement(row: Mapping, evidence: Mapping, isolated: str) -> Disagreement:
    classic: FidelityVerdict = {"status": row["classic_status"], "class": row.get("classic_class"),
                                "detail": evidence.get("detail") or ""}
    if isolated == "passed":
        mine: FidelityVerdict = {"status": "passed", "class": None, "detail": ""}
    else:
        mine = {"status": isolated, "class": row.get("protected_class") or row.get("failure_class"),
                "detail": row.get("detail") or ""}
    notes = json.loads(row.get("evidence_json") or "{}").get("notes") or []
    return {"task_id": row["task_id"], "candidate_index": row["candidate_index"], "attempt": row.get("attempt"),
            "purpose": row.get("purpose"), "isolated": mine, "classic": classic,
            "explained": _explanation(mine, classic, notes)}


def _explanation(isolated: Mapping, classic: Mapping, notes: list) -> str | None:
    shadowing = [n for n in notes if "shadows the builtin" in n]
    if isolated["status"] == "failed" and shadowing:
        return shadowing[0] + " (in one process the program's own would answer)"
    if classic["status"] == "failed" and classic["class"] in NOT_ABOUT_THE_ANSWER:
        return f"the one-process run ended with {classic['class']}, which says nothing about the answer"
    if isolated["status"] == "failed":
        if isolated["class"] in NOT_ABOUT_THE_ANSWER:
            return f"the isolated run ended with {isolated['class']}, which says nothing about the answer"
        return REFUSED_BY_DESIGN.get(isolated["class"] or "")
    return None
