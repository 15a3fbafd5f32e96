"""Measure a language spec against its datasets: split rates, the self-check in the sandbox, the
agreement with the dataset's own program run natively, and the time of both.

    python -m tests.languages.measure split js
    python -m tests.languages.measure selfcheck js [--limit N]
    python -m tests.languages.measure agree js [--limit N]      # canonical + wrong variants, one invocation
    python -m tests.languages.measure multiple js

Each prints Markdown; `agree` also prints the benchmark line (sandbox vs native, same programs).
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import signal
import statistics
import sys
import time
from pathlib import Path

from passgate.core.languages.datasets import load_humaneval_x, load_multipl_e
from passgate.core.languages.registry import spec_for
from passgate.core.languages.spec import Integrity
from passgate.core.languages.verdict import grade

from .driver import LanguageSandbox, Limits
from .native import dataset_verdict, host_can_run, run_on_host
from .variants import BY_LANGUAGE, GENERIC

DATASETS = Path(__file__).resolve().parents[3] / "shared" / "datasets"
HUMANEVAL_X_FILE = {"js": "js/humaneval_js", "cpp": "cpp/humaneval_cpp", "java": "java/humaneval_java",
                    "go": "go/humaneval_go", "rs": "rust/humaneval_rust"}


def humaneval_x(lang: str):
    return load_humaneval_x(DATASETS / "humaneval-x" / f"{HUMANEVAL_X_FILE[lang]}.jsonl.gz")


def suites(task):
    return [("hidden", task.hidden)] + ([("public", task.public)] if task.public else [])


def cmd_split(lang: str) -> None:
    spec = spec_for(lang)
    rows = []
    if lang in HUMANEVAL_X_FILE:
        for name in ("hidden", "public"):
            tests = [t for task in humaneval_x(lang) for n, t in suites(task) if n == name]
            rows.append((f"HumanEval-X {name}", _split_counts(spec, tests)))
    multiple = DATASETS / "multipl-e" / f"humaneval-{lang}.jsonl"
    if multiple.exists():
        rows.append(("MultiPL-E", _split_counts(spec, [t.tests for t in load_multipl_e(multiple)])))
    print(f"| {spec.title} suite | outside | in-process | sites |\n|---|---|---|---|")
    for label, (outside, total, n_sites, reasons) in rows:
        print(f"| {label} | {outside}/{total} | {total - outside} | {n_sites} |")
    for label, (_o, _t, _n, reasons) in rows:
        for task_id, reason in reasons:
            print(f"- {label} {task_id}: {reason}")


def _split_counts(spec, tests):
    outside, n_sites, reasons = 0, 0, []
    for t in tests:
        s = spec.split(t)
        if s.integrity is Integrity.OUTSIDE:
            outside += 1
            n_sites += len(s.sites)
        else:
            reasons.append((t.task_id, s.reason))
    return outside, len(tests), n_sites, reasons


def sandbox_verdict(box, spec, test, completion: str):
    split = spec.split(test)
    ex = box.run_program(spec.program(test, completion, split), support=support_files(spec, test))
    if ex.compile_status not in (None, 0):
        return split, ex, "compile_error: " + ex.first_compile_error()
    v = grade(split, ex.report, exit_status=None if ex.timed_out else ex.run_status, output_tail=ex.stderr)
    return split, ex, "passed" if v.passed else f"{v.failure}: {v.detail}"


def support_files(spec, test) -> dict[str, bytes]:
    return spec.support(test) if spec.support else {}


def cmd_selfcheck(lang: str, limit: int | None) -> None:
    spec = spec_for(lang)
    tasks = humaneval_x(lang)[:limit]
    counts, failures = collections.Counter(), []
    with LanguageSandbox(spec.toolchain.tag, limits=limits_for(lang)) as box:
        for task in tasks:
            for name, test in suites(task):
                split, ex, verdict = sandbox_verdict(box, spec, test, task.canonical_solution)
                counts[name, split.integrity.value, verdict == "passed"] += 1
                if verdict != "passed":
                    failures.append((task.task_id, name, split.integrity.value, verdict))
    print(f"| {spec.title} suite | integrity | passed | failed |\n|---|---|---|---|")
    for name in ("hidden", "public"):
        for integ in ("outside", "in_process"):
            p, f = counts[name, integ, True], counts[name, integ, False]
            if p or f:
                print(f"| {name} | {integ} | {p} | {f} |")
    for f in failures:
        print(f"- {f[0]} {f[1]} ({f[2]}): {f[3][:400]}")


def limits_for(lang: str) -> Limits:
    """The driver's limits; an address-space limit only where the runtime lives with one."""
    # `go test` compiles the test binary (and testify) in its run step
    return Limits(address_space_kb=2_621_440 if spec_for(lang).rlimit_as else None,
                  run_wall_s=60.0 if lang == "go" else 10.0)


_stopping = False


def _stop(*_args) -> None:
    """SIGUSR1: finish the task in hand, then print what was measured so far."""
    global _stopping
    _stopping = True


