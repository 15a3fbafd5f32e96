"""MultiPL-E in one language: every task loads and is split, each is graded in the sandbox with a
stub that must fail, and where a reference can be built (JavaScript and TypeScript: HumanEval-X's
canonical JavaScript behind a wrapper with MultiPL-E's signature) the reference is graded too; every
verdict is compared with the dataset's own program run natively (or in the image under runc)."""

from __future__ import annotations

import collections
import re
import time

from passgate.core.languages.datasets import load_multipl_e
from passgate.core.languages.registry import spec_for
from passgate.core.languages.spec import Integrity

from .driver import LanguageSandbox
from .measure import DATASETS, humaneval_x, limits_for, sandbox_verdict, support_files
from .native import dataset_verdict, host_can_run, run_on_host

# a completion that must fail; where the tests open with the function's closing brace (C++, Java,
# Rust, Bash), the completion leaves it to them
STUBS = {"js": "  return undefined;\n}\n", "ts": "  return undefined as any;\n}\n", "sh": "  echo\n",
         "cpp": "  exit(1);\n", "java": "        throw new RuntimeException(\"stub\");\n",
         "go": "  panic(\"stub\")\n}\n", "rs": "    unimplemented!()\n"}

# Bash references written by hand (no dataset gives any)
SH_REFERENCES = {
    "HumanEval_23_strlen": "    echo ${#1}\n",
    "HumanEval_53_add": "    echo $(( $1 + $2 ))\n",
    "HumanEval_60_sum_to_n": "    echo $(( $1 * ($1 + 1) / 2 ))\n",
    "HumanEval_55_fib": "    local a=0 b=1 i\n    for (( i = 0; i < $1; i++ )); do local t=$b; b=$(( a + b )); a=$t; done\n"
                        "    echo $a\n",
    "HumanEval_13_greatest_common_divisor": "    local a=$1 b=$2\n    while (( b != 0 )); do local t=$b; b=$(( a % b ));"
                                            " a=$t; done\n    echo $a\n",
    "HumanEval_27_flip_case": "    echo \"$1\" | tr 'a-zA-Z' 'A-Za-z'\n",
}


def js_reference(task, hx_by_index) -> str | None:
    """HumanEval-X's canonical JavaScript behind MultiPL-E's signature."""
    index = int(task.task_id.split("_")[1])
    hx = hx_by_index.get(index)
    header = re.search(r"function\s+\w+\s*\(([^)]*)\)[^{]*\{\s*$", task.tests.prompt)
    camel = re.search(r"const\s+(\w+)\s*=", hx.hidden.declaration) if hx else None
    if not (header and camel):
        return None
    params = ", ".join(p.split(":")[0].strip() for p in header.group(1).split(",") if p.strip())
    return f"  return {camel.group(1)}({params});\n}}\n{hx.hidden.declaration}{hx.canonical_solution}"


def references(lang: str, tasks) -> dict[str, str]:
    if lang == "sh":
        return SH_REFERENCES
    if lang not in ("js", "ts"):
        return {}
    hx_by_index = {int(t.task_id.split("/")[1]): t for t in humaneval_x("js")}
    refs = {}
    for task in tasks:
        ref = js_reference(task, hx_by_index)
        if ref is not None:
            refs[task.task_id] = ref if lang == "js" else _typescript(ref)
    return refs


def _typescript(ref: str) -> str:
    """The JavaScript reference as TypeScript accepts it: the wrapped call untyped."""
    return re.sub(r"return (\w+)\(", r"return (\1 as any)(", ref, count=1)


def cmd_multiple(lang: str, limit: int | None) -> None:
    spec = spec_for(lang)
    tasks = load_multipl_e(DATASETS / "multipl-e" / f"humaneval-{lang}.jsonl")[:limit]
    refs = references(lang, tasks)
    table = collections.defaultdict(collections.Counter)
    differences, times = [], collections.defaultdict(float)
    with LanguageSandbox(spec.toolchain.tag, limits=limits_for(lang)) as box, \
            LanguageSandbox(spec.toolchain.tag, runtime="runc", limits=limits_for(lang)) as plain:
        for task in tasks:
            candidates = {"stub": STUBS.get(lang, "\n}\n")}
            if task.task_id in refs:
                candidates["reference"] = refs[task.task_id]
            for kind, completion in candidates.items():
                t0 = time.perf_counter()
                split, ex, ours = sandbox_verdict(box, spec, task.tests, completion)
                t1 = time.perf_counter()
                original = spec.original(task.tests, completion)
                nx = run_on_host(original) if host_can_run(original) else plain.run_program(original)
                times[kind, "sandbox"] += t1 - t0
                times[kind, "native"] += time.perf_counter() - t1
                theirs = dataset_verdict("multipl-e", lang, nx)
                c = table[kind]
                c["programs"] += 1
                c["outside" if split.integrity is Integrity.OUTSIDE else "in_process"] += 1
                c["agree" if (ours == "passed") == theirs else "differ"] += 1
                c["passgate_passed"] += ours == "passed"
                c["original_passed"] += theirs
                if (ours == "passed") != theirs:
                    differences.append((task.task_id, kind, ours[:200], (nx.stderr or nx.stdout)[-200:]))
    print(f"| {spec.title} MultiPL-E | programs | outside | agree | differ | passgate passed | original passed | "
          f"sandbox s | native s |\n|---|---|---|---|---|---|---|---|---|")
    for kind, c in table.items():
        print(f"| {kind} | {c['programs']} | {c['outside']} | {c['agree']} | {c['differ']} | {c['passgate_passed']} | "
              f"{c['original_passed']} | {times[kind, 'sandbox']:.0f} | {times[kind, 'native']:.0f} |")
    for d in differences:
        print(f"- {d[0]} {d[1]}: passgate: {d[2]}; original: {d[3]!r}")
