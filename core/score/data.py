"""Per-task arrays read from a run's record with SQL aggregation: the input of scores and reports.

One grouped scan per table (outcomes, candidates, executions), each in the primary-key order
of (run_id, task_id, ...) so SQLite groups without sorting; the rare rows a report lists one by
one (flaky, infra_error, excluded outcomes; retries) come back from the same scan as short
strings. Nothing here loops in Python over candidate or execution rows.

`Rescore` reads the same record under what-if conditions: a stricter CPU limit (a pass whose
deciding attempt used more CPU than the limit becomes a timeout failure), the first N
candidates of each task, or public tests as the verifier.
"""

from __future__ import annotations

import json
import re
import sqlite3
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from passgate.core.model import CANARY_GLOB_SQL, FAILURE_CLASSES

from .scoring import COUNTED_OUTCOMES

_COUNTED_SQL = "(" + ",".join(f"'{o}'" for o in COUNTED_OUTCOMES) + ")"
_NOT_CANARY = f" AND task_id NOT GLOB {CANARY_GLOB_SQL}"      # canary tasks are never part of pass@k
_US = 1_000_000   # execution times travel as integer microseconds
_RARE = re.compile(r"#(-?\d+)")


@dataclass(frozen=True)
class Rescore:
    """What-if conditions applied while reading; the defaults read the record as it is."""

    cpu_limit_s: float | None = None       # absolute CPU limit per candidate
    cpu_limit_factor: float | None = None  # or a factor of each task's calibrated cpu_limit_s
    max_candidates: int | None = None      # only candidate_index < N
    verifier: str = "protected"            # protected | public

    @property
    def limited(self) -> bool:
        return self.cpu_limit_s is not None or self.cpu_limit_factor is not None


@dataclass
class RunRecords:
    """A run's tasks as parallel numpy arrays, plus the few rows listed one by one."""

    task_ids: np.ndarray
    slices: np.ndarray
    set_ids: np.ndarray
    tags: list[tuple[str, ...]]
    has_public: np.ndarray
    cpu_limit: np.ndarray
    arrays: dict[str, np.ndarray] = field(default_factory=dict)   # per-task columns, named as in `tasks`
    class_counts: dict[str, int] = field(default_factory=dict)    # failure class of counted failures
    rare: list[dict] = field(default_factory=list)                # flaky / infra_error / excluded rows
    pending: list[dict] = field(default_factory=list)             # candidates without an outcome
    exec_times_us: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    exec_other: list[dict] = field(default_factory=list)          # attempts other than ok grade runs
    rescore: Rescore = Rescore()

    def __getitem__(self, name: str) -> np.ndarray:
        return self.arrays[name]

    @property
    def n(self) -> np.ndarray:
        return self.arrays["n_public" if self.rescore.verifier == "public" else "n"]

    @property
    def c(self) -> np.ndarray:
        return self.arrays["c_public" if self.rescore.verifier == "public" else "c"]


def load_records(store, run_id: str, rescore: Rescore = Rescore(), *, parallel: bool = True) -> RunRecords:
    """Read a run's per-task arrays; with `parallel`, the three table scans run side by side."""
    if not parallel:
        return RecordsJob(store, run_id, rescore, None).result()
    with ThreadPoolExecutor(max_workers=3) as pool:
        return RecordsJob(store, run_id, rescore, pool).result()


class RecordsJob:
    """The scans of one run, each on its own read-only connection in `pool` (or in turn without one).

    `outcomes()` returns as soon as the outcome arrays are filled (everything pass@k needs), so
    scores can be computed while the candidate and execution scans still run; `result()` waits
    for every part.
    """

    def __init__(self, store, run_id: str, rescore: Rescore, pool: ThreadPoolExecutor | None):
        self.run_id, self.rescore = run_id, rescore
        self.tasks = _load_tasks(store.db.conn, run_id)
        path = Path(store.path)
        self._parts: list[Future] = []
        self._first: Future | None = None
        if pool is None or not path.exists():
            conn = store.db.conn
            self._recs = self._outcomes_part(conn)
            self._candidates_part(conn)
            self._executions_part(conn)
            return
        self._first = pool.submit(self._job, path, self._outcomes_part)
        self._parts = [self._first, pool.submit(self._job, path, self._candidates_part),
                       pool.submit(self._job, path, self._executions_part)]

    @staticmethod
    def _job(path: Path, part):
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30, check_same_thread=False)
        try:
            return part(conn)
        finally:
            conn.close()

    def outcomes(self) -> RunRecords:
        return self._first.result() if self._first is not None else self._recs

    def result(self) -> RunRecords:
        for part in self._parts:
            part.result()
        return self.outcomes()

    def _outcomes_part(self, conn) -> RunRecords:
        scan = _scan_outcomes(conn, self.run_id, self.rescore)
        recs = _shell(self.tasks, scan, self.rescore)
        _fill_outcomes(recs, conn, self.run_id, recs.task_ids.tolist(), scan)
        return recs

    def _candidates_part(self, conn) -> None:
        scan = _scan_candidates(conn, self.run_id, self.rescore)
        recs = self.outcomes()
        _fill_candidates(recs, conn, self.run_id, recs.task_ids.tolist(), scan)
        unknown = sorted(set(scan) - set(recs.task_ids.tolist()))
        if unknown:  # candidates of tasks the run does not define and that never got an outcome
            recs.pending += _pending(conn, self.run_id, unknown)

    def _executions_part(self, conn) -> None:
        scan = _scan_executions(conn, self.run_id, self.rescore)
        recs = self.outcomes()
        _fill_executions(recs, recs.task_ids.tolist(), scan)


