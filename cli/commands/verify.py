"""`passgate verify RUN`: recompute the record's hash chains and name the first altered row.

Checks, per run: every chained table (candidates, executions, outcomes, signoffs, evidence) row by row,
the runs row against its sealed evidence, the
stored manifest against its id; and, for a completed run, that no tail rows are missing (every
candidate has an outcome, every executed outcome has its attempts). Exit 0 intact, 1 altered,
2 usage error (e.g. no such run).
"""

from __future__ import annotations

import hashlib


def register(sub) -> None:
    p = sub.add_parser("verify", help="recompute a run's hash chains: exit 0 intact, 1 altered, 2 usage",
                       description="Recompute a run's hash-chained records and name the first altered row. "
                                   "Exit 0 intact, 1 altered, 2 usage error.")
    p.add_argument("run", metavar="RUN", help="run id (or unique prefix)")
    p.set_defaults(func=_run)


def verify_run(store, run_id: str) -> tuple[list[str], list[str]]:
    """(problems, notes) for one run; no problems means intact."""
    from passgate.core.record.store import CHAINED_TABLES, verify_chain
    run = store.run(run_id)
    rid = run["run_id"]
    problems = [f"{f['table']} row {f['rowid']} {_key(f['key'])}: {f['reason']}" for f in verify_chain(store, rid)]
    problems += _manifest_problems(store, run["manifest_id"])
    if run.get("status") == "completed":
        problems += _missing_rows(store, rid)
    notes = [f"{t}: {store.count(t, rid)} rows" for t in CHAINED_TABLES]
    triggers = {r["name"] for r in store.query("SELECT name FROM sqlite_master WHERE type = 'trigger'")}
    for t in CHAINED_TABLES:
        for op in ("update", "delete"):
            if f"{t}_no_{op}" not in triggers:
                notes.append(f"warning: the append-only trigger {t}_no_{op} is missing from the record file")
    notes.append("the runs row's evidence (runtime, image, limits, probe, preflight, self-check, final status) is "
                 "checked against its sealed evidence rows; events are a log and are not chained")
    return problems, notes


def _key(key: dict) -> str:
    return "(" + ", ".join(f"{k} {v}" for k, v in key.items()) + ")" if key else ""


def _manifest_problems(store, manifest_id: str) -> list[str]:
    from passgate.core.errors import StoreError
    try:
        row = store.manifest(manifest_id)
    except StoreError:
        return [f"manifests: the run's manifest {manifest_id} is missing from the record"]
    digest = "m-" + hashlib.sha256((row["canonical_json"] or "").encode()).hexdigest()[:16]
    if digest != manifest_id:
        return [f"manifests row {manifest_id}: canonical JSON hashes to {digest}, not its id"]
    return []


def _missing_rows(store, rid: str) -> list[str]:
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


def _run(args) -> int:
    from passgate.core.record.store import Store, default_db_path
    store = Store(args.db or default_db_path(), create=False)
    problems, notes = verify_run(store, args.run)
    rid = store.run(args.run)["run_id"]
    for n in notes:
        print(f"  {n}")
    if problems:
        for p in problems:
            print(f"ALTERED {rid}: {p}")
        return 1
    print(f"intact: {rid}")
    return 0
