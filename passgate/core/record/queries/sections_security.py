"""Reads behind the report's security, tamper and task-contract sections: the `scans` and
`contract_scans` rows, tamper tripwires and refused imports, each beside the candidate's outcome."""

from __future__ import annotations

from dataclasses import dataclass

from passgate.core.model import COUNTED_SQL
from passgate.core.record.store import Store

from .scans import Limits, connection, limit_sql

# a scans row's worst severity as 0 / 1 / 2 (NULL: no finding), for rows aliased `s`; the ranks are the
# positions in passgate.core.score.security.SEVERITIES
SEVERITY_RANK_SQL = "CASE s.max_severity WHEN 'high' THEN 2 WHEN 'medium' THEN 1 WHEN 'low' THEN 0 END"
_GROUP_SQL = ("CASE WHEN o.outcome = 'passed' THEN 'passing' WHEN o.outcome IN ('failed', 'flaky') "
              "THEN 'failing' END")


# ---- security scans -------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class ScanTotals:
    candidates: int
    programs: int
    unparsed: int | None


@dataclass(frozen=True, slots=True)
class SeverityCount:
    slice: str
    grp: str | None          # passing | failing | None (a candidate not counted)
    sev_rank: int | None     # worst finding's rank; None: no finding
    n: int


@dataclass(frozen=True, slots=True)
class ScanFindings:
    task_id: str
    candidate_index: int
    findings_json: str | None
    outcome: str | None
    sev_rank: int | None


def scan_totals(store: Store, run_id: str) -> ScanTotals:
    """How many of the run's candidates were scanned, their distinct programs, and how many did not parse."""
    return ScanTotals(*store.db.execute("SELECT COUNT(*), COUNT(DISTINCT program_sha256), SUM(parsed = 0) FROM scans "
                                        "WHERE run_id = ?", [run_id]).fetchone())


def severity_counts(store: Store, run_id: str) -> list[SeverityCount]:
    """Scanned candidates per slice, passing or failing, and worst severity."""
    return [SeverityCount(**r) for r in store.query(
        f"SELECT t.slice, {_GROUP_SQL} AS grp, {SEVERITY_RANK_SQL} AS sev_rank, COUNT(*) AS n "
        "FROM scans s "
        "JOIN outcomes o ON o.run_id = s.run_id AND o.task_id = s.task_id "
        "AND o.candidate_index = s.candidate_index JOIN tasks t ON t.run_id = s.run_id "
        "AND t.task_id = s.task_id WHERE s.run_id = ? GROUP BY 1, 2, 3", [run_id])]


def scanner_versions_json(store: Store, run_id: str) -> list[str | None]:
    """Each distinct `scanners_json` (scanner name to version) the run's scans recorded."""
    return [blob for (blob,) in store.db.execute("SELECT DISTINCT scanners_json FROM scans WHERE run_id = ?",
                                                 [run_id])]


def scans_with_findings(store: Store, run_id: str) -> list[ScanFindings]:
    """Every scanned candidate with a finding, by task and index, with its outcome (None: no outcome)."""
    return [ScanFindings(**r) for r in store.query(
        f"SELECT s.task_id, s.candidate_index, s.findings_json, o.outcome, "
        f"{SEVERITY_RANK_SQL} AS sev_rank FROM scans s LEFT JOIN outcomes o "
        "ON o.run_id = s.run_id AND o.task_id = s.task_id AND o.candidate_index = s.candidate_index WHERE s.run_id = ? "
        "AND s.findings > 0 ORDER BY s.task_id, s.candidate_index", [run_id])]


def insecure_pass_counts(store: Store, run_id: str, rank: int, limits: Limits,
                         cap: int | None) -> dict[str, tuple[int, int]]:
    """Per task: its protected passes and its public passes whose program has a finding of severity rank
    `rank` or worse, among the counted rows a what-if keeps: under its CPU `limits`, below index `cap`."""
    join, over, lim = limit_sql(limits)
    where = f" AND NOT {over}" if lim else ""
    where += " AND o.candidate_index < ?" if cap is not None else ""
    sql = (f"SELECT o.task_id, SUM(o.protected_passed = 1 AND o.outcome = 'passed'), SUM(o.public_passed = 1) "
           f"FROM outcomes o {join} JOIN scans s ON s.run_id = o.run_id AND s.task_id = o.task_id "
           f"AND s.candidate_index = o.candidate_index WHERE o.run_id = ? AND {SEVERITY_RANK_SQL} >= ? "
           f"AND o.outcome IN {COUNTED_SQL}{where} GROUP BY o.task_id")
    params = [run_id, rank] + lim + ([cap] if cap is not None else [])
    return {r[0]: (r[1] or 0, r[2] or 0) for r in connection(store).execute(sql, params)}


# ---- tamper tripwires -----------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class TamperEvent:
    task_id: str
    candidate_index: int
    tamper_json: str
    slice: str
    outcome: str | None