def _load_tasks(conn, run_id: str) -> dict:
    rows = conn.execute(
        "SELECT task_id, slice, set_id, tags_json, length(trim(ifnull(public_tests, ''))) > 0, cpu_limit_s "
        f"FROM tasks WHERE run_id = ?{_NOT_CANARY} ORDER BY position, task_id", [run_id]).fetchall()
    return {r[0]: r for r in rows}


def _shell(tasks: dict, outcomes: dict, rescore: Rescore) -> RunRecords:
    """Task metadata arrays: the run's tasks in order, then any task only the outcomes name."""
    ids = list(tasks) + sorted(set(outcomes) - set(tasks))
    meta = [tasks.get(t) or (t, "unknown", "", "[]", 0, None) for t in ids]
    tags_of = {text: tuple(json.loads(text or "[]")) for text in {m[3] for m in meta}}
    return RunRecords(
        task_ids=np.array(ids, dtype=object),
        slices=np.array([m[1] or "unknown" for m in meta], dtype=object),
        set_ids=np.array([m[2] or "" for m in meta], dtype=object),
        tags=[tags_of[m[3]] for m in meta],
        has_public=np.array([bool(m[4]) for m in meta], dtype=bool),
        cpu_limit=np.array([np.nan if m[5] is None else float(m[5]) for m in meta]),
        rescore=rescore)


def limit_sql(rescore: Rescore) -> tuple[str, str, list]:
    """(join clause, 'over the limit' SQL predicate on o.cpu_s, params) for a what-if CPU limit."""
    if rescore.cpu_limit_s is not None:
        return "", "(o.cpu_s > ?)", [float(rescore.cpu_limit_s)]
    if rescore.cpu_limit_factor is not None:
        return ("JOIN tasks t ON t.run_id = o.run_id AND t.task_id = o.task_id",
                "(t.cpu_limit_s IS NOT NULL AND o.cpu_s > ? * t.cpu_limit_s)", [float(rescore.cpu_limit_factor)])
    return "", "0", []


def _scan_outcomes(conn, run_id: str, rescore: Rescore) -> dict:
    """Per task: rows, protected passes, public rows and passes, the first public pass (index*2 + 1 - its
    protected verdict), and one list holding the failed rows' classes and, as '#index', the rows that
    are neither passed nor failed; under a what-if CPU limit, also the passes that exceed it.
    Columns are kept cheap: this scans every row."""
    join, over, lim = limit_sql(rescore)
    cap = " AND o.candidate_index < ?" if rescore.max_candidates is not None else ""
    not_over = f" AND NOT {over}" if rescore.limited else ""
    rescored = (f"SUM(o.protected_passed = 1 AND {over}), SUM(o.public_passed = 1 AND {over})"
                if rescore.limited else "0, 0")
    sql = f"""
        SELECT o.task_id, COUNT(*), SUM(o.protected_passed), {rescored},
               COUNT(o.public_passed), SUM(o.public_passed),
               MIN(CASE WHEN o.public_passed = 1{not_over} THEN o.candidate_index * 2 + 1 - o.protected_passed END),
               group_concat(CASE WHEN o.outcome IN ('passed', 'failed') THEN o.failure_class
                                 ELSE '#' || o.candidate_index END)
        FROM outcomes o {join}
        WHERE o.run_id = ?{cap}{_NOT_CANARY.replace("task_id", "o.task_id")}
        GROUP BY o.task_id"""
    params = (lim * 3 if rescore.limited else []) + [run_id] + ([rescore.max_candidates] if cap else [])
    return {r[0]: r[1:] for r in conn.execute(sql, params)}


