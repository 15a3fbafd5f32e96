"""What the benchmarks read back from a record after a run: outcome and execution counts, the
grading phases' time spans, the nodes that ran, and a bare scan to time the console against."""

from __future__ import annotations

from dataclasses import dataclass

from passgate.core.record.store import Store


@dataclass(frozen=True, slots=True)
class OutcomeTotals:
    outcomes: int
    protected_passed: int | None        # NULL (None) when the run has no outcomes


def outcome_totals(store: Store, run_id: str) -> OutcomeTotals:
    """How many candidates the run decided and how many of them passed the protected tests."""
    n, passed = store.db.execute("SELECT COUNT(*), SUM(protected_passed) FROM outcomes WHERE run_id=?",
                                 [run_id]).fetchone()
    return OutcomeTotals(n, passed)


def outcome_counts(store: Store, run_id: str) -> dict[str, int]:
    """Candidates per outcome (passed, failed, flaky, ...); outcomes no candidate has are absent."""
    return dict(store.db.execute("SELECT outcome, COUNT(*) FROM outcomes WHERE run_id = ? GROUP BY outcome",
                                 [run_id]).fetchall())


@dataclass(frozen=True, slots=True)
class UnpassedOutcome:
    task_id: str
    outcome: str
    failure_class: str | None
    detail: str | None                  # the detail of the candidate's last attempt


def unpassed_outcomes(store: Store, run_id: str) -> list[UnpassedOutcome]:
    """Every candidate that did not pass, by task, with what its last attempt said: the failures a
    self-check prints."""
    rows = store.query(
        "SELECT o.task_id, o.outcome, o.failure_class, (SELECT detail FROM executions e WHERE e.run_id = o.run_id "
        "AND e.task_id = o.task_id AND e.candidate_index = o.candidate_index ORDER BY exec_id DESC LIMIT 1) "
        "AS detail FROM outcomes o WHERE o.run_id = ? AND o.outcome != 'passed' ORDER BY o.task_id", [run_id])
    return [UnpassedOutcome(r["task_id"], r["outcome"], r["failure_class"], r["detail"]) for r in rows]


@dataclass(frozen=True, slots=True)
class ExecutionCounts:
    executed: int                       # every attempt, whatever its purpose
    graded: int                         # attempts with purpose 'grade'
    timeouts: int                       # attempts classed 'timeout'


def execution_counts(store: Store, run_id: str) -> ExecutionCounts:
    """How many programs the run executed, how many of them graded a candidate, how many timed out."""
    def count(sql: str) -> int:
        return store.db.execute(sql, [run_id]).fetchone()[0]
    return ExecutionCounts(
        executed=count("SELECT COUNT(*) FROM executions WHERE run_id=?"),
        graded=count("SELECT COUNT(*) FROM executions WHERE run_id=? AND purpose='grade'"),
        timeouts=count("SELECT COUNT(*) FROM executions WHERE run_id=? AND failure_class='timeout'"))


@dataclass(frozen=True, slots=True)
class PhaseBounds:
    first_started: str | None           # ISO timestamps; both None when no attempt had this purpose
    last_finished: str | None


def phase_bounds(store: Store, run_id: str, purpose: str) -> PhaseBounds:
    """When the first attempt of this purpose (grade, timeout_recheck, ...) started and the last finished."""
    first, last = store.db.execute("SELECT MIN(started_at), MAX(finished_at) FROM executions WHERE run_id=? "
                                   "AND purpose=?", [run_id, purpose]).fetchone()
    return PhaseBounds(first, last)


def execution_nodes(store: Store, run_id: str) -> set[str | None]:
    """The nodes the run's attempts ran on (None for attempts that record no node)."""
    return {r[0] for r in store.db.execute("SELECT DISTINCT node FROM executions WHERE run_id=?", [run_id])}


def outcome_scan(store: Store, run_id: str) -> list[tuple]:
    """Every column of the run's outcomes as bare tuples, no row objects: the floor a console query's
    time is measured against."""
    return store.db.conn.execute("SELECT * FROM outcomes WHERE run_id=?", [run_id]).fetchall()