def cmd_agree(lang: str, limit: int | None, every: int = 1) -> None:
    """One invocation: the self-check (canonical solutions, hidden and public tests), the agreement
    of every verdict (canonical and wrong variants, hidden tests) with the dataset's own program run
    natively, and the benchmark (the canonical hidden rows: sandbox vs native, same programs)."""
    spec = spec_for(lang)
    variants = {"canonical": lambda task_id, c: c, **BY_LANGUAGE.get(lang, {})}
    table = collections.defaultdict(collections.Counter)
    selfcheck, self_failures = collections.Counter(), []
    differences, times = [], {"sandbox": [], "native": [], "compile": [], "run": []}
    started = time.perf_counter()
    tasks = humaneval_x(lang)[:limit]
    with LanguageSandbox(spec.toolchain.tag, limits=limits_for(lang)) as box, \
            LanguageSandbox(spec.toolchain.tag, runtime="runc", limits=limits_for(lang), shared_cache=True) as plain:
        for n, task in enumerate(tasks):
            if _stopping:
                print(f"stopped after {n} tasks", file=sys.stderr)
                tasks = tasks[:max(n, 1)]
                break
            print(f"{lang} {n + 1}/{len(tasks)} {task.task_id}", file=sys.stderr, flush=True)
            for vname, variant in variants.items():
                completion = variant(task.task_id, task.canonical_solution)
                if completion is None or (vname in GENERIC and n % every):
                    continue
                for suite, test in (suites(task) if vname == "canonical" else [("hidden", task.hidden)]):
                    t0 = time.perf_counter()
                    split, ex, ours = sandbox_verdict(box, spec, test, completion)
                    t1 = time.perf_counter()
                    if vname == "canonical":
                        selfcheck[suite, split.integrity.value, ours == "passed"] += 1
                        if ours != "passed":
                            self_failures.append((task.task_id, suite, split.integrity.value, ours))
                    if suite != "hidden":
                        continue
                    original = native_cached(spec.original(test, completion))
                    support = support_files(spec, test)
                    nx = run_on_host(original, support=support) if host_can_run(original) \
                        else plain.run_program(original, support=support)
                    t2 = time.perf_counter()
                    theirs = dataset_verdict("humaneval-x", lang, nx)
                    if vname == "canonical":
                        times["sandbox"].append(t1 - t0)
                        times["native"].append(t2 - t1)
                        times["compile"].append(ex.compile_s)
                        times["run"].append(ex.run_s)
                    agree = (ours == "passed") == theirs
                    table[vname]["agree" if agree else "differ"] += 1
                    table[vname][f"{'P' if ours == 'passed' else 'F'}{'P' if theirs else 'F'}"] += 1
                    if not agree:
                        differences.append((task.task_id, vname, split.integrity.value, ours, _tail(nx)))
    _print_selfcheck(spec, selfcheck, self_failures)
    print()
    _print_agreement(spec, table, differences)
    native_where = "host" if host_can_run(spec.original(tasks[0].hidden, "")) else "image under runc"
    print(f"\nBenchmark ({spec.title}, canonical solutions, hidden tests, {len(times['sandbox'])} programs, "
          f"one invocation, {time.perf_counter() - started:.0f} s in all): passgate in gVisor "
          f"{sum(times['sandbox']):.1f} s (median {statistics.median(times['sandbox']):.2f} s/program; in the "
          f"sandbox compile {sum(times['compile']):.1f} s, run {sum(times['run']):.1f} s); "
          f"native ({native_where}) {sum(times['native']):.1f} s "
          f"(median {statistics.median(times['native']):.2f} s/program); "
          f"ratio {sum(times['sandbox']) / max(sum(times['native']), 1e-9):.1f}x")


def _print_selfcheck(spec, counts, failures) -> None:
    print(f"| {spec.title} self-check | integrity | passed | failed |\n|---|---|---|---|")
    for suite in ("hidden", "public"):
        for integ in ("outside", "in_process"):
            p, f = counts[suite, integ, True], counts[suite, integ, False]
            if p or f:
                print(f"| {suite} | {integ} | {p} | {f} |")
    for f in failures:
        print(f"- {f[0]} {f[1]} ({f[2]}): {f[3][:300]}")


def native_cached(program):
    """The dataset's own program with Go's build cache shared across programs on the native side
    (testify and the standard library compiled once): the reference gets every advantage."""
    env = tuple((k, "/cache/go" if k == "GOCACHE" else v) for k, v in program.env)
    return dataclasses.replace(program, env=env)


def _tail(ex) -> str:
    text = (ex.stderr or ex.stdout or ex.compile_output or "").strip().replace("\n", " | ")
    return f"status {ex.run_status}, compile {ex.compile_status}: {text[:160]}"


def _print_agreement(spec, table, differences) -> None:
    print(f"| {spec.title} variant | programs | agree | differ | passgate pass / original pass | "
          f"passgate fail / original pass | passgate pass / original fail |\n|---|---|---|---|---|---|---|")
    for vname, c in table.items():
        print(f"| {vname} | {c['agree'] + c['differ']} | {c['agree']} | {c['differ']} | {c['PP']} | {c['FP']} | "
              f"{c['PF']} |")
    for d in differences:
        print(f"- {d[0]} {d[1]} ({d[2]}): passgate: {d[3][:200]}; original: {d[4]}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("command", choices=("split", "selfcheck", "agree", "multiple"))
    parser.add_argument("lang")
    parser.add_argument("--limit", type=int)
    parser.add_argument("--every", type=int, default=1, help="generic wrong variants on every N-th task only")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGUSR1, _stop)
    if args.command == "split":
        cmd_split(args.lang)
    elif args.command == "selfcheck":
        cmd_selfcheck(args.lang, args.limit)
    elif args.command == "agree":
        cmd_agree(args.lang, args.limit, args.every)
    else:
        from .multiple import cmd_multiple
        cmd_multiple(args.lang, args.limit)


if __name__ == "__main__":
    main()