def _scan_candidates(conn, run_id: str, rescore: Rescore) -> dict:
    cap = " AND candidate_index < ?" if rescore.max_candidates is not None else ""
    sql = f"""
        SELECT task_id, COUNT(*), SUM(prompt_tokens), SUM(completion_tokens),
               MAX(mean_logprob), candidate_index
        FROM candidates WHERE run_id = ?{cap}{_NOT_CANARY} GROUP BY task_id"""
    params = [run_id] + ([rescore.max_candidates] if cap else [])
    return {r[0]: r[1:] for r in conn.execute(sql, params)}


def _scan_executions(conn, run_id: str, rescore: Rescore) -> dict:
    """Per task: attempts, wall seconds, CPU microseconds of each attempt that recorded them,
    purpose:status:class of every attempt other than an ok grading run, and the sandbox CPU seconds
    of every step of every attempt (both suites, a compile step, a cross-check)."""
    cap = " AND candidate_index < ?" if rescore.max_candidates is not None else ""
    sql = f"""
        SELECT task_id, COUNT(*), SUM(wall_s), group_concat(CAST(cpu_s * {_US} AS INTEGER)), COUNT(cpu_s),
               group_concat(CASE WHEN status != 'ok' OR purpose != 'grade'
                                 THEN purpose || ':' || status || ':' || ifnull(failure_class, '') END),
               SUM(MAX(ifnull(cpu_total_s, 0), ifnull(cpu_s, 0)))
        FROM executions WHERE run_id = ?{cap}{_NOT_CANARY} GROUP BY task_id"""
    params = [run_id] + ([rescore.max_candidates] if cap else [])
    return {r[0]: r[1:] for r in conn.execute(sql, params)}


def _column(rows: list, i: int) -> np.ndarray:
    return np.array([(r[i] or 0) if r is not None else 0 for r in rows], dtype=np.int64)


def _fill_outcomes(recs: RunRecords, conn, run_id: str, ids: list, scan: dict) -> None:
    """Columns of a row: 0 rows, 1 protected passes, 2 passes over the limit, 3 public passes over the
    limit, 4 public rows, 5 public passes, 6 first public pass code, 7 failed rows' classes and
    '#index' of the rows that are neither passed nor failed (flaky, infra_error, excluded)."""
    rows = [scan.get(t) for t in ids]
    T = len(ids)
    rare_keys = [(t, int(i)) for t, r in zip(ids, rows) if r is not None and r[7] and "#" in r[7]
                 for i in _RARE.findall(r[7])]
    recs.rare = _outcome_rows(conn, run_id, rare_keys)
    pos = {t: i for i, t in enumerate(ids)}
    over = _over_limit(recs)
    names = ("flaky", "infra_error", "excluded", "nc_rows_pub", "nc_pass_pub", "nc_pass", "nc_pass_over",
             "nc_pass_pub_over")
    nc = {name: np.zeros(T, np.int64) for name in names}
    redo_first = []
    for row in recs.rare:
        i, outcome = pos[row["task_id"]], row["outcome"]
        if outcome in nc:
            nc[outcome][i] += 1
        counted = outcome in COUNTED_OUTCOMES
        if row["protected_passed"] == 1 and outcome != "passed":  # never written so; guarded anyway
            nc["nc_pass"][i] += 1
            nc["nc_pass_over"][i] += over(row, i)
        if not counted and row["public_passed"] is not None:
            nc["nc_rows_pub"][i] += 1
            if row["public_passed"] == 1:
                nc["nc_pass_pub"][i] += 1
                nc["nc_pass_pub_over"][i] += over(row, i)
                redo_first.append(row["task_id"])
    a = recs.arrays
    a.update({k: nc[k] for k in ("flaky", "infra_error", "excluded")})
    a["outcome_rows"] = _column(rows, 0)
    a["n"] = a["outcome_rows"] - nc["infra_error"] - nc["excluded"]
    a["rescored"] = _column(rows, 2) - nc["nc_pass_over"]
    a["c"] = _column(rows, 1) - nc["nc_pass"] - a["rescored"]
    a["n_public"] = _column(rows, 4) - nc["nc_rows_pub"]
    a["c_public"] = (_column(rows, 5) - nc["nc_pass_pub"]) - (_column(rows, 3) - nc["nc_pass_pub_over"])
    a["first_public"] = _first_public(recs, conn, run_id, ids, rows, redo_first)
    classes, timeouts = _decode_classes(rows, T)
    a["timeouts"] = timeouts + a["rescored"]
    classes["timeout"] = classes.get("timeout", 0) + int(a["rescored"].sum())
    recs.class_counts = {k: int(v) for k, v in sorted(classes.items()) if v}


