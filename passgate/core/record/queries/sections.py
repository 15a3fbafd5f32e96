"""Reads behind the report's sections: configuration, omissions, canaries, local edits, languages,
repository patches; and the schema probes a section asks before it reads a table a record may predate.

The security, tamper and task-contract sections read through `sections_security`.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any

from passgate.core.model import CANARY_GLOB_SQL
from passgate.core.record.store import Store

# ---- schema probes and shared reads ---------------------------------------------------------------

def has_table(store: Store, table: str) -> bool:
    """Whether the record has `table` (records written before a schema version lack its tables)."""
    return table in store.db.table_names()


def has_column(store: Store, table: str, column: str) -> bool:
    """Whether `table` has `column` (records written before a schema version lack its columns)."""
    return column in store.db[table].columns_dict


def has_language_tasks(store: Store, run_id: str) -> bool:
    """Whether any of the run's tasks is in a language other than Python (it carries a `language:` tag)."""
    return store.db.execute("SELECT 1 FROM tasks WHERE run_id = ? AND tags_json LIKE '%\"language:%' LIMIT 1",
                            [run_id]).fetchone() is not None


def candidate_program(store: Store, run_id: str, task_id: str, candidate_index: int) -> str | None:
    """One candidate's program, to quote a finding's line; "" when the record has no such candidate."""
    row = store.db.execute("SELECT program FROM candidates WHERE run_id = ? AND task_id = ? AND candidate_index = ?",
                           [run_id, task_id, candidate_index]).fetchone()
    return row[0] if row else ""


# ---- config and omissions -------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class TaskSet:
    set_id: str | None
    revision: str | None
    sha256: str | None
    tasks: int


def task_sets(store: Store, run_id: str) -> list[TaskSet]:
    """Each benchmark revision the run's tasks came from, with how many tasks it gave, by set id."""
    return [TaskSet(*r) for r in store.db.execute(
        "SELECT set_id, set_revision, set_sha256, COUNT(*) FROM tasks WHERE run_id = ? "
        "GROUP BY set_id, set_revision, set_sha256 ORDER BY set_id", [run_id]).fetchall()]


def not_imported_bodies(store: Store, run_id: str) -> list[str | None]:
    """The `body_json` of the run's `not_imported` evidence rows, in the order they were sealed."""
    return [r["body_json"] for r in store.query("SELECT body_json FROM evidence WHERE run_id = ? "
                                                "AND kind = 'not_imported' ORDER BY rowid", [run_id])]


def input_messages(store: Store, run_id: str) -> list[str | None]:
    """The run's `input` event messages in order: where records older than that evidence noted skipped lines."""
    return [r["message"] for r in store.query("SELECT message FROM events WHERE run_id = ? AND kind = 'input' "
                                              "ORDER BY rowid", [run_id])]


# ---- canaries -------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class CanaryTask:
    task_id: str
    tags_json: str | None


@dataclass(frozen=True, slots=True)
class CanaryCandidate:
    candidate_index: int
    outcome: str
    processed_text: str | None


def canary_tasks(store: Store, run_id: str) -> list[CanaryTask]:
    """The run's canary tasks in task order, with their tags (which say why each is impossible)."""
    return [CanaryTask(**r) for r in store.query(f"SELECT task_id, tags_json FROM tasks WHERE run_id = ? AND task_id "
                                                 f"GLOB {CANARY_GLOB_SQL} ORDER BY position", [run_id])]


def canary_candidates(store: Store, run_id: str, task_id: str) -> list[CanaryCandidate]:
    """A canary task's counted candidates (passed, failed, flaky) by index, each with its completion."""
    return [CanaryCandidate(**r) for r in store.query(
        "SELECT o.candidate_index, o.outcome, c.processed_text FROM outcomes o JOIN candidates c "
        "ON c.run_id = o.run_id AND c.task_id = o.task_id AND c.candidate_index = o.candidate_index "
        "WHERE o.run_id = ? AND o.task_id = ? AND o.outcome IN ('passed', 'failed', 'flaky') "
        "ORDER BY o.candidate_index", [run_id, task_id])]


# ---- local edits ----------------------------------------------------------------------------------

def _dicts(cur: sqlite3.Cursor) -> list[dict]:
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r)) for r in cur]


