"""`passgate run MANIFEST` / `passgate run --resume RUN`: execute and record a run, headless."""

from __future__ import annotations

import sys
import time

from ..errors import BoundaryOpen


def register(sub) -> None:
    p = sub.add_parser("run", help="freeze, execute, record and score a manifest")
    p.add_argument("manifest", nargs="?", help="run manifest (YAML)")
    p.add_argument("--resume", metavar="RUN", help="continue an interrupted run from the record")
    p.add_argument("--operator", help="who launches the run (default: the manifest's operator or $USER)")
    p.add_argument("--quiet", action="store_true", help="print only the run id")
    p.set_defaults(func=_run)


class _Printer:
    """Plain progress lines: a status line every few seconds and each phase change."""

    def __init__(self, quiet: bool):
        self.quiet, self.phase, self.last = quiet, None, 0.0

    def __call__(self, p) -> None:
        if self.quiet:
            return
        now = time.monotonic()
        if p.phase != self.phase or now - self.last > 3 or p.phase == "finished":
            self.phase, self.last = p.phase, now
            counts = " ".join(f"{k}={v}" for k, v in sorted(p.counts.items()))
            eta = f" eta {p.eta_s:.0f}s" if p.eta_s else ""
            total = f" {p.done}/{p.total}" if p.total else ""
            rate = f" {p.rate:.1f}/s" if p.rate else ""
            print(f"[{p.phase}]{total}{rate}{eta} {p.message} {counts}".rstrip(), file=sys.stderr, flush=True)


def _run(args) -> int:
    from ..engine import resume_run, start_run
    from ..store import Store, default_db_path
    store = Store(args.db or default_db_path())
    printer = _Printer(args.quiet)
    try:
        if args.resume:
            run_id = resume_run(store, args.resume, progress=printer)
        elif args.manifest:
            run_id = start_run(store, args.manifest, progress=printer, operator=args.operator)
        else:
            print("passgate run: give a MANIFEST or --resume RUN", file=sys.stderr)
            return 2
    except BoundaryOpen as exc:
        print(f"passgate: run refused: {exc.message}", file=sys.stderr)
        return 1
    run = store.run(run_id)
    print(run_id)
    if not args.quiet:
        print(f"status {run['status']}; see `passgate report {run_id}`", file=sys.stderr)
    return 0 if run["status"] == "completed" else 1
