"""What a generated run's candidates cost and how they ended, aggregated by SQLite.

Read from the record alone with SQL aggregation (attempts through SQLite's JSON functions), so a
report over a million candidates scans the table once and loops over no rows in Python. Every
query takes `store`: the Store, or a sqlite3 connection to its file.
"""

from __future__ import annotations

from typing import NamedTuple

from .scans import connection

# One scan over the run's generated candidates. Without repair every entry of gen_attempts_json is
# one request, so requests, retries and failures follow from the array lengths, and only rows with
# more than one attempt (or none that succeeded) are opened to add up their request time. Wall time
# runs from the first answered request's start to the last candidate stored, so it includes any
# time a resumed run was stopped.
_SCAN = """
SELECT COUNT(*), TOTAL(gen_status = 'ok'),
       TOTAL(CASE WHEN gen_status = 'ok' THEN prompt_tokens END),
       TOTAL(CASE WHEN gen_status = 'ok' THEN completion_tokens END),
       TOTAL(gen_status = 'ok' AND (prompt_tokens IS NULL OR completion_tokens IS NULL)),
       AVG(CASE WHEN gen_status = 'ok' THEN latency_ms END),
       TOTAL(gen_status = 'ok' AND finish_reason = 'stop'), TOTAL(gen_status = 'ok' AND finish_reason = 'length'),
       MIN(CASE WHEN gen_status = 'ok' THEN model_id END), MAX(CASE WHEN gen_status = 'ok' THEN model_id END),
       TOTAL(gen_status = 'ok' AND model_id IS NULL),
       TOTAL(json_array_length(gen_attempts_json)),
       TOTAL(CASE WHEN gen_status != 'ok' OR json_array_length(gen_attempts_json) > 1
                  THEN (SELECT TOTAL(json_extract(value, '$.elapsed_ms')) FROM json_each(gen_attempts_json))
                  ELSE latency_ms END) / 1000.0,
       (MAX(julianday(created_at))
        - MIN(CASE WHEN gen_status = 'ok' THEN julianday(created_at) - latency_ms / 86400000.0 END)) * 86400.0
FROM candidates WHERE run_id = ? AND source = 'generate'"""
# With repair rounds, entries are requests and public checks: every request is read (exact, slower).
_ATTEMPTS = """
SELECT COUNT(*), TOTAL(a.attempt > 1), TOTAL(a.outcome = 'error'), TOTAL(a.round > 0 AND a.attempt = 1),
       TOTAL(a.elapsed_ms) / 1000.0
FROM (SELECT json_extract(j.value, '$.attempt') AS attempt, json_extract(j.value, '$.outcome') AS outcome,
             COALESCE(json_extract(j.value, '$.round'), 0) AS round,
             COALESCE(json_extract(j.value, '$.elapsed_ms'), 0) AS elapsed_ms
      FROM candidates c, json_each(c.gen_attempts_json) j
      WHERE c.run_id = ? AND c.source = 'generate') a
WHERE a.attempt IS NOT NULL"""
_GROUPED = """
SELECT COALESCE({col}, 'unknown'), COUNT(*) FROM candidates
WHERE run_id = ? AND source = 'generate' AND gen_status = 'ok' GROUP BY 1 ORDER BY 1"""
_ERRORS = """
SELECT task_id, candidate_index, gen_error FROM candidates
WHERE run_id = ? AND source = 'generate' AND gen_status != 'ok' ORDER BY task_id, candidate_index LIMIT ?"""


class GenerationTotals(NamedTuple):
    """The generated candidates of a run, in one row (sums are SQLite TOTALs: floats)."""

    candidates: int
    ok: float                          # answered (gen_status 'ok')
    prompt_tokens: float               # of the answered ones
    completion_tokens: float
    without_token_counts: float        # answered without prompt or completion token counts
    mean_latency_ms: float | None
    stop: float                        # answered with finish reason 'stop'
    length: float                      # ... and 'length' (truncated at max_tokens)
    model_low: str | None              # the least and greatest served model id among the answered
    model_high: str | None
    without_model: float               # answered without a served model id
    attempt_entries: float             # entries of every gen_attempts_json array
    request_s: float                   # seconds of requests, read from the attempts only where needed
    wall_s: float | None               # first answered request's start to the last candidate stored


def generation_totals(store, run_id: str) -> GenerationTotals:
    """Counts, tokens and times of the run's generated candidates, from one scan."""
    return GenerationTotals._make(connection(store).execute(_SCAN, [run_id]).fetchone())


class AttemptTotals(NamedTuple):
    """Every request of a run with repair rounds, read entry by entry."""

    requests: int
    retries: float
    failed: float
    repair_rounds: float
    request_s: float


def attempt_totals(store, run_id: str) -> AttemptTotals:
    """Requests, retries, failed requests, repair rounds and request seconds, counted exactly from
    every attempt entry (with repair, entries are requests and public checks)."""
    return AttemptTotals._make(connection(store).execute(_ATTEMPTS, [run_id]).fetchone())


def finish_reasons(store, run_id: str) -> dict[str, int]:
    """Answered candidates by finish reason ('unknown' where none was given), by reason."""
    return _answered_by(store, run_id, "finish_reason")


def served_models(store, run_id: str) -> dict[str, int]:
    """Answered candidates by the model id the endpoint reported ('unknown' where none), by id."""
    return _answered_by(store, run_id, "model_id")


def _answered_by(store, run_id: str, column: str) -> dict[str, int]:
    return dict(connection(store).execute(_GROUPED.format(col=column), [run_id]).fetchall())


def task_count(store, run_id: str) -> int:
    """How many tasks the run defines (canaries included)."""
    return connection(store).execute("SELECT COUNT(*) FROM tasks WHERE run_id = ?", [run_id]).fetchone()[0]


class GenerationError(NamedTuple):
    """A candidate whose generation failed, and the error the record keeps."""

    task_id: str
    candidate_index: int
    error: str | None


def generation_errors(store, run_id: str, limit: int) -> list[GenerationError]:
    """The first `limit` failed generations, by task and index."""
    return [GenerationError._make(r) for r in connection(store).execute(_ERRORS, [run_id, limit])]
