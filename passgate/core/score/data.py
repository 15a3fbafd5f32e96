"""Per-task arrays read from a run's record with SQL aggregation: the input of scores and reports.

The record's grouped scans (core/record/queries/scans.py), one per table, give a row per task; the
rare rows a report lists one by one (flaky, infra_error, excluded outcomes; retries) come back from
the same scans as short strings and are read by key. Nothing here loops in Python over candidate
or execution rows.

`Rescore` reads the same record under what-if conditions: a stricter CPU limit (a pass whose
deciding attempt used more CPU than the limit becomes a timeout failure), the first N
candidates of each task, or public tests as the verifier.
"""

from __future__ import annotations

import json
import re
from concurrent.futures import Executor
from dataclasses import dataclass, field

import numpy as np

from passgate.core.model import FAILURE_CLASSES
from passgate.core.record.queries import scans
from passgate.core.record.queries.scans import US as _US

from .scoring import COUNTED_OUTCOMES

_RARE = re.compile(r"#(-?\d+)")
_NO_TASK = ("unknown", "", "[]", 0, None)   # metadata of a task only the outcomes name


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

    @property
    def limits(self) -> scans.Limits:
        """The conditions as the record's scans take them."""
        return scans.Limits(self.cpu_limit_s, self.cpu_limit_factor, self.max_candidates)


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
    with scans.scan_threads(3) as pool:
        return RecordsJob(store, run_id, rescore, pool).result()


class RecordsJob:
    """The scans of one run, each on its own read-only connection in `pool` (or in turn without one).

    `outcomes()` returns as soon as the outcome arrays are filled (everything pass@k needs), so
    scores can be computed while the candidate and execution scans still run; `result()` waits
    for every part.
    """

    def __init__(self, store, run_id: str, rescore: Rescore, pool: Executor | None):
        self.run_id, self.rescore = run_id, rescore
        self.tasks = scans.scored_tasks(store, run_id)
        runner = scans.ScanPool(store, pool)
        self._first = runner.submit(self._outcomes_part)
        self._parts = [self._first, runner.submit(self._candidates_part), runner.submit(self._executions_part)]

    def outcomes(self) -> RunRecords:
        return self._first.result()

    def result(self) -> RunRecords:
        for part in self._parts:
            part.result()
        return self.outcomes()

    def _outcomes_part(self, store) -> RunRecords:
        scan = scans.outcome_groups(store, self.run_id, self.rescore.limits)
        recs = _shell(self.tasks, scan, self.rescore)
        _fill_outcomes(recs, store, self.run_id, recs.task_ids.tolist(), scan)
        return recs

    def _candidates_part(self, store) -> None:
        scan = scans.candidate_groups(store, self.run_id, self.rescore.max_candidates)
        recs = self.outcomes()
        _fill_candidates(recs, store, self.run_id, recs.task_ids.tolist(), scan)
        unknown = sorted(set(scan) - set(recs.task_ids.tolist()))
        if unknown:  # candidates of tasks the run does not define and that never got an outcome
            recs.pending += _pending(store, self.run_id, unknown)

    def _executions_part(self, store) -> None:
        scan = scans.execution_groups(store, self.run_id, self.rescore.max_candidates)
        recs = self.outcomes()
        _fill_executions(recs, recs.task_ids.tolist(), scan)


def _shell(tasks: dict[str, scans.TaskRow], outcomes: dict, rescore: Rescore) -> RunRecords:
    """Task metadata arrays: the run's tasks in order, then any task only the outcomes name."""
    ids = list(tasks) + sorted(set(outcomes) - set(tasks))
    meta = [tasks.get(t) or scans.TaskRow(t, *_NO_TASK) for t in ids]
    tags_of = {text: tuple(json.loads(text or "[]")) for text in {m.tags_json for m in meta}}
    return RunRecords(
        task_ids=np.array(ids, dtype=object),
        slices=np.array([m.slice or "unknown" for m in meta], dtype=object),
        set_ids=np.array([m.set_id or "" for m in meta], dtype=object),
        tags=[tags_of[m.tags_json] for m in meta],
        has_public=np.array([bool(m.has_public) for m in meta], dtype=bool),
        cpu_limit=np.array([np.nan if m.cpu_limit_s is None else float(m.cpu_limit_s) for m in meta]),
        rescore=rescore)


