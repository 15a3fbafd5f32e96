"""`passgate rerun RUN TASK [--candidate N]`: execute a task's candidates again, as new attempts.

Every rerun is appended as an execution with purpose `rerun`; recorded outcomes never change, so
the on-call can see whether a failure reproduces without rewriting history.
"""

from __future__ import annotations


def register(sub) -> None:
    p = sub.add_parser("rerun", help="run one task's candidates again (new attempts; outcomes unchanged)")
    p.add_argument("run", metavar="RUN")
    p.add_argument("task", metavar="TASK", help="task id, e.g. HumanEval/2")
    p.add_argument("--candidate", type=int, default=None, help="only this candidate index")
    p.set_defaults(func=_run)


def _run(args) -> int:
    from passgate.core.record.store import Store, default_db_path
    from passgate.core.run.rerun import rerun_task

    from ..text import wrap
    store = Store(args.db or default_db_path(), create=False)
    rows = rerun_task(store, args.run, args.task, candidate_index=args.candidate)
    for r in rows:
        verdict = "passed" if r["protected_status"] == "passed" else (r["failure_class"] or r["status"])
        print(wrap(f"{r['task_id']} #{r['candidate_index']} attempt {r['attempt']}: {verdict}"
                   f"{(' — ' + r['detail'].strip().splitlines()[0]) if (r.get('detail') or '').strip() else ''}", "", "    "))
    return 0