def _first_public(recs: RunRecords, conn, run_id: str, ids: list, rows: list, redo: list) -> np.ndarray:
    """Per task: -1 when no counted candidate passes its public tests, else the protected verdict
    (1/0) of the lowest-index one that does."""
    codes = {t: (None if r is None else r[6]) for t, r in zip(ids, rows)}
    if redo:  # a non-counted row passed public tests: recompute those tasks over counted rows only
        join, over, lim = limit_sql(recs.rescore)
        not_over = f" AND NOT {over}" if recs.rescore.limited else ""
        cap = " AND o.candidate_index < ?" if recs.rescore.max_candidates is not None else ""
        for t in set(redo):
            codes[t] = None
        cur = conn.execute(
            f"SELECT o.task_id, MIN(o.candidate_index * 2 + 1 - o.protected_passed) FROM outcomes o {join} "
            f"WHERE o.run_id = ? AND o.public_passed = 1 AND o.outcome IN {_COUNTED_SQL}{not_over}{cap} "
            "AND o.task_id IN (SELECT value FROM json_each(?)) GROUP BY o.task_id",
            [run_id] + lim + ([recs.rescore.max_candidates] if cap else []) + [json.dumps(sorted(set(redo)))])
        codes.update({t: code for t, code in cur})
    return np.array([-1 if codes[t] is None else 1 - int(codes[t]) % 2 for t in ids], dtype=np.int64)


def _over_limit(recs: RunRecords):
    """Predicate: did this outcome row's deciding attempt use more CPU than the what-if limit?"""
    rescore = recs.rescore

    def over(row: dict, i: int) -> bool:
        cpu = row.get("cpu_s")
        if cpu is None or not rescore.limited:
            return False
        limit = rescore.cpu_limit_s if rescore.cpu_limit_s is not None else \
            rescore.cpu_limit_factor * recs.cpu_limit[i]
        return bool(cpu > limit)
    return over


def _decode_classes(rows: list, T: int) -> tuple[dict, np.ndarray]:
    """Failure-class totals and per-task timeouts of failed rows, from the comma-joined class names
    (the '#index' items name other rows and hold no class word)."""
    texts = [(r[7] or "") if r is not None else "" for r in rows]
    timeouts = np.array([t.count("timeout") for t in texts], dtype=np.int64)
    blob = ",".join(t for t in texts if t)
    totals = {name: blob.count(name) for name in FAILURE_CLASSES}
    listed = (blob.count(",") + 1 if blob else 0) - blob.count("#")
    if listed != sum(totals.values()):  # a class word this passgate does not know: count word by word
        totals = {}
        for word in blob.split(","):
            if not word.startswith("#"):
                totals[word] = totals.get(word, 0) + 1
    return totals, timeouts


def _outcome_rows(conn, run_id: str, keys: list[tuple[str, int]]) -> list[dict]:
    """Outcome rows by (task_id, candidate_index), looked up by primary key."""
    if not keys:
        return []
    cur = conn.execute(
        "SELECT o.task_id, o.candidate_index, o.outcome, o.failure_class, o.public_passed, o.protected_passed, "
        "o.reason, o.executed_as, o.cpu_s, o.attempts FROM json_each(?) j CROSS JOIN outcomes o "
        "ON o.run_id = ? AND o.task_id = json_extract(j.value, '$[0]') "
        "AND o.candidate_index = json_extract(j.value, '$[1]') ORDER BY o.task_id, o.candidate_index",
        [json.dumps(keys), run_id])
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r)) for r in cur]


def _fill_candidates(recs: RunRecords, conn, run_id: str, ids: list, scan: dict) -> None:
    rows = [scan.get(t) for t in ids]
    a = recs.arrays
    a["candidates"] = _column(rows, 0)
    a["prompt_tokens"] = _column(rows, 1)
    a["completion_tokens"] = _column(rows, 2)
    # MAX(mean_logprob) with a bare candidate_index: SQLite returns the row holding the maximum
    picks = [(t, int(r[4])) for t, r in zip(ids, rows) if r is not None and r[3] is not None]
    a["ranked"] = _ranked(recs, conn, run_id, ids, picks)
    missing = [t for t, cand, out in zip(ids, a["candidates"], a["outcome_rows"]) if cand > out]
    recs.pending = _pending(conn, run_id, missing)


