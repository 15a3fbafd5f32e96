"""What the console reads: the runs list, a live run's progress, the failures list, one candidate.

Reads stay grouped in SQL: a run of 16,400 candidates is a few indexed scans, never a Python loop
per row. Rows the console hands on unchanged (the failures list, a candidate's detail pane) come
back as dicts; everything the console computes with comes back typed.
"""

from __future__ import annotations

from dataclasses import dataclass

from passgate.core.model import COUNTED_SQL
from passgate.core.record.store import Store

# the attempts of the program a decided candidate was executed as
_SAME_PROGRAM = ("e.run_id = o.run_id AND e.task_id = o.task_id "
                 "AND e.candidate_index = COALESCE(o.executed_as, o.candidate_index)")


# ------------------------------------------------------------------------------ runs list
def _per_run(store: Store, table: str) -> dict[str, int]:
    return {r["run_id"]: r["n"] for r in store.query(f"SELECT run_id, COUNT(*) AS n FROM {table} GROUP BY run_id")}


def candidate_counts(store: Store) -> dict[str, int]:
    """Candidates per run: a run's size in the runs list."""
    return _per_run(store, "candidates")


def outcome_counts(store: Store) -> dict[str, int]:
    """Decided candidates per run: a run's progress in the runs list."""
    return _per_run(store, "outcomes")


def signoff_counts(store: Store) -> dict[str, int]:
    """Sign-off rows per run: a new one may change the run's verdict."""
    return _per_run(store, "signoffs")


@dataclass(frozen=True, slots=True)
class TaskTally:
    """One task of one run: its counted candidates and how many passed their protected tests (None
    when none of its rows records that)."""

    run_id: str
    task_id: str
    slice: str
    passed: int | None
    counted: int


def counted_tallies(store: Store) -> list[TaskTally]:
    """Per run and task, the candidates that count toward pass@k and those that passed: pass@1 of
    every run in one grouped scan."""
    return [TaskTally(r["run_id"], r["task_id"], r["slice"], r["c"], r["n"]) for r in store.query(
        f"SELECT o.run_id, o.task_id, COALESCE(t.slice, '') AS slice, SUM(o.protected_passed) AS c, "
        f"COUNT(*) AS n FROM outcomes o LEFT JOIN tasks t ON t.run_id = o.run_id AND t.task_id = o.task_id "
        f"WHERE o.outcome IN {COUNTED_SQL} GROUP BY o.run_id, o.task_id")]


def run_manifests(store: Store) -> list[tuple[str, str | None]]:
    """Every run with its manifest's canonical JSON (None when the manifest row is missing): each
    run's scoring configuration."""
    return [(r["run_id"], r["canonical_json"]) for r in store.query(
        "SELECT r.run_id, m.canonical_json FROM runs r LEFT JOIN manifests m ON m.manifest_id = r.manifest_id")]


def task_contents(store: Store) -> list[dict]:
    """Every run's tasks with the fields that make up a task set's fingerprint, as dicts (they go
    unchanged into `task_set_fingerprint`): which runs can be each other's baseline."""
    return list(store.query("SELECT run_id, task_id, prompt, entry_point, public_tests, protected_tests FROM tasks"))


# ------------------------------------------------------------------------------ live view
def candidates_per_slice(store: Store, run_id: str) -> list[tuple[str, int]]:
    """The run's candidates per task slice, by slice name."""
    return [(r["slice"], r["n"]) for r in store.query(
        "SELECT t.slice AS slice, COUNT(*) AS n FROM candidates c JOIN tasks t "
        "ON t.run_id = c.run_id AND t.task_id = c.task_id WHERE c.run_id = ? GROUP BY t.slice ORDER BY t.slice",
        [run_id])]


@dataclass(frozen=True, slots=True)
class SliceOutcome:
    """How many of a slice's candidates were decided with one outcome and failure class."""

    slice: str
    outcome: str
    failure_class: str | None
    n: int


def outcomes_per_slice(store: Store, run_id: str) -> list[SliceOutcome]:
    """The run's decided candidates per slice, outcome and failure class."""
    return [SliceOutcome(r["slice"], r["outcome"], r["cls"], r["n"]) for r in store.query(
        "SELECT t.slice AS slice, o.outcome AS outcome, o.failure_class AS cls, COUNT(*) AS n FROM outcomes o "
        "JOIN tasks t ON t.run_id = o.run_id AND t.task_id = o.task_id WHERE o.run_id = ? "
        "GROUP BY t.slice, o.outcome, o.failure_class", [run_id])]