def _column(rows: list, name: str) -> np.ndarray:
    return np.array([(getattr(r, name) or 0) if r is not None else 0 for r in rows], dtype=np.int64)


def _fill_outcomes(recs: RunRecords, store, run_id: str, ids: list, scan: dict) -> None:
    """The outcome arrays from each task's `scans.OutcomeGroup`, corrected by the rows its `classes`
    name as '#index': those neither passed nor failed (flaky, infra_error, excluded)."""
    rows = [scan.get(t) for t in ids]
    T = len(ids)
    rare_keys = [(t, int(i)) for t, r in zip(ids, rows) if r is not None and r.classes and "#" in r.classes
                 for i in _RARE.findall(r.classes)]
    rare = scans.outcome_rows(store, run_id, rare_keys)
    recs.rare = [row._asdict() for row in rare]
    pos = {t: i for i, t in enumerate(ids)}
    over = _over_limit(recs)
    names = ("flaky", "infra_error", "excluded", "nc_rows_pub", "nc_pass_pub", "nc_pass", "nc_pass_over",
             "nc_pass_pub_over")
    nc = {name: np.zeros(T, np.int64) for name in names}
    redo_first = []
    for row in rare:
        i, outcome = pos[row.task_id], row.outcome
        if outcome in nc:
            nc[outcome][i] += 1
        counted = outcome in COUNTED_OUTCOMES
        if row.protected_passed == 1 and outcome != "passed":  # never written so; guarded anyway
            nc["nc_pass"][i] += 1
            nc["nc_pass_over"][i] += over(row.cpu_s, i)
        if not counted and row.public_passed is not None:
            nc["nc_rows_pub"][i] += 1
            if row.public_passed == 1:
                nc["nc_pass_pub"][i] += 1
                nc["nc_pass_pub_over"][i] += over(row.cpu_s, i)
                redo_first.append(row.task_id)
    a = recs.arrays
    a.update({k: nc[k] for k in ("flaky", "infra_error", "excluded")})
    a["outcome_rows"] = _column(rows, "rows")
    a["n"] = a["outcome_rows"] - nc["infra_error"] - nc["excluded"]
    a["rescored"] = _column(rows, "passes_over") - nc["nc_pass_over"]
    a["c"] = _column(rows, "protected_passes") - nc["nc_pass"] - a["rescored"]
    a["n_public"] = _column(rows, "public_rows") - nc["nc_rows_pub"]
    a["c_public"] = ((_column(rows, "public_passes") - nc["nc_pass_pub"])
                     - (_column(rows, "public_passes_over") - nc["nc_pass_pub_over"]))
    a["first_public"] = _first_public(recs, store, run_id, ids, rows, redo_first)
    classes, timeouts = _decode_classes(rows, T)
    a["timeouts"] = timeouts + a["rescored"]
    classes["timeout"] = classes.get("timeout", 0) + int(a["rescored"].sum())
    recs.class_counts = {k: int(v) for k, v in sorted(classes.items()) if v}


def _first_public(recs: RunRecords, store, run_id: str, ids: list, rows: list, redo: list) -> np.ndarray:
    """Per task: -1 when no counted candidate passes its public tests, else the protected verdict
    (1/0) of the lowest-index one that does."""
    codes = {t: (None if r is None else r.first_public_code) for t, r in zip(ids, rows)}
    if redo:  # a non-counted row passed public tests: recompute those tasks over counted rows only
        for t in set(redo):
            codes[t] = None
        codes.update(scans.first_public_codes(store, run_id, sorted(set(redo)), recs.rescore.limits))
    return np.array([-1 if codes[t] is None else 1 - int(codes[t]) % 2 for t in ids], dtype=np.int64)


