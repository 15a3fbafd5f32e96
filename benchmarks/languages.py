"""Languages through `passgate run`: the self-check (HumanEval-X's canonical solutions as the
candidates) and the grading throughput per language, on the real engine, Docker and gVisor.

    .venv/bin/python benchmarks/languages.py humaneval-x js [--limit N] [--workers 2] [--native]
    .venv/bin/python benchmarks/languages.py multipl-e ts [--limit N]    # a stub that must fail every task

For HumanEval-X it prints the references' pass counts per suite and integrity, every failing
reference with its class and detail, and the time: the run's wall clock from the first grade to the
last, programs per second, and the median compile and run time per attempt. For MultiPL-E (no
references) every task is graded with a stub completion that must fail, which measures the same
pipeline (compile, run, grade) and checks no task passes a wrong answer.

`--native` then runs, in the same invocation and with as many workers, the same references as the
dataset's own programs (prompt + solution + test, both suites) with the language's toolchain
outside any sandbox: the host's where it has it, else the image under runc (tests/languages/native.py).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
DATASETS = REPO.parent / "shared" / "datasets"
HUMANEVAL_X = {"js": "js", "cpp": "cpp", "java": "java", "go": "go", "rs": "rust"}
# a completion that must fail; where MultiPL-E's tests open with the function's closing brace, it leaves it to them
STUBS = {"js": "  return undefined;\n}\n", "ts": "  return undefined as any;\n}\n", "sh": "  echo\n",
         "cpp": "  exit(1);\n", "java": "        throw new RuntimeException(\"stub\");\n",
         "go": "  panic(\"stub\")\n}\n", "rs": "    unimplemented!()\n", "rb": "  nil\nend\n",
         "php": "    return null;\n}\n", "pl": "    return undef;\n}\n", "r": "\n  NULL\n}\n", "rkt": "  #f)\n",
         "d": "{\n    assert(0);\n}\n", "cs": "        throw new System.Exception(\"stub\");\n",
         "scala": "        throw new Exception(\"stub\")\n"}


def manifest_for(dataset: str, language: str, limit: int | None, workers: int, samples: Path | None) -> dict:
    if dataset == "humaneval-x":
        folder = HUMANEVAL_X[language]
        task_set = {"kind": "humaneval-x", "language": language,
                    "path": str(DATASETS / "humaneval-x" / folder / f"humaneval_{folder}.jsonl.gz")}
    else:
        task_set = {"kind": "multipl-e", "path": str(DATASETS / "multipl-e" / f"humaneval-{language}.jsonl")}
    if limit:
        from passgate.core.kinds.sets import load_task_set
        ts = load_task_set(task_set["kind"], task_set["path"], language=task_set.get("language"))
        task_set["task_ids"] = [t.task_id for t in ts.tasks[:limit]]
    candidates = {"source": "reference"} if samples is None else {
        "source": "import", "model": {"name": "stub"}, "import": {"path": str(samples), "format": "human-eval"}}
    return {"version": 1, "name": f"bench-{dataset}-{language}", "operator": "benchmark", "tasks": {"sets": [task_set]},
            "candidates": candidates,
            "execution": {"workers": workers, "timeout": {"calibrate": False}}}


def stub_samples(path: Path, language: str, limit: int | None) -> Path:
    from passgate.core.kinds.sets import load_task_set
    ts = load_task_set("multipl-e", DATASETS / "multipl-e" / f"humaneval-{language}.jsonl")
    with open(path, "w") as fh:
        for t in ts.tasks[:limit]:
            fh.write(json.dumps({"task_id": t.task_id, "completion": STUBS[language]}) + "\n")
    return path


def main(argv=None) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("dataset", choices=("humaneval-x", "multipl-e"))
    p.add_argument("language")
    p.add_argument("--limit", type=int)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--db", help="keep the record in this file")
    p.add_argument("--native", action="store_true", help="also time the dataset's own programs outside the sandbox")
    p.add_argument("--native-only", type=float, metavar="PASSGATE_S",
                   help="only the native side, compared with a passgate run that took PASSGATE_S seconds")
    args = p.parse_args(argv)
    if args.native_only:
        _native(args, args.native_only)
        return 0

    from passgate.core.candidates.inputs import freeze
    from passgate.core.manifest import dump_manifest
    from passgate.core.record.store import Store
    from passgate.core.run.engine import start_run
    from passgate.core.score.report import build_report

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        samples = stub_samples(tmp / "stubs.jsonl", args.language, args.limit) if args.dataset == "multipl-e" else None
        raw = tmp / "m.yaml"
        raw.write_text(yaml.safe_dump(manifest_for(args.dataset, args.language, args.limit, args.workers, samples)))
        frozen = tmp / "frozen.yaml"
        frozen.write_text(dump_manifest(freeze(str(raw))))
        store = Store(Path(args.db) if args.db else tmp / "record.db")
        started = time.monotonic()
        run_id = start_run(store, frozen)
        elapsed = time.monotonic() - started
        report = build_report(store, run_id, parallel=False)
        _print(store, run_id, report, args, elapsed)
        if args.native and args.dataset == "humaneval-x":
            _native(args, elapsed)
    return 0


def _native(args, passgate_s: float) -> None:
    """The same references as the dataset's own programs, outside the sandbox, `workers` at a time."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    sys.path.insert(0, str(REPO))
    from passgate.core.languages.datasets import load_humaneval_x
    from passgate.core.languages.registry import spec_for
    from tests.languages.driver import LanguageSandbox
    from tests.languages.measure import limits_for, native_cached
    from tests.languages.native import dataset_verdict, host_can_run, run_on_host

    spec = spec_for(args.language)
    folder = HUMANEVAL_X[args.language]
    tasks = load_humaneval_x(DATASETS / "humaneval-x" / folder / f"humaneval_{folder}.jsonl.gz")[:args.limit]
    jobs = [(t, test) for t in tasks for test in (t.hidden, t.public) if test is not None]
    on_host = host_can_run(spec.original(tasks[0].hidden, ""))
    local = threading.local()
    boxes = []

    def one(job):
        task, test = job
        program = spec.original(test, task.canonical_solution)
        if args.language == "go":             # Go's build cache shared across programs: testify compiled once
            program = native_cached(program)
        support = spec.support(test) if spec.support else {}
        if on_host:
            ex = run_on_host(program, support=support)
        else:
            if not hasattr(local, "box"):
                local.box = LanguageSandbox(spec.toolchain.tag, runtime="runc", limits=limits_for(args.language),
                                            shared_cache=args.language == "go")
                boxes.append(local.box)
            ex = local.box.run_program(program, support=support)
        return dataset_verdict("humaneval-x", args.language, ex)

    started = time.monotonic()
    try:
        with ThreadPoolExecutor(args.workers) as pool:
            verdicts = list(pool.map(one, jobs))
    finally:
        for box in boxes:
            box.close()
    native_s = time.monotonic() - started
    where = "the host's toolchain" if on_host else "the image under runc"
    print(f"\nnative ({where}, {args.workers} at a time, the dataset's own programs): {len(jobs)} programs in "
          f"{native_s:.1f} s, {len(jobs) / native_s:.2f} programs/s, {sum(verdicts)} pass by the dataset's own rule; "
          f"passgate run / native = {passgate_s / native_s:.1f}x")


