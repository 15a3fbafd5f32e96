"""The grouped per-task scans a run's scores and report are read from, and what runs them side by side.

One grouped scan per table (outcomes, candidates, executions), each in the primary-key order of
(run_id, task_id, ...) so SQLite groups without sorting and reads a covering index alone; the rare
rows a report lists one by one (flaky, infra_error, excluded outcomes; retries) come back from the
same scan as short strings, and are then read by key (the primary key, or a `json_each` list of
task ids).

`ScanPool` runs the scans of one record each on a read-only connection of its own, so the three
tables are read at the same time. Every query here takes `store`: the Store, or a sqlite3
connection to its file (what a `ScanPool` hands to a scan in its worker thread).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple, TypeVar

from passgate.core.model import CANARY_GLOB_SQL, COUNTED_SQL

US = 1_000_000   # execution times travel as integer microseconds
_NOT_CANARY = f" AND task_id NOT GLOB {CANARY_GLOB_SQL}"      # canary tasks are never part of pass@k

T = TypeVar("T")


def connection(store) -> sqlite3.Connection:
    """The sqlite3 connection a query runs on: the Store's own, or `store` itself when it is one."""
    return store if isinstance(store, sqlite3.Connection) else store.db.conn


class ScanPool:
    """Runs scans of one record in `executor`, each on a read-only connection of its own.

    Without an executor, or when the record is not a file on disk, each scan runs at once, in
    turn, on the Store's own connection; `submit` then returns a future that is already done.
    """

    def __init__(self, store, executor: Executor | None):
        self._store, self._executor = store, executor
        path = Path(store.path)
        self._path = path if executor is not None and path.exists() else None

    def submit(self, scan: Callable[[object], T]) -> Future:
        """`scan(store)` with the handle to pass to the queries here, as a future of its result."""
        if self._path is None:
            done: Future = Future()
            done.set_result(scan(self._store))
            return done
        return self._executor.submit(self._on_own_connection, self._path, scan)

    @staticmethod
    def _on_own_connection(path: Path, scan: Callable[[object], T]) -> T:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30, check_same_thread=False)
        try:
            return scan(conn)
        finally:
            conn.close()


def scan_threads(workers: int = 3) -> ThreadPoolExecutor:
    """A thread pool for one run's scans (outcomes, candidates and executions side by side)."""
    return ThreadPoolExecutor(max_workers=workers)


@dataclass(frozen=True, slots=True)
class Limits:
    """What-if conditions the scans read under; the defaults read the record as it is."""

    cpu_limit_s: float | None = None       # absolute CPU limit per candidate
    cpu_limit_factor: float | None = None  # or a factor of each task's calibrated cpu_limit_s
    max_candidates: int | None = None      # only candidate_index < N

    @property
    def limited(self) -> bool:
        return self.cpu_limit_s is not None or self.cpu_limit_factor is not None


def limit_sql(limits: Limits) -> tuple[str, str, list]:
    """(join clause, 'over the limit' SQL predicate on o.cpu_s, params) for a what-if CPU limit."""
    if limits.cpu_limit_s is not None:
        return "", "(o.cpu_s > ?)", [float(limits.cpu_limit_s)]
    if limits.cpu_limit_factor is not None:
        return ("JOIN tasks t ON t.run_id = o.run_id AND t.task_id = o.task_id",
                "(t.cpu_limit_s IS NOT NULL AND o.cpu_s > ? * t.cpu_limit_s)", [float(limits.cpu_limit_factor)])
    return "", "0", []


class TaskRow(NamedTuple):
    """A scored task's metadata, as the report's task arrays take it."""

    task_id: str
    slice: str | None
    set_id: str | None
    tags_json: str | None
    has_public: int            # 1 when the task has public tests
    cpu_limit_s: float | None


def scored_tasks(store, run_id: str) -> dict[str, TaskRow]:
    """The run's tasks other than canaries, by task id, in run order."""
    rows = connection(store).execute(
        "SELECT task_id, slice, set_id, tags_json, length(trim(ifnull(public_tests, ''))) > 0, cpu_limit_s "
        f"FROM tasks WHERE run_id = ?{_NOT_CANARY} ORDER BY position, task_id", [run_id]).fetchall()
    return {r[0]: TaskRow._make(r) for r in rows}


class OutcomeGroup(NamedTuple):
    """One task's outcome rows, aggregated."""

    rows: int
    protected_passes: int | None
    passes_over: int | None           # protected passes over a what-if CPU limit (0 without one)
    public_passes_over: int | None    # public passes over it
    public_rows: int                  # rows with a public verdict
    public_passes: int | None
    first_public_code: int | None     # lowest index*2 + 1 - protected verdict among public passes
    classes: str | None               # failed rows' classes, and '#index' of rows neither passed nor failed


