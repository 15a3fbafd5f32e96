"""Words for how a verdict's assertions were decided (grading protocol 3), beside the verdict.

A verdict the grader decided outside the candidate's process is stronger evidence than one the
candidate's own process decided; the inspector says which, in one line, from the attempt that
decided the verdict. Plain strings: no Textual here.
"""

from __future__ import annotations

from passgate.core.score.integrity import FIRST_PROTOCOL, parse_record


def deciding_attempt(attempts: list[dict]) -> dict | None:
    """The attempt the verdict stands on: the latest completed one that is not a rerun (as the report counts)."""
    return next((a for a in reversed(attempts) if a.get("status") == "ok" and a.get("purpose") != "rerun"), None)


def decided_line(attempts: list[dict], protocol: int | None) -> str:
    """`decided: 12 outside · 0 in the candidate's process`, or why that is not known."""
    if not protocol or int(protocol) < FIRST_PROTOCOL:
        return f"decided: not recorded under grading protocol {protocol or 1}"
    attempt = deciding_attempt(attempts)
    record = parse_record(attempt.get("integrity_json") if attempt else None)
    if record is None:
        return "decided: no assertion recorded (the program did not reach its test)" if attempt \
            else "decided: no completed attempt"
    if not (record["outside"] or record["visible"] or record["in_process"]):
        return "decided: no assertion (the test stopped before its first one was decided)"
    parts = [f"{record['outside']} outside"]
    if record["visible"]:
        parts.append(f"{record['visible']} with the expected value visible")
    parts.append(f"{record['in_process']} in the candidate's process")
    steer = " (the process chose which assertions ran)" if record["control"] == "process" else ""
    return "decided: " + " · ".join(parts) + steer

