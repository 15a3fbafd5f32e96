"""What the console reads from the SQLite record, as plain data (no Textual here).

Every function takes an open `Store` and returns dicts and lists, so the screens' thread workers
call them and post the result, and tests call them directly. Queries stay grouped in SQL: a run
of 16,400 candidates is a few indexed scans, never a Python loop per row.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np

from passgate.core.errors import ConfigError
from passgate.core.record.store import Store
from passgate.core.score.report import ScoringConfig
from passgate.core.score.scoring import Strata, aggregate, pass_at_k_array

COUNTED = ("passed", "failed", "flaky")        # outcomes that count toward pass@k
RECENT_FAILURES = 12
ACTIVE_STATUSES = ("created", "running")
RESUMABLE_STATUSES = ("created", "running", "interrupted", "cancelled", "failed")


@dataclass(frozen=True)
class RunRow:
    """One line of the runs list."""

    run_id: str
    status: str
    name: str
    model: str
    manifest_id: str
    created_at: str
    operator: str
    decided: int
    total: int
    pass_at_1: float | None        # micro mean over tasks of passed/counted; None before any outcome
    verdict: str = ""
    signoffs: int = 0              # sign-off rows recorded for the run (a new one may change its verdict)

    def matches(self, text: str) -> bool:
        text = text.lower()
        return any(text in (v or "").lower() for v in (self.run_id, self.name, self.model, self.manifest_id,
                                                        self.status, self.operator, self.verdict))


def run_rows(store: Store) -> list[RunRow]:
    """Every run, newest first, with its progress and pass@1."""
    totals = {r["run_id"]: r["n"] for r in store.query(
        "SELECT run_id, COUNT(*) AS n FROM candidates GROUP BY run_id")}
    decided = {r["run_id"]: r["n"] for r in store.query(
        "SELECT run_id, COUNT(*) AS n FROM outcomes GROUP BY run_id")}
    signoffs = {r["run_id"]: r["n"] for r in store.query(
        "SELECT run_id, COUNT(*) AS n FROM signoffs GROUP BY run_id")}
    scores = pass_at_1_by_run(store)
    return [RunRow(run_id=run["run_id"], status=run["status"] or "", name=run["name"] or "",
                   model=run["model"] or "", manifest_id=run["manifest_id"] or "",
                   created_at=run["created_at"] or "", operator=run["operator"] or "",
                   decided=decided.get(run["run_id"], 0), total=totals.get(run["run_id"], 0),
                   pass_at_1=scores.get(run["run_id"]), signoffs=signoffs.get(run["run_id"], 0))
            for run in store.runs()]


def pass_at_1_by_run(store: Store) -> dict[str, float]:
    """pass@1 of every run as its report's headline computes it (the manifest's aggregation and weights)."""
    per_run: dict[str, list] = {}
    for r in store.query(
            f"SELECT o.run_id, o.task_id, COALESCE(t.slice, '') AS slice, SUM(o.protected_passed) AS c, "
            f"COUNT(*) AS n FROM outcomes o LEFT JOIN tasks t ON t.run_id = o.run_id AND t.task_id = o.task_id "
            f"WHERE o.outcome IN {COUNTED} GROUP BY o.run_id, o.task_id"):
        per_run.setdefault(r["run_id"], []).append((r["n"], r["c"] or 0, r["slice"]))
    out = {}
    for row in store.query("SELECT r.run_id, m.canonical_json FROM runs r LEFT JOIN manifests m "
                           "ON m.manifest_id = r.manifest_id"):
        tasks = per_run.get(row["run_id"])
        if not tasks:
            continue
        config = _scoring(row["canonical_json"])
        n, c = np.array([t[0] for t in tasks]), np.array([t[1] for t in tasks])
        strata = Strata.from_slices([t[2] for t in tasks], config.weights)
        out[row["run_id"]] = aggregate(pass_at_k_array(n, c, 1), strata, config.aggregation)
    return out


def _scoring(canonical_json: str | None):
    try:
        return ScoringConfig.from_manifest(json.loads(canonical_json or "{}"))
    except (ValueError, ConfigError):       # an unusable manifest: the report says why; the list shows micro
        return ScoringConfig()


# ------------------------------------------------------------------------------ live view
@dataclass
class SliceProgress:
    slice: str
    total: int
    decided: int = 0
    passed: int = 0
    failed: int = 0
    excluded: int = 0              # infra_error + excluded: not counted against the model
    awaiting: int = 0              # failed a first attempt, no outcome yet: being re-run (or timeouts re-checked)


@dataclass
class LiveSnapshot:
    """A run's state as recorded so far: what the live screen draws between engine messages."""

    run_id: str
    status: str
    name: str
    decided: int
    total: int
    slices: list[SliceProgress]
    classes: dict[str, int]                      # failure class (or outcome) -> candidates
    recent: list[dict]                           # newest first: task, index, outcome, class, detail
    resources: dict = field(default_factory=dict)
    awaiting: int = 0                            # candidates with a failed attempt and no outcome yet
    selfcheck_done: int = 0                      # reference solutions run by the self-check so far
    error: str = ""
    started_at: str = ""
    finished_at: str = ""


