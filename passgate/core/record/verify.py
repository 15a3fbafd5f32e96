"""Whether a run's record is what was written: its hash chains, its manifest, and (for a completed run)
that no rows were removed. `passgate verify` prints it; the console shows it and marks altered runs.

Every problem is a sentence in words (a table, a row, the task and candidate it belongs to), so
the command line and the console say the same thing.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from passgate.core.errors import StoreError

from .store import CHAINED_TABLES, Store, verify_chain

_KEY_WORDS = (("task_id", "task"), ("candidate_index", "candidate"), ("exec_id", "execution"), ("id", "id"),
              ("run_id", "run"))


@dataclass(frozen=True)
class Verification:
    """One run's check: `problems` empty means intact; `notes` say what was counted and what is not chained."""

    run_id: str
    problems: tuple[str, ...]
    notes: tuple[str, ...]

    @property
    def intact(self) -> bool:
        return not self.problems


def finding_words(finding: dict) -> str:
    """`outcomes row 6 (task P/5, candidate 0): row content does not match its hash`."""
    key = finding.get("key") or {}
    named = ", ".join(f"{word} {key[k]}" for k, word in _KEY_WORDS if key.get(k) is not None)
    where = f"{finding['table']} row {finding['rowid']}" if finding.get("rowid") is not None else finding["table"]
    return f"{where}{f' ({named})' if named else ''}: {finding['reason']}"


def verify_run(store: Store, run_id: str) -> Verification:
    """Recompute a run's chains and check its manifest and (when completed) its tails."""
    run = store.run(run_id)
    rid = run["run_id"]
    problems = [finding_words(f) for f in verify_chain(store, rid)]
    problems += _manifest_problems(store, run["manifest_id"])
    if run.get("status") == "completed":
        problems += _missing_rows(store, rid)
    return Verification(rid, tuple(problems), tuple(_notes(store, rid)))


def _notes(store: Store, rid: str) -> list[str]:
    counts = {t: store.count(t, rid) for t in CHAINED_TABLES}
    notes = [f"{t}: {n} rows" for t, n in counts.items() if n]
    empty = [t for t, n in counts.items() if not n]
    if empty:
        notes.append("no rows: " + ", ".join(empty))
    triggers = {r["name"] for r in store.query("SELECT name FROM sqlite_master WHERE type = 'trigger'")}
    for t in CHAINED_TABLES:
        for op in ("update", "delete"):
            if f"{t}_no_{op}" not in triggers:
                notes.append(f"warning: the append-only trigger {t}_no_{op} is missing from the record file")
    notes.append("the runs row's evidence (runtime, image, limits, probe, preflight, self-check, final status) is "
                 "checked against its sealed evidence rows; events are a log and are not chained")
    return notes


def _manifest_problems(store: Store, manifest_id: str) -> list[str]:
    try:
        row = store.manifest(manifest_id)
    except StoreError:
        return [f"manifests: the run's manifest {manifest_id} is missing from the record"]
    digest = "m-" + hashlib.sha256((row["canonical_json"] or "").encode()).hexdigest()[:16]
    if digest != manifest_id:
        return [f"manifests row {manifest_id}: canonical JSON hashes to {digest}, not its id"]
    return []


def _missing_rows(store: Store, rid: str) -> list[str]:
    out = []
    orphans = store.db.execute(
        "SELECT COUNT(*) FROM candidates c LEFT JOIN outcomes o ON o.run_id = c.run_id AND o.task_id = c.task_id "
        "AND o.candidate_index = c.candidate_index WHERE c.run_id = ? AND o.run_id IS NULL", [rid]).fetchone()[0]
    if orphans:
        out.append(f"outcomes: {orphans} candidates of this completed run have no outcome (rows removed?)")
    short = store.db.execute(
        "SELECT o.task_id, o.candidate_index, o.attempts, COUNT(e.exec_id) FROM outcomes o LEFT JOIN executions e "
        "ON e.run_id = o.run_id AND e.task_id = o.task_id AND e.candidate_index = o.candidate_index "
        "WHERE o.run_id = ? AND o.executed_as IS NULL AND o.attempts > 0 GROUP BY o.task_id, o.candidate_index "
        "HAVING COUNT(e.exec_id) < o.attempts LIMIT 1", [rid]).fetchone()
    if short:
        out.append(f"executions: task {short[0]} candidate {short[1]} has {short[3]} executions for its "
                   f"{short[2]} recorded attempts (rows removed?)")
    return out
