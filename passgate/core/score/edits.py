"""The report's `edits` section: text match of each local edit's middle beside execution, per slice,
and the suggestion log's acceptance where a product has one.

For every counted candidate of a local-edit task (core/tasks/infilling.py) its middle (the processed
text) is compared with the canonical middle: exact match (the same characters) and edit similarity
(1 - Levenshtein distance / the longer length; two empty texts are 1). Per slice: pass@1 beside
exact-match and similarity rates (each a mean over tasks of the mean over their candidates, as pass@1
is), and the candidates where text and execution disagree: inexact but passing, exact but failing,
and the most similar failures. Acceptance (the `acceptance` table, `passgate acceptance`) is reported
only when a suggestion log was imported: shown, accepted, edited after, and pass rates by acceptance.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np

from passgate.core.record.queries import sections as q

from .latency import latency_rows, latency_section
from .report_types import (AcceptanceGroup, AcceptanceSection, EditDisagreements, EditExample, EditGroup,
                           EditsSection, LocalEditSections)

COUNTED = ("passed", "failed", "flaky")
EXAMPLES = 10


def local_edit_sections(conn, run_id: str, scores: Mapping, level: float) -> LocalEditSections:
    """The report's `edits` and `latency` sections (each None when the run has nothing for it), with
    each slice's pass@1 from `scores` beside them."""
    p1 = {g["name"]: {k: e.get(k) for k in ("value", "ci_low", "ci_high")}
          for g in scores.get("groups", []) if g["kind"] == "slice" for e in g["pass_at_k"] if e["k"] == 1}
    timed, answered = latency_rows(conn, run_id)
    return {"edits": edits_section(edit_rows(conn, run_id), p1, acceptance_rows(conn, run_id)),
            "latency": latency_section(timed, level, p1, answered)}


def edit_rows(conn, run_id: str) -> list[dict]:
    """Per counted candidate of a local-edit task: slice, its middle (its program less the code before
    and after the gap), the canonical one, and the outcome."""
    return q.local_edits(conn, run_id)


def acceptance_rows(conn, run_id: str) -> list[dict]:
    """The run's imported suggestion log joined to each candidate's slice and outcome ([] when none)."""
    return q.suggestion_log(conn, run_id)


def edit_similarity(a: str, b: str) -> float:
    """1 - Levenshtein(a, b) / max(len(a), len(b)); 1.0 for two empty texts."""
    if a == b:
        return 1.0
    longest = max(len(a), len(b))
    return 1.0 - levenshtein(a, b) / longest


def levenshtein(a: str, b: str) -> int:
    """Edit distance (insertions, deletions, substitutions), one numpy row per character of `a`.

    Within a row, d[j] = min(t[j], d[j-1] + 1) unrolls to min over k <= j of t[k] + (j - k): a running
    minimum of t[k] - k."""
    start = 0
    while start < min(len(a), len(b)) and a[start] == b[start]:      # a shared head and tail cost nothing
        start += 1
    a, b = a[start:], b[start:]
    end = 0
    while end < min(len(a), len(b)) and a[-1 - end] == b[-1 - end]:
        end += 1
    a, b = a[:len(a) - end], b[:len(b) - end]
    if len(a) > len(b):
        a, b = b, a                  # one numpy row per character of the shorter text
    if not a:
        return len(b)
    codes = np.frombuffer(b.encode("utf-32-le"), dtype=np.uint32)
    offsets = np.arange(len(b) + 1)
    row = offsets.copy()
    costs: dict[str, np.ndarray] = {}
    for ch in a:
        cost = costs.get(ch)
        if cost is None:
            cost = costs[ch] = (codes != ord(ch)).astype(np.int64)
        t = np.empty_like(row)
        t[0] = row[0] + 1
        t[1:] = np.minimum(row[1:] + 1, row[:-1] + cost)
        row = np.minimum.accumulate(t - offsets) + offsets
    return int(row[-1])


def edits_section(rows: list[dict], pass_at_1: Mapping[str, Mapping] | None = None,
                  acceptance: list[dict] | None = None) -> EditsSection | None:
    """Text match beside execution per slice (and overall); None when the run has no local edits."""
    if not rows:
        return None
    cache: dict[tuple[str, str], float] = {}
    for r in rows:
        key = (r["middle"] or "", r["canonical"] or "")
        if key not in cache:
            cache[key] = edit_similarity(*key)
        r["exact"] = key[0] == key[1]
        r["similarity"] = cache[key]
        r["passed"] = r["outcome"] == "passed"
    by_slice: dict[str, list[dict]] = {}
    for r in rows:
        by_slice.setdefault(r["slice"], []).append(r)
    out = {"rule": "exact = the middle equals the canonical middle character for character; similarity = "
                   "1 - Levenshtein distance / the longer length; rates are means over tasks of each task's "
                   "mean over its counted candidates (as pass@1)",
           "overall": _group("all", rows, None),
           "slices": [_group(name, members, (pass_at_1 or {}).get(name)) for name, members in sorted(by_slice.items())],
           "disagreements": _disagreements(rows),
           "acceptance": acceptance_section(acceptance or [])}
    return out


def _per_task_mean(rows: list[dict], key: str) -> float | None:
    tasks: dict[str, list[float]] = {}
    for r in rows:
        tasks.setdefault(r["task_id"], []).append(float(r[key]))
    return float(np.mean([np.mean(v) for v in tasks.values()])) if tasks else None