def live_snapshot(store: Store, run_id: str) -> LiveSnapshot:
    run = store.run(run_id)
    rid = run["run_id"]
    slices = {r["slice"]: SliceProgress(r["slice"], r["n"]) for r in store.query(
        "SELECT t.slice AS slice, COUNT(*) AS n FROM candidates c JOIN tasks t "
        "ON t.run_id = c.run_id AND t.task_id = c.task_id WHERE c.run_id = ? GROUP BY t.slice ORDER BY t.slice",
        [rid])}
    classes: dict[str, int] = {}
    for r in store.query(
            "SELECT t.slice AS slice, o.outcome AS outcome, o.failure_class AS cls, COUNT(*) AS n FROM outcomes o "
            "JOIN tasks t ON t.run_id = o.run_id AND t.task_id = o.task_id WHERE o.run_id = ? "
            "GROUP BY t.slice, o.outcome, o.failure_class", [rid]):
        sp = slices.setdefault(r["slice"], SliceProgress(r["slice"], 0))
        sp.decided += r["n"]
        if r["outcome"] == "passed":
            sp.passed += r["n"]
        elif r["outcome"] in ("failed", "flaky"):
            sp.failed += r["n"]
        else:
            sp.excluded += r["n"]
        if r["outcome"] != "passed":
            key = r["cls"] if r["outcome"] == "failed" and r["cls"] else r["outcome"]
            classes[key] = classes.get(key, 0) + r["n"]
    recent = [dict(r) for r in store.query(
        "SELECT o.task_id, o.candidate_index, o.outcome, o.failure_class, o.reason, "
        "(SELECT e.detail FROM executions e WHERE e.run_id = o.run_id AND e.task_id = o.task_id "
        " AND e.candidate_index = COALESCE(o.executed_as, o.candidate_index) AND e.purpose != 'rerun' "
        "ORDER BY e.exec_id DESC LIMIT 1) AS detail "
        "FROM outcomes o WHERE o.run_id = ? AND o.outcome != 'passed' ORDER BY o.rowid DESC LIMIT ?",
        [rid, RECENT_FAILURES])]
    res = next(store.query(
        "SELECT COUNT(*) AS executions, AVG(cpu_s) AS mean_cpu_s, MAX(cpu_s) AS max_cpu_s, "
        "AVG(wall_s) AS mean_wall_s, MAX(peak_rss_kb) AS max_rss_kb, SUM(out_bytes) AS out_bytes, "
        "SUM(status = 'infra_error') AS infra_attempts, COUNT(DISTINCT NULLIF(container_id, '')) AS containers, "
        "SUM(candidate_index < 0) AS selfcheck FROM executions WHERE run_id = ?", [rid]))
    waiting = awaiting_rows(store, rid)
    for w in waiting:
        if w["slice"] in slices:
            slices[w["slice"]].awaiting += 1
    recent = sorted(waiting, key=lambda r: -r["exec_id"])[:RECENT_FAILURES] + recent
    total = sum(s.total for s in slices.values())
    return LiveSnapshot(run_id=rid, status=run["status"] or "", name=run["name"] or "",
                        decided=sum(s.decided for s in slices.values()), total=total,
                        slices=list(slices.values()), classes=dict(sorted(classes.items(), key=lambda kv: (-kv[1], kv[0]))),
                        recent=recent[:RECENT_FAILURES], resources=dict(res), error=run["error"] or "",
                        started_at=run["started_at"] or "", finished_at=run["finished_at"] or "",
                        awaiting=len(waiting), selfcheck_done=int(res["selfcheck"] or 0))