def outcome_groups(store, run_id: str, limits: Limits = Limits()) -> dict[str, OutcomeGroup]:
    """Per task: rows, protected passes, public rows and passes, the first public pass (index*2 + 1 - its
    protected verdict), and one list holding the failed rows' classes and, as '#index', the rows that
    are neither passed nor failed; under a what-if CPU limit, also the passes that exceed it.
    Columns are kept cheap: this scans every row."""
    join, over, lim = limit_sql(limits)
    cap = " AND o.candidate_index < ?" if limits.max_candidates is not None else ""
    not_over = f" AND NOT {over}" if limits.limited else ""
    rescored = (f"SUM(o.protected_passed = 1 AND {over}), SUM(o.public_passed = 1 AND {over})"
                if limits.limited else "0, 0")
    sql = f"""
        SELECT o.task_id, COUNT(*), SUM(o.protected_passed), {rescored},
               COUNT(o.public_passed), SUM(o.public_passed),
               MIN(CASE WHEN o.public_passed = 1{not_over} THEN o.candidate_index * 2 + 1 - o.protected_passed END),
               group_concat(CASE WHEN o.outcome IN ('passed', 'failed') THEN o.failure_class
                                 ELSE '#' || o.candidate_index END)
        FROM outcomes o {join}
        WHERE o.run_id = ?{cap}{_NOT_CANARY.replace("task_id", "o.task_id")}
        GROUP BY o.task_id"""
    params = (lim * 3 if limits.limited else []) + [run_id] + ([limits.max_candidates] if cap else [])
    return {r[0]: OutcomeGroup._make(r[1:]) for r in connection(store).execute(sql, params)}


class CandidateGroup(NamedTuple):
    """One task's candidates, aggregated."""

    candidates: int
    prompt_tokens: int | None
    completion_tokens: int | None
    best_logprob: float | None        # the highest mean log-probability
    best_index: int                   # the candidate holding it


def candidate_groups(store, run_id: str, max_candidates: int | None = None) -> dict[str, CandidateGroup]:
    """Per task: candidates, tokens, and the candidate with the highest mean log-probability
    (MAX with a bare candidate_index: SQLite returns the row holding the maximum)."""
    cap = " AND candidate_index < ?" if max_candidates is not None else ""
    sql = f"""
        SELECT task_id, COUNT(*), SUM(prompt_tokens), SUM(completion_tokens),
               MAX(mean_logprob), candidate_index
        FROM candidates WHERE run_id = ?{cap}{_NOT_CANARY} GROUP BY task_id"""
    params = [run_id] + ([max_candidates] if cap else [])
    return {r[0]: CandidateGroup._make(r[1:]) for r in connection(store).execute(sql, params)}


class ExecutionGroup(NamedTuple):
    """One task's execution attempts, aggregated."""

    attempts: int
    wall_s: float | None
    cpu_us: str | None                # comma-joined CPU microseconds of the attempts that recorded them
    timed: int                        # how many attempts recorded CPU time
    other: str | None                 # comma-joined purpose:status:class of the other-than-plain attempts
    cpu_total_s: float | None         # sandbox CPU seconds of every step of every attempt


def execution_groups(store, run_id: str, max_candidates: int | None = None) -> dict[str, ExecutionGroup]:
    """Per task: attempts, wall seconds, CPU microseconds of each attempt that recorded them,
    purpose:status:class of every attempt other than an ok grading run, and the sandbox CPU seconds
    of every step of every attempt (both suites, a compile step, a cross-check)."""
    cap = " AND candidate_index < ?" if max_candidates is not None else ""
    sql = f"""
        SELECT task_id, COUNT(*), SUM(wall_s), group_concat(CAST(cpu_s * {US} AS INTEGER)), COUNT(cpu_s),
               group_concat(CASE WHEN status != 'ok' OR purpose != 'grade'
                                 THEN purpose || ':' || status || ':' || ifnull(failure_class, '') END),
               SUM(MAX(ifnull(cpu_total_s, 0), ifnull(cpu_s, 0)))
        FROM executions WHERE run_id = ?{cap}{_NOT_CANARY} GROUP BY task_id"""
    params = [run_id] + ([max_candidates] if cap else [])
    return {r[0]: ExecutionGroup._make(r[1:]) for r in connection(store).execute(sql, params)}


# ---- rows the grouped scans point at, read by key ------------------------------------------