def _group(name: str, rows: list[dict], p1: Mapping | None) -> EditGroup:
    passed = [r for r in rows if r["passed"]]
    failed = [r for r in rows if not r["passed"]]
    exact = sum(r["exact"] for r in rows)
    return {
        "slice": name, "tasks": len({r["task_id"] for r in rows}), "candidates": len(rows),
        "pass_at_1": dict(p1) if p1 else {"value": _per_task_mean(rows, "passed")},
        "exact_match": _per_task_mean(rows, "exact"), "edit_similarity": _per_task_mean(rows, "similarity"),
        "agreement": {"exact_passed": sum(r["exact"] for r in passed), "exact_failed": sum(r["exact"] for r in failed),
                      "inexact_passed": len(passed) - sum(r["exact"] for r in passed),
                      "inexact_failed": len(failed) - sum(r["exact"] for r in failed)},
        "similarity_of_passed": float(np.mean([r["similarity"] for r in passed])) if passed else None,
        "similarity_of_failed": float(np.mean([r["similarity"] for r in failed])) if failed else None,
        "exact": exact,
    }


def _disagreements(rows: list[dict]) -> EditDisagreements:
    def short(r: dict) -> EditExample:
        return {"task_id": r["task_id"], "candidate_index": r["candidate_index"], "outcome": r["outcome"],
                "similarity": round(r["similarity"], 4), "middle": (r["middle"] or "")[:200],
                "canonical": (r["canonical"] or "")[:200]}
    inexact_passed = [r for r in rows if r["passed"] and not r["exact"]]
    exact_failed = [r for r in rows if r["exact"] and not r["passed"]]
    close_failed = sorted((r for r in rows if not r["passed"] and not r["exact"]),
                          key=lambda r: (-r["similarity"], r["task_id"], r["candidate_index"]))
    return {"inexact_passed": [short(r) for r in inexact_passed[:EXAMPLES]],
            "exact_failed": [short(r) for r in exact_failed[:EXAMPLES]],
            "most_similar_failed": [short(r) for r in close_failed[:EXAMPLES]]}


def acceptance_section(rows: list[dict]) -> AcceptanceSection | None:
    """Shown / accepted / edited after, per slice, with pass rates among accepted and rejected; None
    when no suggestion log was imported."""
    if not rows:
        return None
    by_slice: dict[str, list[dict]] = {}
    for r in rows:
        by_slice.setdefault(r["slice"], []).append(r)
    return {"rule": "acceptance = accepted / shown; edited after = share of accepted suggestions the user changed; "
                    "pass rates over logged candidates with a counted outcome",
            "overall": _acceptance("all", rows),
            "slices": [_acceptance(name, members) for name, members in sorted(by_slice.items())]}


def _rate(num: int, den: int) -> float | None:
    return num / den if den else None


def _acceptance(name: str, rows: list[dict]) -> AcceptanceGroup:
    shown = [r for r in rows if r["shown"]]
    accepted = [r for r in shown if r["accepted"]]
    rejected = [r for r in shown if not r["accepted"]]
    edited = sum(1 for r in accepted if r["edited_after"])

    def pass_rate(group: list[dict]) -> float | None:
        counted = [r for r in group if r["outcome"] in COUNTED]
        return _rate(sum(r["outcome"] == "passed" for r in counted), len(counted))
    return {"slice": name, "logged": len(rows), "shown": len(shown), "accepted": len(accepted),
            "acceptance": _rate(len(accepted), len(shown)), "edited_after": edited,
            "edited_after_rate": _rate(edited, len(accepted)),
            "pass_rate_accepted": pass_rate(accepted), "pass_rate_rejected": pass_rate(rejected),
            "accepted_but_failed": sum(1 for r in accepted if r["outcome"] in ("failed", "flaky"))}


def compare_sections(conn, baseline_id: str, candidate_id: str, level: float) -> dict:
    """Per slice, both runs' text match and p90 latencies (each None when neither run has them)."""
    runs = {side: (edits_section(edit_rows(conn, rid)), latency_section(*latency_rows(conn, rid)[:1], level))
            for side, rid in (("baseline", baseline_id), ("candidate", candidate_id))}
    edits = None
    if runs["baseline"][0] or runs["candidate"][0]:
        by = {side: {g["slice"]: g for g in (runs[side][0] or {}).get("slices", [])} for side in runs}
        edits = [{"slice": name, **{side: {k: (by[side].get(name) or {}).get(k) for k in ("exact_match",
                                                                                       "edit_similarity")}
                                    for side in runs}}
                 for name in sorted(set(by["baseline"]) | set(by["candidate"]))]
    latency = None
    if runs["baseline"][1] or runs["candidate"][1]:
        by = {side: {g["slice"]: g for g in (runs[side][1] or {}).get("slices", [])} for side in runs}
        latency = []
        for name in sorted(set(by["baseline"]) | set(by["candidate"])):
            for m in ("first_token_ms", "total_ms"):
                pair = {side: ((by[side].get(name) or {}).get(m) or {}).get("p90") or {"value": None}
                        for side in runs}
                if pair["baseline"]["value"] is not None or pair["candidate"]["value"] is not None:
                    latency.append({"slice": name, "measure": m, "percentile": 90, **pair})
    return {"edits": edits, "latency": latency}
