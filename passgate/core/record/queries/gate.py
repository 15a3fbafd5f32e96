"""Reads behind the gate's facts about one run: outcomes and sandbox violations, canaries, tamper
tripwires, security findings at the policy's floor, cross-checked attempts and the programs compared
with references."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from passgate.core.model import CANARY_GLOB_SQL
from passgate.core.record.store import Store

from .sections import has_column, has_table
from .sections_security import SEVERITY_RANK_SQL


@dataclass(frozen=True, slots=True)
class Outcome:
    task_id: str
    candidate_index: int
    outcome: str
    failure_class: str | None
    public_passed: int | None
    protected_passed: int | None


@dataclass(frozen=True, slots=True)
class CanaryOutcome:
    task_id: str
    candidate_index: int
    outcome: str


@dataclass(frozen=True, slots=True)
class ScanFlags:
    """Scanned counted candidates, passing and failing, and how many carry a finding at the floor or above."""
    passing: int
    passing_flagged: int
    failing: int
    failing_flagged: int


@dataclass(frozen=True, slots=True)
class AnsweredProgram:
    task_id: str
    program: str | None
    program_sha256: str | None


def scored_outcomes(store: Store, run_id: str) -> Iterator[Outcome]:
    """Every outcome row of the run's tasks, canaries left out (they are judged apart)."""
    for o in store.query("SELECT task_id, candidate_index, outcome, failure_class, public_passed, protected_passed "
                         f"FROM outcomes WHERE run_id = ? AND task_id NOT GLOB {CANARY_GLOB_SQL}", [run_id]):
        yield Outcome(**o)


def violating_candidates(store: Store, run_id: str) -> set[tuple[str, int]]:
    """(task, index) of every candidate with an attempt that broke the sandbox's rules or recorded a violation."""
    return {(r["task_id"], r["candidate_index"]) for r in store.query(
        "SELECT DISTINCT task_id, candidate_index FROM executions WHERE run_id = ? AND candidate_index >= 0 AND "
        "(failure_class = 'sandbox_violation' OR (violations_json IS NOT NULL AND violations_json NOT IN ('', '[]')))",
        [run_id])}


def counted_canary_outcomes(store: Store, run_id: str) -> list[CanaryOutcome]:
    """The counted outcomes (passed, failed, flaky) of the run's canary tasks, by task and index."""
    return [CanaryOutcome(**r) for r in store.query(
        f"SELECT task_id, candidate_index, outcome FROM outcomes WHERE run_id = ? AND task_id "
        f"GLOB {CANARY_GLOB_SQL} AND outcome IN ('passed', 'failed', 'flaky') "
        "ORDER BY task_id, candidate_index", [run_id])]


def tampering_candidates(store: Store, run_id: str) -> int | None:
    """Counted candidates (canaries included) with a tamper tripwire event; None when the record
    predates tripwires."""
    if not has_column(store, "executions", "tamper_json"):
        return None
    return store.db.execute(
        "SELECT COUNT(*) FROM (SELECT DISTINCT e.task_id, e.candidate_index FROM executions e JOIN outcomes o "
        "ON o.run_id = e.run_id AND o.task_id = e.task_id AND o.candidate_index = e.candidate_index "
        "WHERE e.run_id = ? AND e.tamper_json IS NOT NULL AND o.outcome IN ('passed', 'failed', 'flaky'))",
        [run_id]).fetchone()[0]


def was_scanned(store: Store, run_id: str) -> bool:
    """Whether the record has security scans for this run (older records have no `scans` table)."""
    return has_table(store, "scans") and bool(store.count("scans", run_id))


def scan_flags(store: Store, run_id: str, floor: int) -> ScanFlags:
    """Passing and failing scanned candidates, and how many have a finding of severity rank `floor` or worse."""
    row = store.db.execute(
        f"SELECT SUM(o.outcome = 'passed'), SUM(o.outcome = 'passed' AND {SEVERITY_RANK_SQL} >= ?), "
        f"SUM(o.outcome IN ('failed', 'flaky')), SUM(o.outcome IN ('failed', 'flaky') AND {SEVERITY_RANK_SQL} >= ?) "
        "FROM scans s JOIN outcomes o ON o.run_id = s.run_id AND o.task_id = s.task_id "
        "AND o.candidate_index = s.candidate_index WHERE s.run_id = ?", [floor, floor, run_id]).fetchone()
    return ScanFlags(*(int(v or 0) for v in row))


def crosschecked_attempts(store: Store, run_id: str) -> Iterator[dict]:
    """Every attempt the classic harness cross-checked, in the order they ran.

    Plain dicts: passgate.core.score.fidelity reads them as mappings, as the report does."""
    return store.query(
        "SELECT task_id, candidate_index, attempt, purpose, protected_status, protected_class, failure_class, detail, "
        "classic_status, classic_class, evidence_json FROM executions WHERE run_id = ? AND classic_status IS NOT NULL "
        "ORDER BY exec_id", [run_id])


def answered_programs(store: Store, run_id: str) -> Iterator[AnsweredProgram]:
    """The program of every candidate the model answered (generation ok), in record order."""
    for c in store.query("SELECT task_id, program, program_sha256 FROM candidates WHERE run_id = ? "
                         "AND gen_status = 'ok'", [run_id]):
        yield AnsweredProgram(**c)