def awaiting_rows(store: Store, run_id: str) -> list[dict]:
    """Candidates whose latest attempt failed and that have no outcome yet: the engine runs them again
    (reruns of failures, timeouts re-checked alone) before it decides. They are failures a reader must
    see while the run is live, marked as not yet decided."""
    return [dict(r) for r in store.query(
        "SELECT e.task_id, e.candidate_index, t.slice, 'awaiting' AS outcome, e.failure_class, e.detail, "
        "'' AS reason, e.exec_id FROM (SELECT x.task_id, x.candidate_index, MAX(x.exec_id) AS last "
        "FROM executions x LEFT JOIN outcomes o ON o.run_id = x.run_id AND o.task_id = x.task_id "
        "AND o.candidate_index = x.candidate_index WHERE x.run_id = ? AND x.candidate_index >= 0 "
        "AND o.run_id IS NULL GROUP BY x.task_id, x.candidate_index) l "
        "JOIN executions e ON e.exec_id = l.last JOIN tasks t ON t.run_id = e.run_id AND t.task_id = e.task_id "
        "WHERE e.status != 'ok' OR e.protected_status != 'passed'", [run_id])]


# ------------------------------------------------------------------------------ failures and candidates
def outcome_rows(store: Store, run_id: str, *, include_passed: bool = False) -> list[dict]:
    """Every decided candidate that did not pass (or every one), with its slice, deciding detail and
    `tries`: every attempt recorded for it (grading, retries and reruns), as its detail pane counts them."""
    where = "" if include_passed else " AND o.outcome != 'passed'"
    same = ("e.run_id = o.run_id AND e.task_id = o.task_id "
            "AND e.candidate_index = COALESCE(o.executed_as, o.candidate_index)")
    return [dict(r) for r in store.query(
        "SELECT o.task_id, o.candidate_index, t.slice, o.outcome, o.failure_class, o.attempts, o.cpu_s, "
        f"o.wall_s, o.reason, (SELECT COUNT(*) FROM executions e WHERE {same}) AS tries, "
        f"(SELECT e.detail FROM executions e WHERE {same} AND e.purpose != 'rerun' "
        "ORDER BY e.exec_id DESC LIMIT 1) AS detail "
        "FROM outcomes o JOIN tasks t ON t.run_id = o.run_id AND t.task_id = o.task_id "
        f"WHERE o.run_id = ?{where} ORDER BY t.position, o.candidate_index", [run_id])]


def class_of(row: dict) -> str:
    """The one word the failures list files a candidate under: its failure class, or the outcome
    when that says more (flaky, infra_error, excluded)."""
    if row["outcome"] in ("flaky", "infra_error", "excluded", "passed"):
        return row["outcome"]
    return row["failure_class"] or row["outcome"]


def class_counts(rows: list[dict]) -> dict[str, int]:
    """Candidates per class, largest first (ties by name): the order of the 1-9 keys."""
    counts: dict[str, int] = {}
    for r in rows:
        if r["outcome"] != "passed":
            counts[class_of(r)] = counts.get(class_of(r), 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def candidate_detail(store: Store, run_id: str, task_id: str, candidate_index: int) -> dict:
    """One candidate with its task, outcome, every attempt (grading, retries, reruns) and the run's
    grading protocol (which says whether attempts record how their assertions were decided)."""
    cand = next(store.query("SELECT * FROM candidates WHERE run_id = ? AND task_id = ? AND candidate_index = ?",
                            [run_id, task_id, candidate_index]), None)
    task = next(store.query("SELECT * FROM tasks WHERE run_id = ? AND task_id = ?", [run_id, task_id]), None)
    outcome = next(store.query("SELECT * FROM outcomes WHERE run_id = ? AND task_id = ? AND candidate_index = ?",
                               [run_id, task_id, candidate_index]), None)
    executed_as = (outcome or {}).get("executed_as")
    index = executed_as if executed_as is not None else candidate_index
    attempts = list(store.query(
        "SELECT * FROM executions WHERE run_id = ? AND task_id = ? AND candidate_index = ? ORDER BY exec_id",
        [run_id, task_id, index]))
    protocol = store.run(run_id).get("grading_protocol")
    return {"candidate": cand, "task": task, "outcome": outcome, "attempts": attempts, "grading_protocol": protocol}