def _print(store, run_id: str, report: dict, args, elapsed: float) -> None:
    rows = [e for e in store.rows("executions", run_id) if e["status"] == "ok"]
    evidence = [json.loads(e["evidence_json"]).get("language") or {} for e in rows]
    suites = {"protected": [0, 0, 0, 0], "public": [0, 0, 0, 0]}    # outside passed/failed, in-process passed/failed
    for e, ev in zip(rows, evidence):
        for suite in ("protected", "public"):
            status = e[f"{suite}_status"]
            if status in ("passed", "failed"):
                base = 0 if (ev.get("integrity") or {}).get(suite) == "outside" else 2
                suites[suite][base + (status != "passed")] += 1
    programs = sum(2 if e["public_status"] in ("passed", "failed") else 1 for e in rows)
    times = [(ev.get("compile_s") or 0, ev.get("run_s") or 0) for ev in evidence]
    (lang,) = report["languages"]["per_language"]
    print(f"## {args.dataset} {args.language}: run {run_id}\n")
    print("| suite | outside passed | outside failed | in-process passed | in-process failed |\n|---|---|---|---|---|")
    for suite, c in suites.items():
        if sum(c):
            print(f"| {suite} | {c[0]} | {c[1]} | {c[2]} | {c[3]} |")
    print(f"\ncandidates {lang['candidates']}, passed {lang['passed']}; programs {programs}; "
          f"`passgate run` {elapsed:.1f} s in all (preflight included), {programs / elapsed:.2f} programs/s; "
          f"per candidate median compile {statistics.median(t[0] for t in times):.2f} s, run "
          f"{statistics.median(t[1] for t in times):.2f} s (both suites)")
    print(f"classes: {lang['classes']}")
    for o in store.rows("outcomes", run_id):
        if o["outcome"] != "passed" and args.dataset == "humaneval-x":
            e = next(x for x in reversed(rows) if x["task_id"] == o["task_id"])
            print(f"- {o['task_id']}: {o['failure_class']}: {(e['detail'] or '')[:300]}")
    sys.stdout.flush()


if __name__ == "__main__":
    raise SystemExit(main())
