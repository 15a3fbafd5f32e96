"""`passgate acceptance RUN LOG`: join a product's suggestion log (shown, accepted, edited after) to a run.

Reports then show acceptance beside pass@1. Exit 0 recorded, 2 a bad log (file, line and field named).
"""

from __future__ import annotations


def register(sub) -> None:
    p = sub.add_parser("acceptance", help="join a suggestion log (shown, accepted, edited after) to a run's candidates",
                       description="Append a product's suggestion log to a run: one JSON object per line with "
                                   "task_id and candidate_index (or candidate_id TASK#INDEX), shown, accepted and "
                                   "optionally edited_after. Reports show acceptance beside pass@1.")
    p.add_argument("run", metavar="RUN", help="run id (or unique prefix)")
    p.add_argument("log", metavar="LOG", help="the suggestion log (JSON lines)")
    p.set_defaults(func=_run)


def _run(args) -> int:
    from passgate.core.candidates.acceptance import import_log
    from passgate.core.record.store import Store, default_db_path
    store = Store(args.db or default_db_path(), create=False)
    done = import_log(store, args.run, args.log)
    print(f"{done['rows']} candidates of {done['run_id']} logged ({done['shown']} shown, {done['accepted']} accepted; "
          f"log sha256 {done['sha256'][:12]})")
    return 0
