"""`passgate compare BASELINE CANDIDATE`: paired pass@k difference on the same tasks, with its
interval, per slice, and the tasks that changed from pass to fail and back."""

from __future__ import annotations

import json
import sys

from .report import STDOUT, _write, add_scoring_options, scoring_overrides


def register(sub) -> None:
    p = sub.add_parser("compare", help="paired comparison of two runs on the same tasks (candidate - baseline)",
                       description=__doc__)
    p.add_argument("baseline", metavar="BASELINE", help="the baseline run id")
    p.add_argument("candidate", metavar="CANDIDATE", help="the candidate run id")
    p.add_argument("--json", nargs="?", const=STDOUT, metavar="FILE",
                   help="write the comparison as JSON (schema passgate.comparison/1); no FILE or - for stdout")
    add_scoring_options(p)
    p.set_defaults(func=_compare)


def _compare(args) -> int:
    from passgate.core.record.store import Store, default_db_path
    from passgate.core.score.compare import build_comparison
    from passgate.core.score.report import load_manifest, scoring_contract
    store = Store(args.db or default_db_path(), create=False)
    cand = store.run(args.candidate)
    manifest_interval = scoring_contract(load_manifest(store, cand)).interval
    ks, interval = scoring_overrides(args, manifest_interval)
    comp = build_comparison(store, args.baseline, args.candidate, k=ks, interval=interval)
    if args.json:
        text = _write(args.json, json.dumps(comp, indent=2, allow_nan=False, default=str) + "\n")
        if text is not None:
            sys.stdout.write(text)
            return 0
    from passgate.tui.report_render import print_comparison  # rich lives outside core

    from ..text import rich_console
    print_comparison(comp, rich_console())
    return 0
