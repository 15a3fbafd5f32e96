"""Synthetic rows for timing fixtures: a run's candidates, outcomes and executions written in bulk.

`Store.append` hashes every row into its table's chain, which takes hours for a million rows; these
rows carry a placeholder hash instead and go in with `executemany` in one transaction, so a
million-row run is written in seconds. `verify` rejects such a run: it is for benchmarks that time
the readers (the report reads the same columns either way), never for a record anyone gates on.
"""

from __future__ import annotations

from collections.abc import Iterable

from passgate.core.record.store import Store

PLACEHOLDER_HASH = "synthetic"
# each row is a tuple of these columns, in this order
CANDIDATE_COLUMNS = ("run_id", "task_id", "candidate_index", "source", "prompt_tokens", "completion_tokens",
                     "model_id", "mean_logprob", "gen_status")
OUTCOME_COLUMNS = ("run_id", "task_id", "candidate_index", "outcome", "failure_class", "public_passed",
                   "protected_passed", "attempts", "cpu_s", "wall_s", "reason")
EXECUTION_COLUMNS = ("run_id", "task_id", "candidate_index", "attempt", "purpose", "status", "public_status",
                     "protected_status", "failure_class", "cpu_s", "wall_s", "peak_rss_kb")


def _insert(table: str, columns: tuple[str, ...]) -> str:
    return (f"INSERT INTO {table} ({', '.join(columns)}, prev_hash, row_hash) "
            f"VALUES ({', '.join('?' * len(columns))}, '{PLACEHOLDER_HASH}', '{PLACEHOLDER_HASH}')")


def write_synthetic_rows(store: Store, candidates: Iterable[tuple], outcomes: Iterable[tuple],
                         executions: Iterable[tuple]) -> None:
    """Write the rows (tuples in the `*_COLUMNS` order; iterables are consumed in the order
    candidates, outcomes, executions) in one transaction, unchained, then checkpoint the WAL so
    the file is complete on its own. The run, its manifest and its tasks go through `Store` first."""
    conn = store.db.conn
    conn.execute("PRAGMA synchronous=OFF")   # a fixture: a crash mid-write just means writing it again
    with conn:
        conn.executemany(_insert("candidates", CANDIDATE_COLUMNS), candidates)
        conn.executemany(_insert("outcomes", OUTCOME_COLUMNS), outcomes)
        conn.executemany(_insert("executions", EXECUTION_COLUMNS), executions)
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
