"""The report's reads beside the grouped scans: cross-checks, notes, timings, integrity and scans.

Every query takes `store`: the Store, or (where a caller holds only that) a sqlite3 connection to
its file.
"""

from __future__ import annotations

from typing import NamedTuple

from passgate.core.model import CANARY_GLOB_SQL

from .scans import connection

# answered candidates of the run's tasks, canaries aside
_ANSWERED = ("FROM candidates c JOIN tasks t ON t.run_id = c.run_id AND t.task_id = c.task_id "
             f"WHERE c.run_id = ? AND c.gen_status = 'ok' AND c.task_id NOT GLOB {CANARY_GLOB_SQL}")


def cross_checked_executions(store, run_id: str) -> list[dict]:
    """Every attempt the classic runner cross-checked, in execution order, with both sides' verdicts.
    Dicts: the fidelity summary reads them as mappings and copies their details into the report."""
    return list(store.query(
        "SELECT task_id, candidate_index, attempt, purpose, protected_status, protected_class, "
        "failure_class, detail, classic_status, classic_class, evidence_json FROM executions "
        "WHERE run_id = ? AND classic_status IS NOT NULL ORDER BY exec_id", [run_id]))


class ExecutionNotes(NamedTuple):
    """An attempt whose evidence carries grader notes (the `notes` key of `evidence_json`)."""

    task_id: str
    candidate_index: int
    evidence_json: str


def execution_notes(store, run_id: str) -> list[ExecutionNotes]:
    """The attempts whose evidence mentions notes, in execution order."""
    return [ExecutionNotes(r["task_id"], r["candidate_index"], r["evidence_json"]) for r in store.query(
        "SELECT task_id, candidate_index, evidence_json FROM executions WHERE run_id = ? AND "
        "evidence_json LIKE '%\"notes\"%' ORDER BY exec_id", [run_id])]


def has_language_tasks(store, run_id: str) -> bool:
    """Whether any of the run's tasks is tagged with a language (`language:...`), i.e. is not Python."""
    return store.db.execute("SELECT 1 FROM tasks WHERE run_id = ? AND tags_json LIKE '%\"language:%' LIMIT 1",
                            [run_id]).fetchone() is not None


def has_security_scan(store, run_id: str) -> bool:
    """Whether the record has a `scans` table with rows for this run (a security scan ran)."""
    return "scans" in store.db.table_names() and store.count("scans", run_id) > 0


def timed_candidates(store, run_id: str) -> list[dict]:
    """The run's answered candidates that recorded a timing (canaries aside): slice, source,
    latency_ms, first_token_ms and completion_tokens. Dicts: the latency section reads plain mappings."""
    cur = connection(store).execute(
        f"SELECT t.slice, c.source, c.latency_ms, c.first_token_ms, c.completion_tokens {_ANSWERED} "
        "AND (c.latency_ms IS NOT NULL OR c.first_token_ms IS NOT NULL)", [run_id])
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r)) for r in cur]


def answered_by_slice(store, run_id: str) -> dict[str, int]:
    """How many answered candidates (canaries aside) each slice has, timed or not."""
    return dict(connection(store).execute(f"SELECT t.slice, COUNT(*) {_ANSWERED} GROUP BY t.slice",
                                          [run_id]).fetchall())
