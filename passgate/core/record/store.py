"""The SQLite record of every run, through sqlite-utils.

Append-only tables (candidates, executions, outcomes, signoffs) refuse UPDATE and DELETE by
trigger, and every row carries a hash over its content and the previous row's hash in the same
table and run, so `verify` can name the first altered row. A `Store` belongs to the thread that
opened it; the engine writes from one thread only.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import sqlite3
import time
from pathlib import Path
from typing import Any, Iterable, Iterator

import sqlite_utils

from passgate.core.errors import RunNotFound, StoreError
from passgate.core.model import CANARY_GLOB_SQL

SCHEMA_VERSION = 10
CHAINED_TABLES = ("candidates", "executions", "outcomes", "signoffs", "evidence", "scans", "repo_results",
                  "contract_scans", "acceptance")
# runs-row fields whose values are sealed by an `evidence` row (the runs row itself is mutable)
SEALED_RUN_FIELDS = ("runtime", "image", "image_digest", "worker_sha256", "limits_json", "probe_json",
                     "preflight_json", "selfcheck_json", "grading_protocol")
GENESIS = "0" * 64
UNSEALED_EVIDENCE = frozenset({"not_imported"})     # evidence rows that record facts, not runs-row fields
# columns added to chained tables from v4 on: left out of a row's hash while NULL, so rows written
# before they existed verify unchanged
LATE_COLUMNS = frozenset({"classic_status", "classic_class", "evidence_json", "tamper_json", "imports_json",
                          "integrity_json", "first_token_ms"})


def utcnow() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds")


def default_db_path() -> Path:
    """`PASSGATE_DB`, else ./passgate.db."""
    return Path(os.environ.get("PASSGATE_DB", "passgate.db"))


def _plain(value: Any) -> Any:
    """The value as SQLite hands it back, so hashes recompute identically on read."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (dict, list, tuple)):
        return json.dumps(value, sort_keys=True, separators=(",", ":"))
    return value


