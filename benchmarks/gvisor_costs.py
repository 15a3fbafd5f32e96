"""What the operations one candidate is made of cost inside the sandbox, under runsc and under runc:
a system call, a pipe round trip, fork+exit of a bare interpreter and of one holding the worker
program, and what a fresh child pays on top for compiling and running a small function or for
listing /proc/self/fd. Each figure is the best of three batches (the machine is noisy).

    .venv/bin/python benchmarks/gvisor_costs.py [--runtime runsc --runtime runc]
"""

from __future__ import annotations

import argparse
import base64
import sys
import zlib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

PROBE = r'''
import base64, builtins, gc, os, time, zlib
def best(fn, n):
    fn()
    runs = []
    for _ in range(3):
        t = time.perf_counter()
        for _ in range(n):
            fn()
        runs.append((time.perf_counter() - t) / n)
    return min(runs) * 1000
def forked(work):
    def go():
        pid = os.fork()
        if pid == 0:
            work()
            os._exit(0)
        os.waitpid(pid, 0)
    return go
nothing = lambda: None
def compile_and_run():
    ns = {}
    exec(compile("def f(xs):\n    return sorted(set(xs))[:3]\nf([3, 1, 2])\n", "<c>", "exec"), ns)
out = {"system call (getppid)": best(os.getppid, 500)}
r1, w1 = os.pipe(); r2, w2 = os.pipe()
pid = os.fork()
if pid == 0:
    os.close(w1); os.close(r2)
    while True:
        d = os.read(r1, 100)
        if not d:
            os._exit(0)
        os.write(w2, d)
def round_trip():
    os.write(w1, b"x"); os.read(r2, 100)
out["pipe round trip"] = best(round_trip, 500)
os.close(w1); os.close(r2); os.waitpid(pid, 0)
out["fork+exit, bare interpreter"] = best(forked(nothing), 20)
src = zlib.decompress(base64.b64decode(WORKER)).decode()
exec(compile(src, "<worker>", "exec"), {"__name__": "not_main", "PASSGATE_CONFIG": {}, "__builtins__": dict(vars(builtins))})
gc.collect(); gc.freeze()
base = best(forked(nothing), 20)
out["fork+exit, worker program loaded"] = base
out["  + compile and run a small function"] = best(forked(compile_and_run), 20) - base
out["  + list /proc/self/fd"] = best(forked(lambda: os.listdir("/proc/self/fd")), 20) - base
for k, v in out.items():
    print("%s\t%.4f" % (k, v))
'''


def measure(runtime: str) -> dict[str, float]:
    from passgate.core.sandbox.docker_runner import docker_client, worker_source
    from tests.conftest import IMAGE
    packed = base64.b64encode(zlib.compress(worker_source().encode(), 9)).decode()
    script = f"WORKER = {packed!r}\n" + PROBE
    out = docker_client().containers.run(IMAGE, ["python3", "-c", script], runtime=runtime, network_mode="none",
                                         remove=True)
    return {k: float(v) for k, v in (line.split("\t") for line in out.decode().strip().splitlines())}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runtime", action="append")
    args = ap.parse_args()
    runtimes = args.runtime or ["runsc", "runc"]
    results = {rt: measure(rt) for rt in runtimes}
    keys = list(results[runtimes[0]])
    print("ms, best of three batches" + "".join(f"{rt:>12s}" for rt in runtimes))
    for k in keys:
        print(f"{k:40s}" + "".join(f"{results[rt][k]:12.3f}" for rt in runtimes))
    with open("/proc/loadavg") as fh:
        print(f"load average: {' '.join(fh.read().split()[:3])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