def local_edits(conn: sqlite3.Connection, run_id: str) -> list[dict]:
    """Per counted candidate of a local-edit task: task, index, slice, outcome, its middle (its program
    less the code before and after the gap) and the canonical one, by task and index.

    Takes the connection the report's edits section is handed. Plain dicts: the section adds its
    measures to each row and quotes them in the report."""
    return _dicts(conn.execute(
        "SELECT c.task_id, c.candidate_index, t.slice, o.outcome, "
        # the program is preamble + before + middle + after, whatever the candidate's source (a reference too)
        "substr(c.program, length(ifnull(t.candidate_preamble, '')) + length(t.prompt) + 1, length(c.program) "
        "       - length(ifnull(t.candidate_preamble, '')) - length(t.prompt) - length(ifnull(t.infill_suffix, ''))) "
        "       AS middle, "
        "substr(t.reference_solution, length(t.prompt) + 1, "
        "       length(t.reference_solution) - length(t.prompt) - length(ifnull(t.infill_suffix, ''))) AS canonical "
        "FROM candidates c JOIN tasks t ON t.run_id = c.run_id AND t.task_id = c.task_id "
        "JOIN outcomes o ON o.run_id = c.run_id AND o.task_id = c.task_id AND o.candidate_index = c.candidate_index "
        "WHERE c.run_id = ? AND t.completion_style = 'infill' AND o.outcome IN ('passed', 'failed', 'flaky') "
        "ORDER BY c.task_id, c.candidate_index", [run_id]))


def suggestion_log(conn: sqlite3.Connection, run_id: str) -> list[dict]:
    """The run's imported suggestion log (shown, accepted, edited after) with each candidate's slice and
    outcome, by task and index; [] when the record has no `acceptance` table.

    Takes the connection the report's edits section is handed. Plain dicts: the acceptance section
    reads them as mappings, as it reads rows built by hand."""
    if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'acceptance'").fetchone():
        return []
    return _dicts(conn.execute(
        "SELECT a.task_id, a.candidate_index, a.shown, a.accepted, a.edited_after, t.slice, o.outcome "
        "FROM acceptance a JOIN tasks t ON t.run_id = a.run_id AND t.task_id = a.task_id "
        "LEFT JOIN outcomes o ON o.run_id = a.run_id AND o.task_id = a.task_id "
        "AND o.candidate_index = a.candidate_index WHERE a.run_id = ? ORDER BY a.task_id, a.candidate_index",
        [run_id]))


# ---- languages ------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class FailedClassCount:
    task_id: str
    failure_class: str | None
    n: int


@dataclass(frozen=True, slots=True)
class AttemptEvidence:
    task_id: str
    evidence_json: str | None


def tasks_with_reference(store: Store, run_id: str) -> set[str]:
    """The run's tasks that carry a reference solution."""
    return {r[0] for r in store.db.execute(
        "SELECT task_id FROM tasks WHERE run_id = ? AND ifnull(reference_solution, '') != ''", [run_id])}


def failed_class_counts(store: Store, run_id: str) -> list[FailedClassCount]:
    """Per task and failure class, how many of its candidates failed so."""
    return [FailedClassCount(*r) for r in store.db.execute(
        "SELECT task_id, failure_class, COUNT(*) FROM outcomes WHERE run_id = ? AND outcome = 'failed' "
        "GROUP BY task_id, failure_class", [run_id])]


def language_attempt_evidence(store: Store, run_id: str) -> list[AttemptEvidence]:
    """The evidence of every completed graded attempt that timed a language's compile and run steps."""
    return [AttemptEvidence(*r) for r in store.db.execute(
        "SELECT task_id, evidence_json FROM executions WHERE run_id = ? AND status = 'ok' AND purpose != 'selfcheck' "
        "AND evidence_json LIKE '%\"language\"%'", [run_id])]


# ---- repository tasks -----------------------------------------------------------------------------

def repo_results(store: Store, run_id: str, purpose: str) -> list[dict[str, Any]]:
    """The run's `repo_results` rows of one purpose (grade, selfcheck), oldest first, every column.

    Plain dicts: the repository section reads each as the mapping its candidate entries are built from."""
    return list(store.query("SELECT * FROM repo_results WHERE run_id = ? AND purpose = ? ORDER BY id",
                            [run_id, purpose]))


def candidate_labels(store: Store, run_id: str) -> dict[tuple[str, int], str | None]:
    """Each candidate's `source_ref`, by (task, index)."""
    return {(c["task_id"], c["candidate_index"]): c["source_ref"] for c in store.query(
        "SELECT task_id, candidate_index, source_ref FROM candidates WHERE run_id = ?", [run_id])}


def task_slices(store: Store, run_id: str) -> dict[str, str]:
    """Each of the run's tasks' slice, by task id."""
    return {t["task_id"]: t["slice"] for t in store.query("SELECT task_id, slice FROM tasks WHERE run_id = ?",
                                                          [run_id])}
