"""`passgate run MANIFEST` / `passgate run --resume RUN`: execute and record a run, headless."""

from __future__ import annotations

import functools
import sys
import time

from passgate.core.errors import BoundaryOpen


def register(sub) -> None:
    p = sub.add_parser("run", help="freeze, execute, record and score a manifest")
    p.add_argument("manifest", nargs="?", help="run manifest (YAML)")
    p.add_argument("--resume", metavar="RUN", help="continue an interrupted run from the record")
    p.add_argument("--operator", help="who launches the run (default: the manifest's operator or $USER)")
    p.add_argument("--quiet", action="store_true", help="print only the run id")
    p.add_argument("--ray", metavar="ADDRESS", help="run the sandboxes on the nodes of this Ray cluster (e.g. auto, "
                   "HOST:6379); overrides execution.ray_address, not part of the frozen manifest")
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
    from passgate.core.record.store import Store, default_db_path
    from passgate.core.run.engine import make_runner, resume_run, start_run
    store = Store(args.db or default_db_path())
    printer = _Printer(args.quiet)
    runner_factory = functools.partial(make_runner, ray_address=args.ray)
    try:
        if args.resume:
            run_id = resume_run(store, args.resume, progress=printer, runner_factory=runner_factory)
        elif args.manifest:
            run_id = start_run(store, args.manifest, progress=printer, operator=args.operator,
                               runner_factory=runner_factory)
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
