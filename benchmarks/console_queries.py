"""The console's queries on a mid-run record of 16,400 candidates, against a plain scan of the same rows.

Writes the record the responsiveness tests use (164 tasks x 100 candidates, three quarters
decided) through the real Store, then times each query a screen runs when it opens: the runs
list, the live snapshot, the inspector's failed rows and all its rows. Each is the median of
--repeat runs, printed beside the median of a bare `SELECT *` of the run's outcomes in the same
process, so the ratio holds on a noisy machine where the seconds do not.

    .venv/bin/python benchmarks/console_queries.py [--repeat 7]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from passgate.core.record.queries import bench
from passgate.core.record.store import Store  # noqa: E402
from passgate.tui import records  # noqa: E402
from tests.tui.big_record import RUN, write_big_record  # noqa: E402


def median_s(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.db"
        t = time.perf_counter()
        write_big_record(path)
        print(f"record: 16,400 candidates, 12,300 decided, written in {time.perf_counter() - t:.1f} s")
        store = Store(path)
        base = median_s(lambda: bench.outcome_scan(store, RUN), args.repeat)
        print(f"baseline: SELECT * of the run's 12,300 outcomes: {base * 1000:7.1f} ms")
        for name, fn in (("runs list", lambda: records.run_rows(store)),
                         ("live snapshot", lambda: records.live_snapshot(store, RUN)),
                         ("inspector, failed rows", lambda: records.outcome_rows(store, RUN)),
                         ("inspector, all rows", lambda: records.outcome_rows(store, RUN, include_passed=True))):
            s = median_s(fn, args.repeat)
            print(f"{name:24s} {s * 1000:7.1f} ms = {s / base:5.1f}x baseline")
        store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