def _ranked(recs: RunRecords, conn, run_id: str, ids: list, picks: list) -> np.ndarray:
    """Per task: -1 without log-probabilities, else 1/0 for the top-logprob counted candidate."""
    pos = {t: i for i, t in enumerate(ids)}
    out = np.full(len(ids), -1, dtype=np.int64)
    over = _over_limit(recs)
    cap = recs.rescore.max_candidates
    redo = []
    for row in _outcome_rows(conn, run_id, picks):
        i = pos[row["task_id"]]
        if row["outcome"] in COUNTED_OUTCOMES:
            out[i] = int(row["outcome"] == "passed" and not over(row, i))
        else:
            redo.append(row["task_id"])
    if redo:  # the top candidate was not counted: take the best counted one (rare)
        cur = conn.execute(
            "SELECT o.task_id, MAX(c.mean_logprob), o.outcome, o.cpu_s FROM outcomes o JOIN candidates c "
            "ON c.run_id = o.run_id AND c.task_id = o.task_id AND c.candidate_index = o.candidate_index "
            f"WHERE o.run_id = ? AND o.outcome IN {_COUNTED_SQL} AND c.mean_logprob IS NOT NULL "
            "AND o.task_id IN (SELECT value FROM json_each(?))"
            + (" AND o.candidate_index < ?" if cap is not None else "") + " GROUP BY o.task_id",
            [run_id, json.dumps(redo)] + ([cap] if cap is not None else []))
        for task_id, _lp, outcome, cpu in cur:
            i = pos[task_id]
            out[i] = int(outcome == "passed" and not over({"cpu_s": cpu}, i))
    return out


def _pending(conn, run_id: str, task_ids: list) -> list[dict]:
    """Candidates of these tasks that have no outcome row (never run, or the run stopped)."""
    if not task_ids:
        return []
    cur = conn.execute(
        "SELECT c.task_id, c.candidate_index, c.gen_status, c.excluded_reason, c.gen_error FROM candidates c "
        "LEFT JOIN outcomes o ON o.run_id = c.run_id AND o.task_id = c.task_id "
        "AND o.candidate_index = c.candidate_index WHERE c.run_id = ? AND o.outcome IS NULL "
        "AND c.task_id IN (SELECT value FROM json_each(?)) ORDER BY c.task_id, c.candidate_index",
        [run_id, json.dumps(task_ids)])
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r)) for r in cur]


def _fill_executions(recs: RunRecords, ids: list, scan: dict) -> None:
    """Attempts, CPU time per attempt (capped under a what-if limit) and the other-than-plain attempts."""
    rows = [scan.get(t) for t in ids]
    a = recs.arrays
    a["attempts"] = _column(rows, 0)
    a["wall_s"] = np.array([(r[1] or 0.0) if r else 0.0 for r in rows])
    a["cpu_total_s"] = np.array([(r[5] or 0.0) if r else 0.0 for r in rows])
    texts = [(r[2] or "") if r is not None else "" for r in rows]
    joined = ",".join(t for t in texts if t)
    times = np.fromstring(joined, sep=",", dtype=np.int64) if joined else np.zeros(0, np.int64)
    task_of = np.repeat(np.arange(len(ids)), _column(rows, 3))
    if times.size != task_of.size:
        raise ValueError("execution times and their tasks disagree")
    _set_times(recs, times, task_of, len(ids))
    other: dict[tuple, int] = {}
    for r in rows:
        for item in (r[4].split(",") if r is not None and r[4] else ()):
            key = tuple(item.split(":", 2))
            other[key] = other.get(key, 0) + 1
    recs.exec_other = [{"purpose": k[0], "status": k[1], "failure_class": k[2] or None, "count": v}
                       for k, v in sorted(other.items())]


def _set_times(recs: RunRecords, times: np.ndarray, task_of: np.ndarray, tasks: int) -> None:
    if recs.rescore.cpu_limit_s is not None:
        times = np.minimum(times, int(round(recs.rescore.cpu_limit_s * _US)))
    elif recs.rescore.cpu_limit_factor is not None:
        cap = np.nan_to_num(recs.rescore.cpu_limit_factor * recs.cpu_limit * _US, nan=np.inf)
        times = np.minimum(times, cap[task_of]).astype(np.int64)
    recs.exec_times_us = times
    recs.arrays["cpu_s"] = np.bincount(task_of, weights=times, minlength=tasks) / _US
