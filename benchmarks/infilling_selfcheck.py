"""The local-edit self-check: every canonical middle of the four HumanEval infilling benchmarks,
placed between the code before and after its gap and graded in the sandbox, one run per benchmark.
Prints each benchmark's passes, every failure with its class and detail, and its wall time.

    .venv/bin/python benchmarks/infilling_selfcheck.py [--db FILE] [--only single-line,...]

The runs stay in the record (`--db`, default ./infilling-selfcheck.db): `passgate report RUN` shows
each in full.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BENCHMARKS = ("single-line", "multi-line", "random-span", "random-span-light")


def main() -> int:
    from passgate.core.record.queries import bench
    from passgate.core.record.store import Store
    from passgate.core.run.engine import start_run

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", type=Path, default=Path("infilling-selfcheck.db"))
    ap.add_argument("--only", help="comma-separated benchmarks (default: all four)")
    args = ap.parse_args()
    chosen = args.only.split(",") if args.only else list(BENCHMARKS)
    store = Store(args.db)
    rows = []
    for name in chosen:
        manifest = REPO / "examples" / f"infilling-{name}-canonical.yaml"
        started = time.perf_counter()
        run_id = start_run(store, manifest)
        wall = time.perf_counter() - started
        counts = bench.outcome_counts(store, run_id)
        failed = bench.unpassed_outcomes(store, run_id)
        total = sum(counts.values())
        rows.append((name, run_id, total, counts.get("passed", 0), wall))
        print(f"{name}: {counts.get('passed', 0)}/{total} canonical middles pass, wall {wall:.1f} s "
              f"({total / wall:.1f}/s), run {run_id}", flush=True)
        for f in failed:
            print(f"    {f.task_id}: {f.outcome} {f.failure_class or ''}: {(f.detail or '')[:200]}")
    print("\n| benchmark | canonical middles | pass | fail | wall s | per s | run |")
    print("|---|---|---|---|---|---|---|")
    for name, run_id, total, passed, wall in rows:
        print(f"| {name} | {total} | {passed} | {total - passed} | {wall:.1f} | {total / wall:.1f} | `{run_id}` |")
    with open("/proc/loadavg") as fh:
        print(f"\nload average at the end: {' '.join(fh.read().split()[:3])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