class OutcomeRow(NamedTuple):
    """One candidate's outcome as the record holds it."""

    task_id: str
    candidate_index: int
    outcome: str
    failure_class: str | None
    public_passed: int | None
    protected_passed: int | None
    reason: str | None
    executed_as: int | None
    cpu_s: float | None
    attempts: int | None


def outcome_rows(store, run_id: str, keys: Sequence[tuple[str, int]]) -> list[OutcomeRow]:
    """Outcome rows by (task_id, candidate_index), looked up by primary key, in key order."""
    if not keys:
        return []
    cur = connection(store).execute(
        "SELECT o.task_id, o.candidate_index, o.outcome, o.failure_class, o.public_passed, o.protected_passed, "
        "o.reason, o.executed_as, o.cpu_s, o.attempts FROM json_each(?) j CROSS JOIN outcomes o "
        "ON o.run_id = ? AND o.task_id = json_extract(j.value, '$[0]') "
        "AND o.candidate_index = json_extract(j.value, '$[1]') ORDER BY o.task_id, o.candidate_index",
        [json.dumps(list(keys)), run_id])
    return [OutcomeRow._make(r) for r in cur]


def first_public_codes(store, run_id: str, task_ids: Sequence[str],
                       limits: Limits = Limits()) -> dict[str, int | None]:
    """Per task of `task_ids` with a counted candidate that passes its public tests (within the
    what-if limits): index*2 + 1 - protected verdict of the lowest-index one. Asked for the tasks
    where a row pass@k does not count passed its public tests: the grouped scan's code may name it."""
    join, over, lim = limit_sql(limits)
    not_over = f" AND NOT {over}" if limits.limited else ""
    cap = " AND o.candidate_index < ?" if limits.max_candidates is not None else ""
    cur = connection(store).execute(
        f"SELECT o.task_id, MIN(o.candidate_index * 2 + 1 - o.protected_passed) FROM outcomes o {join} "
        f"WHERE o.run_id = ? AND o.public_passed = 1 AND o.outcome IN {COUNTED_SQL}{not_over}{cap} "
        "AND o.task_id IN (SELECT value FROM json_each(?)) GROUP BY o.task_id",
        [run_id] + lim + ([limits.max_candidates] if cap else []) + [json.dumps(list(task_ids))])
    return {t: code for t, code in cur}


class RankedOutcome(NamedTuple):
    """The outcome of a task's counted candidate with the highest mean log-probability."""

    task_id: str
    outcome: str
    cpu_s: float | None


def best_counted_by_logprob(store, run_id: str, task_ids: Sequence[str],
                            max_candidates: int | None = None) -> list[RankedOutcome]:
    """Per task of `task_ids`: the counted candidate with the highest mean log-probability, for the
    tasks whose top candidate overall was not counted."""
    cur = connection(store).execute(
        "SELECT o.task_id, MAX(c.mean_logprob), o.outcome, o.cpu_s FROM outcomes o JOIN candidates c "
        "ON c.run_id = o.run_id AND c.task_id = o.task_id AND c.candidate_index = o.candidate_index "
        f"WHERE o.run_id = ? AND o.outcome IN {COUNTED_SQL} AND c.mean_logprob IS NOT NULL "
        "AND o.task_id IN (SELECT value FROM json_each(?))"
        + (" AND o.candidate_index < ?" if max_candidates is not None else "") + " GROUP BY o.task_id",
        [run_id, json.dumps(list(task_ids))] + ([max_candidates] if max_candidates is not None else []))
    return [RankedOutcome(task_id, outcome, cpu) for task_id, _logprob, outcome, cpu in cur]


class PendingCandidate(NamedTuple):
    """A candidate with no outcome row, and what the record says about why."""

    task_id: str
    candidate_index: int
    gen_status: str | None
    excluded_reason: str | None
    gen_error: str | None


def pending_candidates(store, run_id: str, task_ids: Sequence[str]) -> list[PendingCandidate]:
    """Candidates of these tasks that have no outcome row (never run, or the run stopped)."""
    if not task_ids:
        return []
    cur = connection(store).execute(
        "SELECT c.task_id, c.candidate_index, c.gen_status, c.excluded_reason, c.gen_error FROM candidates c "
        "LEFT JOIN outcomes o ON o.run_id = c.run_id AND o.task_id = c.task_id "
        "AND o.candidate_index = c.candidate_index WHERE c.run_id = ? AND o.outcome IS NULL "
        "AND c.task_id IN (SELECT value FROM json_each(?)) ORDER BY c.task_id, c.candidate_index",
        [run_id, json.dumps(list(task_ids))])
    return [PendingCandidate._make(r) for r in cur]