def recent_failures(store: Store, run_id: str, limit: int) -> list[dict]:
    """The run's latest decided candidates that did not pass, newest first, each with the detail of
    its latest attempt that is not a rerun. Dicts: the live screen lists them as they are."""
    return [dict(r) for r in store.query(
        "SELECT o.task_id, o.candidate_index, o.outcome, o.failure_class, o.reason, "
        "(SELECT e.detail FROM executions e WHERE e.run_id = o.run_id AND e.task_id = o.task_id "
        " AND e.candidate_index = COALESCE(o.executed_as, o.candidate_index) AND e.purpose != 'rerun' "
        "ORDER BY e.exec_id DESC LIMIT 1) AS detail "
        "FROM outcomes o WHERE o.run_id = ? AND o.outcome != 'passed' ORDER BY o.rowid DESC LIMIT ?",
        [run_id, limit])]


def execution_resources(store: Store, run_id: str) -> dict:
    """What the run's executions used so far (counts, CPU, wall, memory, output, containers, the
    self-check's executions), as a dict: the live screen's resources pane shows it as it is."""
    return next(store.query(
        "SELECT COUNT(*) AS executions, AVG(cpu_s) AS mean_cpu_s, MAX(cpu_s) AS max_cpu_s, "
        "AVG(wall_s) AS mean_wall_s, MAX(peak_rss_kb) AS max_rss_kb, SUM(out_bytes) AS out_bytes, "
        "SUM(status = 'infra_error') AS infra_attempts, COUNT(DISTINCT NULLIF(container_id, '')) AS containers, "
        "SUM(candidate_index < 0) AS selfcheck FROM executions WHERE run_id = ?", [run_id]))


def awaiting_candidates(store: Store, run_id: str) -> list[dict]:
    """Candidates whose latest attempt failed and that have no outcome yet, with that attempt's class,
    detail and id, as dicts shaped like the failures list's rows (the live screen lists them together)."""
    return [dict(r) for r in store.query(
        "SELECT e.task_id, e.candidate_index, t.slice, 'awaiting' AS outcome, e.failure_class, e.detail, "
        "'' AS reason, e.exec_id FROM (SELECT x.task_id, x.candidate_index, MAX(x.exec_id) AS last "
        "FROM executions x LEFT JOIN outcomes o ON o.run_id = x.run_id AND o.task_id = x.task_id "
        "AND o.candidate_index = x.candidate_index WHERE x.run_id = ? AND x.candidate_index >= 0 "
        "AND o.run_id IS NULL GROUP BY x.task_id, x.candidate_index) l "
        "JOIN executions e ON e.exec_id = l.last JOIN tasks t ON t.run_id = e.run_id AND t.task_id = e.task_id "
        "WHERE e.status != 'ok' OR e.protected_status != 'passed'", [run_id])]


# ------------------------------------------------------------------------------ failures and candidates
def decided_candidates(store: Store, run_id: str, *, include_passed: bool = False) -> list[dict]:
    """Every decided candidate that did not pass (or every one), in task order, with its slice, the
    detail of its deciding attempt and `tries` (every attempt of the program it was executed as).
    Dicts: the failures list shows them as they are."""
    where = "" if include_passed else " AND o.outcome != 'passed'"
    return [dict(r) for r in store.query(
        "SELECT o.task_id, o.candidate_index, t.slice, o.outcome, o.failure_class, o.attempts, o.cpu_s, "
        f"o.wall_s, o.reason, (SELECT COUNT(*) FROM executions e WHERE {_SAME_PROGRAM}) AS tries, "
        f"(SELECT e.detail FROM executions e WHERE {_SAME_PROGRAM} AND e.purpose != 'rerun' "
        "ORDER BY e.exec_id DESC LIMIT 1) AS detail "
        "FROM outcomes o JOIN tasks t ON t.run_id = o.run_id AND t.task_id = o.task_id "
        f"WHERE o.run_id = ?{where} ORDER BY t.position, o.candidate_index", [run_id])]


def candidate(store: Store, run_id: str, task_id: str, candidate_index: int) -> dict | None:
    """One candidate's row, as a dict (the detail pane shows every column)."""
    return next(store.query("SELECT * FROM candidates WHERE run_id = ? AND task_id = ? AND candidate_index = ?",
                            [run_id, task_id, candidate_index]), None)


def task(store: Store, run_id: str, task_id: str) -> dict | None:
    """One task's row, as a dict (the detail pane shows every column)."""
    return next(store.query("SELECT * FROM tasks WHERE run_id = ? AND task_id = ?", [run_id, task_id]), None)


def outcome(store: Store, run_id: str, task_id: str, candidate_index: int) -> dict | None:
    """One candidate's outcome row (None while undecided), as a dict (the detail pane shows every column)."""
    return next(store.query("SELECT * FROM outcomes WHERE run_id = ? AND task_id = ? AND candidate_index = ?",
                            [run_id, task_id, candidate_index]), None)


def attempts(store: Store, run_id: str, task_id: str, candidate_index: int) -> list[dict]:
    """Every execution of one candidate index, oldest first, as dicts (the detail pane shows every column)."""
    return list(store.query(
        "SELECT * FROM executions WHERE run_id = ? AND task_id = ? AND candidate_index = ? ORDER BY exec_id",
        [run_id, task_id, candidate_index]))
