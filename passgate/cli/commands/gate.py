"""`passgate gate RUN`: the release verdict, with exit codes for CI.

Exit codes: 0 release, 3 canary only, 4 blocked, 2 usage or input error.
"""

from __future__ import annotations

import json
import sys


def register(sub) -> None:
    p = sub.add_parser("gate", help="release verdict for a run: exit 0 release, 3 canary only, 4 blocked, 2 usage",
                       description="Judge a run against a boundary policy: execution path, risk, evidence quality "
                                   "and release consequence. Exit 0 release, 3 canary only, 4 blocked, 2 usage error.")
    p.add_argument("run", metavar="RUN", help="run id (or unique prefix)")
    p.add_argument("--baseline", metavar="RUN0", help="raise alerts against this run on the same tasks")
    p.add_argument("--policy", metavar="NAME", help="policy name or YAML path (default: the one the manifest names)")
    p.add_argument("--corpus", metavar="PATH",
                   help="contamination corpus file or directory (default: the manifest's gate.contamination_corpus)")
    p.add_argument("--json", action="store_true", help="print the verdict as JSON")
    p.set_defaults(func=_run)


def _run(args) -> int:
    from passgate.core.gate import evaluate
    from passgate.core.gate.render import render
    from passgate.core.record.store import Store, default_db_path

    from ..text import terminal_width
    store = Store(args.db or default_db_path(), create=False)
    v = evaluate(store, args.run, policy=args.policy, baseline=args.baseline, corpus=args.corpus)
    if args.json:
        json.dump(v.as_dict(), sys.stdout, indent=2, default=str)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(render(v, terminal_width()))
    return v.exit_code
