"""What the console reads from the SQLite record, as plain data (no Textual here).

Every function takes an open `Store` and returns dicts and lists, so the screens' thread workers
call them and post the result, and tests call them directly. The reads are the record's own
(core/record/queries/console.py), grouped in SQL: a run of 16,400 candidates is a few indexed
scans, never a Python loop per row.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from passgate.core.errors import ConfigError
from passgate.core.manifest import ScoringContract, frozen_manifest
from passgate.core.record.queries import console
from passgate.core.record.store import Store
from passgate.core.score.report import scoring_contract
from passgate.core.score.scoring import Strata, aggregate, pass_at_k_array

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
    totals = console.candidate_counts(store)
    decided = console.outcome_counts(store)
    signoffs = console.signoff_counts(store)
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
    for r in console.counted_tallies(store):
        per_run.setdefault(r.run_id, []).append((r.counted, r.passed or 0, r.slice))
    out = {}
    for run_id, canonical_json in console.run_manifests(store):
        tasks = per_run.get(run_id)
        if not tasks:
            continue
        config = _scoring(canonical_json)
        if config is None:              # the report refuses this run's contract: no figure either
            continue
        n, c = np.array([t[0] for t in tasks]), np.array([t[1] for t in tasks])
        strata = Strata.from_slices([t[2] for t in tasks], config.weights)
        out[run_id] = aggregate(pass_at_k_array(n, c, 1), strata, config.aggregation)
    return out


def _scoring(canonical_json: str | None) -> ScoringContract | None:
    """The run's scoring contract as its report applies it (the defaults when the record holds no
    manifest); None for one the report refuses (unreadable, a k below 1), which the report names."""
    try:
        return scoring_contract(frozen_manifest(canonical_json))
    except ConfigError:
        return None


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
    slices = {name: SliceProgress(name, n) for name, n in console.candidates_per_slice(store, rid)}
    classes: dict[str, int] = {}
    for r in console.outcomes_per_slice(store, rid):
        sp = slices.setdefault(r.slice, SliceProgress(r.slice, 0))
        sp.decided += r.n
        if r.outcome == "passed":
            sp.passed += r.n
        elif r.outcome in ("failed", "flaky"):
            sp.failed += r.n
        else:
            sp.excluded += r.n
        if r.outcome != "passed":
            key = r.failure_class if r.outcome == "failed" and r.failure_class else r.outcome
            classes[key] = classes.get(key, 0) + r.n
    recent = console.recent_failures(store, rid, RECENT_FAILURES)
    res = console.execution_resources(store, rid)
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
    return console.awaiting_candidates(store, run_id)


# ------------------------------------------------------------------------------ failures and candidates
def outcome_rows(store: Store, run_id: str, *, include_passed: bool = False) -> list[dict]:
    """Every decided candidate that did not pass (or every one), with its slice, deciding detail and
    `tries`: every attempt recorded for it (grading, retries and reruns), as its detail pane counts them."""
    return console.decided_candidates(store, run_id, include_passed=include_passed)


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
    cand = console.candidate(store, run_id, task_id, candidate_index)
    task = console.task(store, run_id, task_id)
    outcome = console.outcome(store, run_id, task_id, candidate_index)
    executed_as = (outcome or {}).get("executed_as")
    index = executed_as if executed_as is not None else candidate_index
    attempts = console.attempts(store, run_id, task_id, index)
    protocol = store.run(run_id).get("grading_protocol")
    return {"candidate": cand, "task": task, "outcome": outcome, "attempts": attempts, "grading_protocol": protocol}