def row_digest(row: dict, prev_hash: str) -> str:
    body = {k: v for k, v in row.items() if k not in ("row_hash", "prev_hash", "rowid", "exec_id", "id")
            and not (v is None and k in LATE_COLUMNS)}
    payload = json.dumps(body, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256((prev_hash + "\n" + payload).encode("utf-8")).hexdigest()


def _create_v1(db: sqlite_utils.Database) -> None:
    _v1_tables(db)
    _v1_guards(db)


def _v1_tables(db: sqlite_utils.Database) -> None:
    db["meta"].create({"key": str, "value": str}, pk="key", if_not_exists=True)
    db["manifests"].create(
        {"manifest_id": str, "name": str, "canonical_json": str, "yaml_text": str, "source_path": str,
         "created_at": str},
        pk="manifest_id", if_not_exists=True)
    db["runs"].create(
        {"run_id": str, "manifest_id": str, "name": str, "status": str, "created_at": str,
         "started_at": str, "finished_at": str, "operator": str, "policy": str, "model": str,
         "runtime": str, "image": str, "image_digest": str, "worker_sha256": str,
         "limits_json": str, "probe_json": str, "preflight_json": str, "selfcheck_json": str,
         "host_json": str, "seeds_json": str, "error": str, "passgate_version": str,
         "progress_json": str},
        pk="run_id", if_not_exists=True)
    db["tasks"].create(
        {"run_id": str, "task_id": str, "position": int, "slice": str, "set_id": str,
         "set_sha256": str, "set_revision": str, "exposure": str, "tags_json": str, "prompt": str,
         "entry_point": str, "candidate_preamble": str, "test_setup": str, "public_tests": str,
         "protected_tests": str, "reference_solution": str, "completion_style": str,
         "cpu_limit_s": float, "reference_cpu_s": float},
        pk=("run_id", "task_id"), if_not_exists=True)
    db["candidates"].create(
        {"run_id": str, "task_id": str, "candidate_index": int, "raw_text": str,
         "processed_text": str, "program": str, "program_sha256": str, "source": str,
         "source_ref": str, "seed": int, "finish_reason": str, "prompt_tokens": int,
         "completion_tokens": int, "latency_ms": float, "model_id": str, "logprobs_json": str,
         "mean_logprob": float, "gen_status": str, "gen_error": str, "gen_attempts_json": str,
         "excluded_reason": str, "created_at": str, "prev_hash": str, "row_hash": str},
        pk=("run_id", "task_id", "candidate_index"), if_not_exists=True)
    db["executions"].create(
        {"exec_id": int, "run_id": str, "task_id": str, "candidate_index": int, "attempt": int,
         "purpose": str, "program_sha256": str, "status": str, "public_status": str,
         "public_class": str, "protected_status": str, "protected_class": str,
         "failure_class": str, "detail": str, "exc_type": str, "exit_reason": str,
         "cpu_s": float, "cpu_total_s": float, "wall_s": float, "peak_rss_kb": int, "out_bytes": int,
         "stdout": str,
         "stderr": str, "violations_json": str, "runtime": str, "image_digest": str, "node": str,
         "container_id": str, "started_at": str, "finished_at": str, "prev_hash": str,
         "row_hash": str},
        pk="exec_id", if_not_exists=True)
    db["outcomes"].create(
        {"run_id": str, "task_id": str, "candidate_index": int, "outcome": str,
         "failure_class": str, "public_passed": int, "protected_passed": int, "attempts": int,
         "executed_as": int, "cpu_s": float, "wall_s": float, "reason": str, "decided_at": str,
         "prev_hash": str, "row_hash": str},
        pk=("run_id", "task_id", "candidate_index"), if_not_exists=True)
    db["signoffs"].create(
        {"id": int, "run_id": str, "manifest_id": str, "boundary": str, "reviewer": str,
         "decision": str, "statement": str, "at": str, "prev_hash": str, "row_hash": str},
        pk="id", if_not_exists=True)
    db["evidence"].create(
        {"id": int, "run_id": str, "kind": str, "body_json": str, "at": str, "prev_hash": str, "row_hash": str},
        pk="id", if_not_exists=True)
    db["events"].create(
        {"id": int, "run_id": str, "at": str, "kind": str, "message": str, "data_json": str},
        pk="id", if_not_exists=True)


def _v1_guards(db: sqlite_utils.Database) -> None:
    """Indexes, and the triggers that make chained tables append-only."""
    db["executions"].create_index(["run_id", "task_id", "candidate_index"], if_not_exists=True)
    db["events"].create_index(["run_id"], if_not_exists=True)
    db["signoffs"].create_index(["manifest_id"], if_not_exists=True)
    for table in CHAINED_TABLES[:5]:   # the v1 chains; later ones get their triggers with their table
        for op in ("UPDATE", "DELETE"):
            db.execute(
                f"CREATE TRIGGER IF NOT EXISTS {table}_no_{op.lower()} BEFORE {op} ON {table} "
                f"BEGIN SELECT RAISE(ABORT, '{table} rows are append-only'); END")


def _v2_evidence(db: sqlite_utils.Database) -> None:
    """v2: the evidence chain that seals run fields, and total sandbox CPU per execution."""
    db["evidence"].create(
        {"id": int, "run_id": str, "kind": str, "body_json": str, "at": str, "prev_hash": str, "row_hash": str},
        pk="id", if_not_exists=True)
    if "cpu_total_s" not in db["executions"].columns_dict:
        db.execute("ALTER TABLE executions ADD COLUMN cpu_total_s FLOAT")
    for op in ("UPDATE", "DELETE"):
        db.execute(f"CREATE TRIGGER IF NOT EXISTS evidence_no_{op.lower()} BEFORE {op} ON evidence "
                   f"BEGIN SELECT RAISE(ABORT, 'evidence rows are append-only'); END")


def _v3_report_indexes(db: sqlite_utils.Database) -> None:
    """v3: covering indexes for the report's grouped scans: a report reads each index in key order
    and never visits the table rows (tests/core/test_store.py checks the query plans)."""
    db.execute("CREATE INDEX IF NOT EXISTS outcomes_report ON outcomes (run_id, task_id, candidate_index, "
               "outcome, failure_class, public_passed, protected_passed, cpu_s)")
    db.execute("CREATE INDEX IF NOT EXISTS candidates_report ON candidates (run_id, task_id, candidate_index, "
               "prompt_tokens, completion_tokens, mean_logprob)")
    db.execute("CREATE INDEX IF NOT EXISTS executions_report ON executions (run_id, task_id, candidate_index, "
               "wall_s, cpu_s, status, purpose, failure_class)")
    # the covering index starts with the same columns, so the v1 index is redundant
    db.execute("DROP INDEX IF EXISTS idx_executions_run_id_task_id_candidate_index")


def _v4_fidelity(db: sqlite_utils.Database) -> None:
    """v4: the grading protocol of each run; per execution the cross-check's verdict and the structured
    evidence (failing line, the candidate's answer, fidelity notes); per task the reference harness's
    program after the candidate's (the cross-check runs the two together)."""
    for table, column, kind in (("runs", "grading_protocol", "INTEGER"), ("executions", "classic_status", "TEXT"),
                                ("executions", "classic_class", "TEXT"), ("executions", "evidence_json", "TEXT"),
                                ("tasks", "classic_suffix", "TEXT")):
        if column not in db[table].columns_dict:
            db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")


def _v5_scans_and_tamper(db: sqlite_utils.Database) -> None:
    """v5: one chained row per scanned candidate: its program's static findings (rule, severity,
    confidence, line, scanner and version), scanned once per distinct program; per execution the
    tamper tripwires the candidate tripped (NULL: none)."""
    if "tamper_json" not in db["executions"].columns_dict:
        db.execute("ALTER TABLE executions ADD COLUMN tamper_json TEXT")
    db["scans"].create(
        {"run_id": str, "task_id": str, "candidate_index": int, "program_sha256": str, "scanners_json": str,
         "parsed": int, "findings": int, "max_severity": str, "findings_json": str, "scanned_at": str,
         "prev_hash": str, "row_hash": str},
        pk=("run_id", "task_id", "candidate_index"), if_not_exists=True)
    for op in ("UPDATE", "DELETE"):
        db.execute(f"CREATE TRIGGER IF NOT EXISTS scans_no_{op.lower()} BEFORE {op} ON scans "
                   f"BEGIN SELECT RAISE(ABORT, 'scans rows are append-only'); END")



def _v6_repository(db: sqlite_utils.Database) -> None:
    """v6: repository tasks. Per task its grading spec (snapshot, commands, protected tests); per graded
    patch what it touched, whether it applied and rolled back, the build, and every test id's outcome."""
    if "repo_json" not in db["tasks"].columns_dict:
        db.execute("ALTER TABLE tasks ADD COLUMN repo_json TEXT")
    db["repo_results"].create(
        {"id": int, "run_id": str, "task_id": str, "candidate_index": int, "attempt": int, "purpose": str,
         "applies": int, "apply_error": str, "files_changed": int, "lines_added": int, "lines_removed": int,
         "reviewer_burden": int, "test_files_touched": int, "dependency_files_changed": int, "secrets_found": int,
         "refused_json": str, "scan_json": str, "build_status": str, "build_log_tail": str, "public_status": str,
         "protected_status": str, "public_tests_json": str, "protected_tests_json": str, "tamper_json": str,
         "rollback_applies": int, "rollback_restores": int, "tree_before": str, "tree_after": str,
         "failure_class": str, "detail": str, "at": str, "prev_hash": str, "row_hash": str},
        pk="id", if_not_exists=True)
    db.execute("CREATE INDEX IF NOT EXISTS repo_results_run ON repo_results (run_id, task_id, candidate_index)")
    for op in ("UPDATE", "DELETE"):
        db.execute(f"CREATE TRIGGER IF NOT EXISTS repo_results_no_{op.lower()} BEFORE {op} ON repo_results "
                   f"BEGIN SELECT RAISE(ABORT, 'repo_results rows are append-only'); END")



def _v7_split_tests(db: sqlite_utils.Database) -> None:
    """v7 (grading protocol 3): per task its public examples as the code run after the program; per
    execution how the protected suite's assertions were decided (outside the candidate's process, in
    it, and who knew which had to run)."""
    for table, column, kind in (("tasks", "public_suffix", "TEXT"), ("tasks", "protected_suffix", "TEXT"),
                                ("tasks", "oracle_json", "TEXT"), ("executions", "integrity_json", "TEXT")):
        if column not in db[table].columns_dict:
            db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")


def _v8_task_contract(db: sqlite_utils.Database) -> None:
    """v8: the task contract. Per task its allowed imports and its entry point's signature; per
    execution the disallowed imports the program attempted (NULL: none); per candidate what its text
    names (modules, each allowed or not) and how its entry point's signature differs from the task's."""
    for table, column, kind in (("tasks", "allowed_imports_json", "TEXT"), ("tasks", "signature_json", "TEXT"),
                                ("executions", "imports_json", "TEXT")):
        if column not in db[table].columns_dict:
            db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")
    db["contract_scans"].create(
        {"run_id": str, "task_id": str, "candidate_index": int, "program_sha256": str, "parsed": int,
         "imports_json": str, "disallowed": int, "dynamic": int, "signature_json": str, "signature_changed": int,
         "signature_changes_json": str, "scanned_at": str, "prev_hash": str, "row_hash": str},
        pk=("run_id", "task_id", "candidate_index"), if_not_exists=True)
    for op in ("UPDATE", "DELETE"):
        db.execute(f"CREATE TRIGGER IF NOT EXISTS contract_scans_no_{op.lower()} BEFORE {op} ON contract_scans "
                   f"BEGIN SELECT RAISE(ABORT, 'contract_scans rows are append-only'); END")


def _v9_local_edits(db: sqlite_utils.Database) -> None:
    """v9: local edits. Per task the code after the gap (fill-in-the-middle); per candidate the time to
    its first streamed token; per run an optional suggestion log (shown, accepted, edited after) joined
    to its candidates."""
    for table, column, kind in (("tasks", "infill_suffix", "TEXT"), ("candidates", "first_token_ms", "FLOAT")):
        if column not in db[table].columns_dict:
            db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")
    db["acceptance"].create(
        {"run_id": str, "task_id": str, "candidate_index": int, "shown": int, "accepted": int, "edited_after": int,
         "source_ref": str, "log_sha256": str, "at": str, "prev_hash": str, "row_hash": str},
        pk=("run_id", "task_id", "candidate_index"), if_not_exists=True)
    for op in ("UPDATE", "DELETE"):
        db.execute(f"CREATE TRIGGER IF NOT EXISTS acceptance_no_{op.lower()} BEFORE {op} ON acceptance "
                   f"BEGIN SELECT RAISE(ABORT, 'acceptance rows are append-only'); END")


def _v10_cost_index(db: sqlite_utils.Database) -> None:
    """v10: the report's cost reads every step's CPU (`cpu_total_s`), so the executions' covering
    index holds it too."""
    db.execute("DROP INDEX IF EXISTS executions_report")
    db.execute("CREATE INDEX executions_report ON executions (run_id, task_id, candidate_index, "
               "wall_s, cpu_s, status, purpose, failure_class, cpu_total_s)")


MIGRATIONS = [(1, _create_v1), (2, _v2_evidence), (3, _v3_report_indexes), (4, _v4_fidelity),
              (5, _v5_scans_and_tamper), (6, _v6_repository), (7, _v7_split_tests), (8, _v8_task_contract),
              (9, _v9_local_edits), (10, _v10_cost_index)]


def _use_wal(conn: sqlite3.Connection) -> None:
    """Switch a file to WAL once; switching needs an exclusive lock that a busy handler does not wait for."""
    for attempt in range(100):
        try:
            if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or attempt == 99:
                raise
            time.sleep(0.05)


class Store:
    """Read and append run records in one SQLite file."""

    def __init__(self, path: str | os.PathLike, *, create: bool = True):
        self.path = Path(path)
        if not create and not self.path.exists():
            raise StoreError(f"no record file at {self.path}; run `passgate run` first or pass --db")
        conn = sqlite3.connect(str(self.path), timeout=30, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA busy_timeout=30000")
        _use_wal(conn)
        conn.execute("PRAGMA synchronous=NORMAL")
        self.db = sqlite_utils.Database(conn)
        self._last_hash: dict[tuple[str, str], str] = {}
        self._migrate()

    # ---- schema -------------------------------------------------------------------------
    def _migrate(self) -> None:
        if self._check_version() == SCHEMA_VERSION:
            return
        # take the write lock first: two processes opening a new file must not both migrate
        self.db.conn.execute("BEGIN IMMEDIATE")
        try:
            current = self._check_version()
            for version, step in MIGRATIONS:
                if version > current:
                    step(self.db)
                    self.db["meta"].upsert({"key": "schema_version", "value": str(version)}, pk="key")
            self.db.conn.execute("COMMIT")
        except BaseException:
            self.db.conn.execute("ROLLBACK")
            raise

    def _check_version(self) -> int:
        current = self.schema_version()
        if current > SCHEMA_VERSION:
            raise StoreError(f"{self.path} has schema version {current}, newer than this passgate "
                             f"({SCHEMA_VERSION}); upgrade passgate to read it")
        return current

    def schema_version(self) -> int:
        if "meta" not in self.db.table_names():
            return 0
        row = self.db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        return int(row[0]) if row else 0

    def close(self) -> None:
        self.db.conn.close()

    # ---- chained appends ----------------------------------------------------------------
    def _prev_hash(self, table: str, run_id: str) -> str:
        key = (table, run_id)
        if key not in self._last_hash:
            row = self.db.execute(
                f"SELECT row_hash FROM {table} WHERE run_id = ? ORDER BY rowid DESC LIMIT 1", [run_id]).fetchone()
            self._last_hash[key] = row[0] if row else GENESIS
        return self._last_hash[key]

    def append(self, table: str, rows: Iterable[dict]) -> int:
        """Append hash-chained rows in one transaction; returns how many were written."""
        if table not in CHAINED_TABLES:
            raise StoreError(f"{table} is not an append-only table")
        staged: list[dict] = []
        pending: dict[str, str] = {}
        columns = self._columns(table)
        for raw in rows:
            unknown = set(raw) - set(columns)
            if unknown:
                raise StoreError(f"{table} has no column(s) {', '.join(sorted(unknown))}")
            # every column present, as SQLite returns it, so the hash recomputes on read
            row = {c: _plain(raw.get(c)) for c in columns if c not in ("exec_id", "id")}
            run_id = row["run_id"]
            prev = pending.get(run_id) or self._prev_hash(table, run_id)
            row["prev_hash"] = prev
            row["row_hash"] = row_digest(row, prev)
            pending[run_id] = row["row_hash"]
            staged.append(row)
        if not staged:
            return 0
        try:
            with self.db.conn:
                self.db[table].insert_all(staged, batch_size=500)
        except sqlite3.IntegrityError as exc:
            self._last_hash = {k: v for k, v in self._last_hash.items() if k[0] != table}
            raise StoreError(f"refused duplicate {table} row: {exc}") from exc
        for run_id, h in pending.items():
            self._last_hash[(table, run_id)] = h
        return len(staged)

    def _columns(self, table: str) -> list[str]:
        if not hasattr(self, "_column_cache"):
            self._column_cache: dict[str, list[str]] = {}
        if table not in self._column_cache:
            self._column_cache[table] = [c.name for c in self.db[table].columns]
        return self._column_cache[table]

    # ---- manifests and runs -------------------------------------------------------------
    def save_manifest(self, manifest_id: str, name: str, canonical_json: str, yaml_text: str,
                      source_path: str) -> None:
        with self.db.conn:
            self.db["manifests"].insert(
                {"manifest_id": manifest_id, "name": name, "canonical_json": canonical_json,
                 "yaml_text": yaml_text, "source_path": source_path, "created_at": utcnow()},
                pk="manifest_id", ignore=True)

    def manifest(self, manifest_id: str) -> dict:
        try:
            return self.db["manifests"].get(manifest_id)
        except sqlite_utils.db.NotFoundError as exc:
            raise StoreError(f"manifest {manifest_id} is not in {self.path}") from exc

    def create_run(self, row: dict) -> None:
        row = {k: _plain(v) for k, v in row.items()}
        row.setdefault("created_at", utcnow())
        with self.db.conn:
            self.db["runs"].insert(row, pk="run_id")

    def update_run(self, run_id: str, **fields: Any) -> None:
        with self.db.conn:
            self.db["runs"].update(run_id, {k: _plain(v) for k, v in fields.items()})

    def run(self, run_id: str) -> dict:
        """A run by id or unique id prefix."""
        rows = self.db.execute("SELECT * FROM runs WHERE run_id = ? OR run_id LIKE ? LIMIT 2",
                               [run_id, run_id + "%"]).fetchall()
        if len(rows) != 1:
            exact = [r for r in rows if r[0] == run_id]
            if not exact:
                raise RunNotFound(f"no run {run_id!r} in {self.path}" if not rows
                                  else f"run id prefix {run_id!r} is ambiguous in {self.path}")
            rows = exact
        cols = [d[0] for d in self.db.execute("SELECT * FROM runs LIMIT 0").description]
        return dict(zip(cols, rows[0]))

    def runs(self) -> list[dict]:
        return list(self.db.query("SELECT * FROM runs ORDER BY created_at DESC"))

    def seal(self, run_id: str, kind: str, **fields: Any) -> None:
        """Set run fields and append them to the run's evidence chain, so later edits are detectable."""
        if fields:
            self.update_run(run_id, **fields)
        body = json.dumps({k: _plain(v) for k, v in fields.items()}, sort_keys=True, default=str)
        self.append("evidence", [{"run_id": run_id, "kind": kind, "body_json": body, "at": utcnow()}])

    def seal_finish(self, run_id: str, status: str) -> None:
        """Seal the run's final state: row counts and the last hash of every chain (no tail can vanish)."""
        self.update_run(run_id, status=status, finished_at=utcnow())
        tails = {}
        for table in CHAINED_TABLES:
            if table == "evidence":
                continue
            row = self.db.execute(f"SELECT COUNT(*), (SELECT row_hash FROM {table} WHERE run_id = ? ORDER BY rowid "
                                  f"DESC LIMIT 1) FROM {table} WHERE run_id = ?", [run_id, run_id]).fetchone()
            tails[table] = {"rows": row[0], "last_hash": row[1]}
        self.seal(run_id, "finish", status=status)
        self.append("evidence", [{"run_id": run_id, "kind": "tails", "body_json": json.dumps(tails, sort_keys=True),
                                  "at": utcnow()}])

    def event(self, run_id: str, kind: str, message: str, data: dict | None = None) -> None:
        with self.db.conn:
            self.db["events"].insert({"run_id": run_id, "at": utcnow(), "kind": kind, "message": message,
                                      "data_json": json.dumps(data or {}, default=str)})

    # ---- per-run rows -------------------------------------------------------------------
    def save_tasks(self, run_id: str, rows: Iterable[dict]) -> None:
        with self.db.conn:
            self.db["tasks"].insert_all(({"run_id": run_id, **{k: _plain(v) for k, v in r.items()}}
                                         for r in rows), pk=("run_id", "task_id"), ignore=True,
                                        batch_size=200)

    def set_task_limits(self, run_id: str, limits: dict[str, tuple[float, float | None]]) -> None:
        """Record each task's calibrated CPU limit and its reference solution's CPU time."""
        with self.db.conn:
            self.db.conn.executemany(
                "UPDATE tasks SET cpu_limit_s = ?, reference_cpu_s = ? WHERE run_id = ? AND task_id = ?",
                [(lim, ref, run_id, tid) for tid, (lim, ref) in limits.items()])

    def query(self, sql: str, params: Iterable[Any] = ()) -> Iterator[dict]:
        return self.db.query(sql, list(params))

    def rows(self, table: str, run_id: str, order: str = "rowid") -> list[dict]:
        return list(self.db.query(f"SELECT * FROM {table} WHERE run_id = ? ORDER BY {order}", [run_id]))

    def count(self, table: str, run_id: str, where: str = "", params: Iterable[Any] = ()) -> int:
        sql = f"SELECT COUNT(*) FROM {table} WHERE run_id = ?" + (f" AND {where}" if where else "")
        return self.db.execute(sql, [run_id, *params]).fetchone()[0]

    def verdict_integrity(self, run_id: str) -> list[dict]:
        """Per counted candidate (canaries left out): its slice and the `integrity_json` of the attempt
        that decided its verdict, the latest completed one that is not a rerun (the attempt the
        failures list shows), of the program it was executed as. NULL when that attempt has none
        (grading protocol 2, or a program that never reached its test)."""
        same = ("e.run_id = o.run_id AND e.task_id = o.task_id "
                "AND e.candidate_index = COALESCE(o.executed_as, o.candidate_index)")
        return list(self.db.query(
            f"SELECT o.task_id, o.candidate_index, t.slice, (SELECT e.integrity_json FROM executions e WHERE {same} "
            "AND e.status = 'ok' AND e.purpose != 'rerun' ORDER BY e.exec_id DESC LIMIT 1) AS integrity_json "
            "FROM outcomes o JOIN tasks t ON t.run_id = o.run_id AND t.task_id = o.task_id "
            f"WHERE o.run_id = ? AND o.outcome IN ('passed', 'failed', 'flaky') AND o.task_id NOT GLOB "
            f"{CANARY_GLOB_SQL} ORDER BY t.position, o.candidate_index", [run_id]))

    def integrity_ok(self) -> bool:
        return self.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def verify_chain(store: Store, run_id: str) -> list[dict]:
    """Recompute every chained table of a run; return one finding per broken table (empty = intact)."""
    findings = []
    for table in CHAINED_TABLES:
        prev = GENESIS
        for row in store.db.query(f"SELECT rowid AS pg_rowid, * FROM {table} WHERE run_id = ? ORDER BY rowid",
                                  [run_id]):
            rowid = row.pop("pg_rowid")
            if row["prev_hash"] != prev or row_digest(row, prev) != row["row_hash"]:
                findings.append({"table": table, "rowid": rowid,
                                 "key": {k: row.get(k) for k in ("task_id", "candidate_index", "exec_id", "id")
                                         if row.get(k) is not None},
                                 "reason": "prev_hash does not match the previous row" if row["prev_hash"] != prev
                                 else "row content does not match its hash"})
                break
            prev = row["row_hash"]
    return findings + _evidence_findings(store, run_id)


def _evidence_findings(store: Store, run_id: str) -> list[dict]:
    """The runs row must match its sealed evidence; sealed tails must still be there."""
    findings = []
    sealed: dict[str, Any] = {}
    tails = None
    for row in store.db.query("SELECT kind, body_json FROM evidence WHERE run_id = ? ORDER BY rowid", [run_id]):
        if row["kind"] == "tails":
            tails = json.loads(row["body_json"])
        elif row["kind"] not in UNSEALED_EVIDENCE:
            sealed.update(json.loads(row["body_json"]))
    run = store.db.execute("SELECT * FROM runs WHERE run_id = ?", [run_id]).fetchone()
    if run is None:
        return [{"table": "runs", "rowid": None, "key": {"run_id": run_id},
                 "reason": "the run row is missing"}] if sealed or tails else []
    cols = [d[0] for d in store.db.execute("SELECT * FROM runs LIMIT 0").description]
    row = dict(zip(cols, run))
    live = row.get("status") == "running"       # a resumed run: its next seal is still to come
    for field in (*SEALED_RUN_FIELDS, *(() if live else ("status",))):
        if field in sealed and row.get(field) != sealed[field]:
            findings.append({"table": "runs", "rowid": None, "key": {"run_id": run_id},
                             "reason": f"runs.{field} differs from its sealed evidence"})
    for table, tail in (tails or {}).items():
        got = store.db.execute(f"SELECT COUNT(*) FROM {table} WHERE run_id = ? AND rowid <= (SELECT rowid FROM "
                               f"{table} WHERE row_hash = ?)", [run_id, tail["last_hash"]]).fetchone()[0] \
            if tail["last_hash"] else 0
        if got != tail["rows"]:
            findings.append({"table": table, "rowid": None, "key": {"run_id": run_id},
                             "reason": f"{tail['rows']} rows were sealed when the run finished; "
                                       f"{got} of them remain"})
    return findings