def counted_per_slice(store: Store, run_id: str) -> dict[str, int]:
    """How many counted candidates (passed, failed, flaky) each slice has."""
    return {r["slice"]: r["n"] for r in store.query(
        "SELECT t.slice, COUNT(*) AS n FROM outcomes o JOIN tasks t ON t.run_id = o.run_id AND t.task_id = o.task_id "
        "WHERE o.run_id = ? AND o.outcome IN ('passed', 'failed', 'flaky') GROUP BY t.slice", [run_id])}


def tamper_events(store: Store, run_id: str) -> list[TamperEvent]:
    """Every candidate attempt that tripped a tamper tripwire, by task and index, with its slice and outcome."""
    return [TamperEvent(**r) for r in store.query(
        "SELECT e.task_id, e.candidate_index, e.tamper_json, t.slice, o.outcome FROM executions e "
        "JOIN tasks t ON t.run_id = e.run_id AND t.task_id = e.task_id LEFT JOIN outcomes o "
        "ON o.run_id = e.run_id AND o.task_id = e.task_id AND o.candidate_index = e.candidate_index "
        "WHERE e.run_id = ? AND e.candidate_index >= 0 AND e.tamper_json IS NOT NULL "
        "ORDER BY e.task_id, e.candidate_index", [run_id])]


# ---- the task contract ----------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class SliceRefusals:
    slice: str
    candidates: int
    refused: int | None


@dataclass(frozen=True, slots=True)
class ImportAttempt:
    task_id: str
    candidate_index: int
    imports_json: str | None
    slice: str
    outcome: str
    failure_class: str | None


@dataclass(frozen=True, slots=True)
class ContractScan:
    imports_json: str | None
    disallowed: int | None
    dynamic: int | None
    signature_changed: int | None
    slice: str
    failure_class: str | None


@dataclass(frozen=True, slots=True)
class SignatureChange:
    task_id: str
    candidate_index: int
    signature_changes_json: str | None
    outcome: str | None


def allowed_imports_by_slice(store: Store, run_id: str) -> dict[str, str | None]:
    """Each slice's allowed imports as stored (a JSON list; None: any), by slice."""
    return {r["slice"]: r["allowed"] for r in store.query(
        "SELECT slice, MIN(allowed_imports_json) AS allowed FROM tasks WHERE run_id = ? GROUP BY slice", [run_id])}


def refusals_per_slice(store: Store, run_id: str) -> list[SliceRefusals]:
    """Per slice, its counted candidates and how many failed as `disallowed_import`."""
    return [SliceRefusals(r["slice"], r["n"], r["refused"]) for r in store.query(
        "SELECT t.slice, COUNT(*) AS n, SUM(o.failure_class = 'disallowed_import') AS refused "
        "FROM outcomes o JOIN tasks t ON t.run_id = o.run_id AND t.task_id = o.task_id "
        f"WHERE o.run_id = ? AND o.outcome IN {COUNTED_SQL} GROUP BY t.slice", [run_id])]


def refused_import_attempts(store: Store, run_id: str) -> list[ImportAttempt]:
    """Every attempt of a counted candidate in which the sandbox refused an import, by task, index, attempt."""
    return [ImportAttempt(**r) for r in store.query(
        "SELECT e.task_id, e.candidate_index, e.imports_json, t.slice, o.outcome, o.failure_class "
        "FROM executions e JOIN tasks t ON t.run_id = e.run_id AND t.task_id = e.task_id "
        "JOIN outcomes o ON o.run_id = e.run_id AND o.task_id = e.task_id "
        "AND o.candidate_index = e.candidate_index WHERE e.run_id = ? AND e.imports_json IS NOT NULL "
        f"AND o.outcome IN {COUNTED_SQL} ORDER BY e.task_id, e.candidate_index, e.exec_id", [run_id])]


def counted_contract_scans(store: Store, run_id: str) -> list[ContractScan]:
    """The `contract_scans` row of every counted candidate: what its text names, and its signature."""
    return [ContractScan(**r) for r in store.query(
        "SELECT s.imports_json, s.disallowed, s.dynamic, s.signature_changed, "
        "t.slice, o.failure_class FROM contract_scans s JOIN tasks t "
        "ON t.run_id = s.run_id AND t.task_id = s.task_id JOIN outcomes o ON o.run_id = s.run_id "
        "AND o.task_id = s.task_id AND o.candidate_index = s.candidate_index "
        f"WHERE s.run_id = ? AND o.outcome IN {COUNTED_SQL}", [run_id])]


def contract_scan_count(store: Store, run_id: str) -> int:
    """How many of the run's candidates the contract scan read."""
    return store.count("contract_scans", run_id)


def signature_changes(store: Store, run_id: str, limit: int) -> list[SignatureChange]:
    """Up to `limit` candidates whose entry point's signature differs from the task's: passing ones
    first, then by task and index."""
    return [SignatureChange(**r) for r in store.query(
        "SELECT s.task_id, s.candidate_index, s.signature_changes_json, o.outcome "
        "FROM contract_scans s LEFT JOIN outcomes o ON o.run_id = s.run_id "
        "AND o.task_id = s.task_id AND o.candidate_index = s.candidate_index "
        "WHERE s.run_id = ? AND s.signature_changed = 1 "
        "ORDER BY o.outcome != 'passed', s.task_id, s.candidate_index LIMIT ?", [run_id, limit])]