def _over_limit(recs: RunRecords):
    """Predicate: did an outcome row's deciding attempt, with this CPU time, use more than the what-if limit?"""
    rescore = recs.rescore

    def over(cpu: float | None, i: int) -> bool:
        if cpu is None or not rescore.limited:
            return False
        limit = rescore.cpu_limit_s if rescore.cpu_limit_s is not None else \
            rescore.cpu_limit_factor * recs.cpu_limit[i]
        return bool(cpu > limit)
    return over


def _decode_classes(rows: list, T: int) -> tuple[dict, np.ndarray]:
    """Failure-class totals and per-task timeouts of failed rows, from the comma-joined class names
    (the '#index' items name other rows and hold no class word)."""
    texts = [(r.classes or "") if r is not None else "" for r in rows]
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


def _fill_candidates(recs: RunRecords, store, run_id: str, ids: list, scan: dict) -> None:
    rows = [scan.get(t) for t in ids]
    a = recs.arrays
    a["candidates"] = _column(rows, "candidates")
    a["prompt_tokens"] = _column(rows, "prompt_tokens")
    a["completion_tokens"] = _column(rows, "completion_tokens")
    picks = [(t, int(r.best_index)) for t, r in zip(ids, rows) if r is not None and r.best_logprob is not None]
    a["ranked"] = _ranked(recs, store, run_id, ids, picks)
    missing = [t for t, cand, out in zip(ids, a["candidates"], a["outcome_rows"]) if cand > out]
    recs.pending = _pending(store, run_id, missing)


def _ranked(recs: RunRecords, store, run_id: str, ids: list, picks: list) -> np.ndarray:
    """Per task: -1 without log-probabilities, else 1/0 for the top-logprob counted candidate."""
    pos = {t: i for i, t in enumerate(ids)}
    out = np.full(len(ids), -1, dtype=np.int64)
    over = _over_limit(recs)
    redo = []
    for row in scans.outcome_rows(store, run_id, picks):
        i = pos[row.task_id]
        if row.outcome in COUNTED_OUTCOMES:
            out[i] = int(row.outcome == "passed" and not over(row.cpu_s, i))
        else:
            redo.append(row.task_id)
    if redo:  # the top candidate was not counted: take the best counted one (rare)
        for row in scans.best_counted_by_logprob(store, run_id, redo, recs.rescore.max_candidates):
            i = pos[row.task_id]
            out[i] = int(row.outcome == "passed" and not over(row.cpu_s, i))
    return out


def _pending(store, run_id: str, task_ids: list) -> list[dict]:
    """Candidates of these tasks that have no outcome row (never run, or the run stopped)."""
    return [row._asdict() for row in scans.pending_candidates(store, run_id, task_ids)]


def _fill_executions(recs: RunRecords, ids: list, scan: dict) -> None:
    """Attempts, CPU time per attempt (capped under a what-if limit) and the other-than-plain attempts."""
    rows = [scan.get(t) for t in ids]
    a = recs.arrays
    a["attempts"] = _column(rows, "attempts")
    a["wall_s"] = np.array([(r.wall_s or 0.0) if r else 0.0 for r in rows])
    a["cpu_total_s"] = np.array([(r.cpu_total_s or 0.0) if r else 0.0 for r in rows])
    texts = [(r.cpu_us or "") if r is not None else "" for r in rows]
    joined = ",".join(t for t in texts if t)
    times = np.fromstring(joined, sep=",", dtype=np.int64) if joined else np.zeros(0, np.int64)
    task_of = np.repeat(np.arange(len(ids)), _column(rows, "timed"))
    if times.size != task_of.size:
        raise ValueError("execution times and their tasks disagree")
    _set_times(recs, times, task_of, len(ids))
    other: dict[tuple, int] = {}
    for r in rows:
        for item in (r.other.split(",") if r is not None and r.other else ()):
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
