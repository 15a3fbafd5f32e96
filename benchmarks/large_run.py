"""One large run end to end, every program executed: wall time, grading rate, the controller's CPU
and peak memory. The default is CodeT's 16,400 CodeGen samples (examples/humaneval-codet.yaml).

    .venv/bin/python benchmarks/large_run.py [--manifest FILE] [--runtime runsc] [--program-ref GIT_REF]

The manifest's own calibration and re-run policy apply; only identical-program dedupe is turned off
(and the runtime set), so the figure is the one distinct samples cost. `--program-ref` runs the worker
program as it was at that commit instead of this one.
"""

from __future__ import annotations

import argparse
import resource
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))


def run(manifest_path: Path, runtime: str, program: str | None) -> dict:
    from throughput import run_manifest
    manifest = yaml.safe_load(manifest_path.read_text())
    imported = manifest["candidates"].get("import", {})
    for key in ("path", "prompt_map"):
        if key in imported:
            imported[key] = str((manifest_path.parent / imported[key]).resolve())
    manifest["execution"].update(runtime=runtime, dedupe_identical_programs=False)
    return run_manifest(manifest, program)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--manifest", type=Path, default=REPO / "examples" / "humaneval-codet.yaml")
    ap.add_argument("--runtime", default="runsc")
    ap.add_argument("--program-ref")
    args = ap.parse_args()
    program = None
    if args.program_ref:
        from throughput import program_at
        program = program_at(args.program_ref)
    r = run(args.manifest.resolve(), args.runtime, program)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    label = f"program of {args.program_ref}" if args.program_ref else "this program"
    print(f"{args.manifest.name}, {args.runtime}, every program executed, {label}: {r['n']} samples, "
          f"{r['executed']} executions, {r['passed']} passed")
    print(f"    wall {r['elapsed']:.1f} s = {r['n'] / r['elapsed']:.1f} samples/s; grading {r['phases']['grade']:.1f} s, "
          f"timeout rechecks {r['phases']['timeout_recheck']:.1f} s; controller CPU {r['controller_cpu']:.1f} s "
          f"({1000 * r['controller_cpu'] / max(1, r['executed']):.1f} ms per execution); "
          f"controller peak memory {peak:.0f} MiB")
    with open("/proc/loadavg") as fh:
        print(f"    load average at the end: {' '.join(fh.read().split()[:3])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
