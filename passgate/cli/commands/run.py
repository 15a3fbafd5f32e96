"""`passgate run MANIFEST` / `passgate run --resume RUN`: execute and record a run, headless."""

from __future__ import annotations

import contextlib
import functools
import sys
import time
from pathlib import Path

from passgate.core.errors import BoundaryOpen

from ..text import terminal_width, wrap


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
    """Plain progress lines: a status line every few seconds and each phase change.

    While timeouts are re-checked alone the line says how many are left and gives no ETA (the rate
    of the whole run says nothing about a few long re-runs)."""

    def __init__(self, quiet: bool):
        self.quiet, self.phase, self.last = quiet, None, 0.0

    def __call__(self, p) -> None:
        if self.quiet:
            return
        now = time.monotonic()
        if p.phase != self.phase or now - self.last > 3 or p.phase == "finished":
            self.phase, self.last = p.phase, now
            print(wrap(progress_line(p), "", "    ", width=terminal_width()), file=sys.stderr, flush=True)


def progress_line(p) -> str:
    """The phase, decided/total, rate and ETA, and the decided outcomes; candidates that failed an attempt
    and wait for their reruns are counted apart (they are neither passed nor failed yet)."""
    counts = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in sorted(p.counts.items()))
    awaiting = getattr(p, "awaiting", 0)
    if awaiting and p.phase != "recheck":
        counts += f"{'; ' if counts else ''}{awaiting} failed an attempt, waiting for a rerun"
    total = f" {p.done}/{p.total}" if p.total else ""
    if p.phase == "recheck":
        left = p.total - p.done
        return (f"[recheck]{total} re-checking {left} timeout{'s' if left != 1 else ''} alone (no ETA) "
                f"{counts}").rstrip()
    eta = f" eta {p.eta_s:.0f}s" if p.eta_s else ""
    rate = f" {p.rate:.1f}/s" if p.rate else ""
    return f"[{p.phase}]{total}{rate}{eta} {p.message} {counts}".rstrip()


def _run(args) -> int:
    from passgate.core.record.store import default_db_path
    db = Path(args.db or default_db_path())
    if not args.manifest and not args.resume:
        print("passgate run: give a MANIFEST or --resume RUN", file=sys.stderr)
        return 2
    with _record_file(db) as store:
        return _execute(args, store)


@contextlib.contextmanager
def _record_file(db: Path):
    """The record to run in; a file this command created is removed again when no run was recorded in it
    (`passgate run nope.yaml` must not leave an empty passgate.db behind)."""
    from passgate.core.record.store import Store
    created = not db.exists()
    store = Store(db)
    try:
        yield store
    finally:
        empty = created and not store.runs()
        store.close()
        if empty:
            for path in (db, Path(f"{db}-wal"), Path(f"{db}-shm"), Path(f"{db}-journal")):
                path.unlink(missing_ok=True)


def _execute(args, store) -> int:
    from passgate.core.run.engine import make_runner, resume_run, start_run
    printer = _Printer(args.quiet)
    runner_factory = functools.partial(make_runner, ray_address=args.ray)
    try:
        if args.resume:
            run_id = resume_run(store, args.resume, progress=printer, runner_factory=runner_factory)
        else:
            run_id = start_run(store, args.manifest, progress=printer, operator=args.operator,
                               runner_factory=runner_factory)
    except BoundaryOpen as exc:
        print(wrap(f"passgate: run refused: {exc.message}", width=terminal_width()), file=sys.stderr)
        return 1
    run = store.run(run_id)
    print(run_id)
    if not args.quiet:
        print(f"status {run['status']}; see `passgate report {run_id}`", file=sys.stderr)
    return 0 if run["status"] == "completed" else 1
