"""What the engine reads back while it runs: what is already decided, graded or scanned, so a
resumed run does only what is missing, and what a rerun, the self-check and a suggestion log need.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from passgate.core.record.store import Store

Key = tuple[str, int]           # (task_id, candidate_index)


# ------------------------------------------------------------------------------ decided and recorded
def decided_keys(store: Store, run_id: str) -> set[Key]:
    """The run's candidates that have an outcome: never graded again."""
    return {(r["task_id"], r["candidate_index"]) for r in store.query(
        "SELECT task_id, candidate_index FROM outcomes WHERE run_id = ?", [run_id])}


def decided_indexes(store: Store, run_id: str, task_id: str) -> set[int]:
    """The candidate indexes of one task that have an outcome."""
    return {r["candidate_index"] for r in store.query(
        "SELECT candidate_index FROM outcomes WHERE run_id = ? AND task_id = ?", [run_id, task_id])}


def candidate_keys(store: Store, run_id: str) -> set[Key]:
    """Every candidate of the run, by task and index."""
    return {(r["task_id"], r["candidate_index"]) for r in store.query(
        "SELECT task_id, candidate_index FROM candidates WHERE run_id = ?", [run_id])}


def acceptance_keys(store: Store, run_id: str) -> set[Key]:
    """The candidates already in the run's suggestion log (it is append-only: one row per candidate)."""
    return {(r["task_id"], r["candidate_index"]) for r in store.query(
        "SELECT task_id, candidate_index FROM acceptance WHERE run_id = ?", [run_id])}


def generated_candidates(store: Store, run_id: str, task_id: str) -> list[dict]:
    """One task's candidates whose generation succeeded, by index, as dicts (a rerun executes the
    row's program and hands the rows on)."""
    return list(store.query(
        "SELECT * FROM candidates WHERE run_id = ? AND task_id = ? AND gen_status = 'ok' ORDER BY candidate_index",
        [run_id, task_id]))


def execution_count(store: Store, run_id: str, task_id: str, candidate_index: int) -> int:
    """How many executions one candidate has (every purpose): the next attempt's number is one more."""
    return store.count("executions", run_id, "task_id = ? AND candidate_index = ?", [task_id, candidate_index])


def repo_results(store: Store, run_id: str, purpose: str) -> list[dict]:
    """The run's graded patches of one purpose (`selfcheck`, `grade`), in the order written, as dicts:
    the repository grader keeps them beside the rows it writes itself, which are dicts too."""
    return list(store.query("SELECT * FROM repo_results WHERE run_id = ? AND purpose = ?", [run_id, purpose]))


# ------------------------------------------------------------------------------ self-check
def selfcheck_executions(store: Store, run_id: str, candidate_index: int) -> list[dict]:
    """The self-check's executions of the reference solutions (recorded under `candidate_index`),
    oldest first, as dicts: the self-check mixes them with the execution rows it writes."""
    return list(store.query("SELECT * FROM executions WHERE run_id = ? AND candidate_index = ? "
                            "AND purpose = 'selfcheck' ORDER BY exec_id", [run_id, candidate_index]))


@dataclass(frozen=True, slots=True)
class ReferenceOutcome:
    """A decided candidate of a run whose candidates are the references, with its latest attempt's detail."""

    task_id: str
    outcome: str
    failure_class: str | None
    public_passed: int | None
    reason: str | None
    detail: str | None


def reference_outcomes(store: Store, run_id: str) -> list[ReferenceOutcome]:
    """Every outcome of the run with the detail of its candidate's latest execution: the self-check
    summary of a run whose candidates are the references."""
    return [ReferenceOutcome(o["task_id"], o["outcome"], o["failure_class"], o["public_passed"], o["reason"],
                             o["detail"]) for o in store.query(
        "SELECT o.task_id, o.outcome, o.failure_class, o.public_passed, o.reason, "
        "(SELECT detail FROM executions e WHERE e.run_id = o.run_id AND e.task_id = o.task_id "
        "AND e.candidate_index = o.candidate_index ORDER BY exec_id DESC LIMIT 1) AS detail "
        "FROM outcomes o WHERE o.run_id = ?", [run_id])]


# ------------------------------------------------------------------------------ scans
@dataclass(frozen=True, slots=True)
class ProgramToScan:
    """A candidate with a program and no scan row yet."""

    task_id: str
    candidate_index: int
    program: str
    program_sha256: str


def _unscanned(store: Store, run_id: str, table: str) -> list[ProgramToScan]:
    return [ProgramToScan(r["task_id"], r["candidate_index"], r["program"], r["program_sha256"])
            for r in store.query(
        "SELECT c.task_id, c.candidate_index, c.program, c.program_sha256 FROM candidates c "
        f"LEFT JOIN {table} s ON s.run_id = c.run_id AND s.task_id = c.task_id "
        "AND s.candidate_index = c.candidate_index "
        "WHERE c.run_id = ? AND s.task_id IS NULL AND ifnull(c.program, '') != '' "
        "ORDER BY c.task_id, c.candidate_index", [run_id])]


def unscanned_programs(store: Store, run_id: str) -> list[ProgramToScan]:
    """The run's candidates with a program and no security scan yet, by task and index."""
    return _unscanned(store, run_id, "scans")


def programs_without_contract_scan(store: Store, run_id: str) -> list[ProgramToScan]:
    """The run's candidates with a program and no contract scan yet, by task and index."""
    return _unscanned(store, run_id, "contract_scans")


class ContractScanTally(NamedTuple):
    """The run's contract scans: how many, how many name a disallowed module, how many change the
    entry point's signature (None: no row, or no row with that recorded)."""

    scanned: int
    disallowed: int | None
    signature_changed: int | None


def contract_scan_tally(store: Store, run_id: str) -> ContractScanTally:
    """What the run's contract scan found, for its event line."""
    row = store.db.execute("SELECT COUNT(*), SUM(disallowed > 0), SUM(signature_changed) FROM contract_scans "
                           "WHERE run_id = ?", [run_id]).fetchone()
    return ContractScanTally(*row)
