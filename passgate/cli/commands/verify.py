"""`passgate verify RUN`: recompute the record's hash chains and name the first altered row.

Checks, per run: every chained table (candidates, executions, outcomes, signoffs, evidence) row by
row, the runs row against its sealed evidence, the stored manifest against its id; and, for a
completed run, that no tail rows are missing (every candidate has an outcome, every executed
outcome has its attempts). Exit 0 intact, 1 altered, 2 usage error (e.g. no such run).
"""

from __future__ import annotations


def register(sub) -> None:
    p = sub.add_parser("verify", help="recompute a run's hash chains: exit 0 intact, 1 altered, 2 usage",
                       description="Recompute a run's hash-chained records and name the first altered row. "
                                   "Exit 0 intact, 1 altered, 2 usage error.")
    p.add_argument("run", metavar="RUN", help="run id (or unique prefix)")
    p.set_defaults(func=_run)


def _run(args) -> int:
    from passgate.core.record.store import Store, default_db_path
    from passgate.core.record.verify import verify_run

    from ..text import wrap
    store = Store(args.db or default_db_path(), create=False)
    check = verify_run(store, args.run)
    for n in check.notes:
        print(wrap(n, "  ", "    "))
    for p in check.problems:
        print(wrap(f"ALTERED {check.run_id}: {p}", "", "    "))
    if check.problems:
        return 1
    print(f"intact: {check.run_id}")
    return 0
