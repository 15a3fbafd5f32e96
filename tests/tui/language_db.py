"""A fixed record of a run in other languages, for the console's snapshots: written through the real
Store with no clock and no randomness, shaped as the language runner records (task tags, the
language header, `language` evidence per attempt).

Six tasks: HumanEval-X JavaScript (two judged outside the candidate's process, one in-process), C++
(one with a compile error), MultiPL-E TypeScript (no reference). One candidate each.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from passgate.core.languages.job import LanguageJob
from passgate.core.manifest import parse_manifest
from passgate.core.record.store import Store

from .fixture_db import PREFLIGHT_CHECKS, PROBE_CHECKS, _checks

RUN = "r20261201-090000-dddddd"
AT = "2026-12-01T09:00:00.000+00:00"
DIGEST = "sha256:9bf2cb7f716693c8d5ea745a7d9633770afc506f1ed52ffeb21e84d317eba502"
MANIFEST_TEXT = """version: 1
name: languages-fixture
tasks:
  sets:
    - {kind: humaneval-x, language: js, path: humaneval_js.jsonl.gz, sha256: fe5d467f2c1a027b3f6f18d3729aca01f6458c1de2e2d1292a019c5aa9bed424}
    - {kind: humaneval-x, language: cpp, path: humaneval_cpp.jsonl.gz, sha256: dcf2e280a1e91bbc3c5f90edb41397e8a9ac1ccc9f5d2b70082f0b0fbfb6dbb0}
    - {kind: multipl-e, path: humaneval-ts.jsonl, sha256: e9e5e6ff6fba57fe121d42010142bc3c6012dc1de314bba33c7a1b4459b89b12}
candidates:
  source: import
  model: {name: fixture-coder-7b}
  import: {path: samples.jsonl, sha256: '0000000000000000000000000000000000000000000000000000000000000000'}
execution:
  language_images: {cpp: 'sha256:6989afbcfe482bbd14dcd73040c408a545eea6b6c767bf56c0a6c6abbde0843d', js: '%s', ts: '%s'}
""" % (DIGEST, DIGEST)

JS_PROMPT = ("/* Check if in given list of numbers, are any two numbers closer to each other than\n"
             "  given threshold.\n  */\nconst hasCloseElements = (numbers, threshold) => {\n")
CPP_PROMPT = "#include<vector>\nusing namespace std;\nint fib(int n){\n"
TS_PROMPT = "//Add two numbers x and y\nfunction add(x: number, y: number): number {\n"
# task_id, slice, language, dataset, integrity, prompt, completion, outcome, class, detail, compile_s, run_s
TASKS = [
    ("JavaScript/0", "humaneval-x-js", "js", "humaneval-x", "outside", JS_PROMPT,
     "  return numbers.some((a, i) => numbers.some((b, j) => i != j && Math.abs(a - b) < threshold));\n}\n",
     "passed", None, "", 0.0, 1.12),
    ("JavaScript/1", "humaneval-x-js", "js", "humaneval-x", "outside", JS_PROMPT.replace("hasCloseElements",
                                                                                          "separateParenGroups"),
     "  return [];\n}\n", "failed", "wrong_answer",
     "line 3: console.assert(JSON.stringify(separateParenGroups('(()()) ((())) () ((())()())')) === "
     "JSON.stringify(['(()())', '((()))', '()', '((())()())'])): got [], expected ['(()())', '((()))', '()', "
     "'((())()())'] (js_json)", 0.0, 0.98),
    ("JavaScript/32", "humaneval-x-js", "js", "humaneval-x", "in_process", JS_PROMPT, "  return 0;\n}\n",
     "passed", None, "", 0.0, 1.05),
    ("CPP/55", "humaneval-x-cpp", "cpp", "humaneval-x", "outside", CPP_PROMPT,
     "    if (n < 2) return n;\n    return fib(n - 1) + fib(n - 2);\n}\n", "passed", None, "", 2.41, 0.31),
    ("CPP/13", "humaneval-x-cpp", "cpp", "humaneval-x", "outside", CPP_PROMPT, "    return a +* b;\n}\n",
     "failed", "compile_error", "does not compile: main.cpp:14:16: error: expected primary-expression before '*' "
     "token", 2.02, 0.0),
    ("ts/HumanEval_53_add", "multipl-e-ts", "ts", "multipl-e", "outside", TS_PROMPT, "  return x - y;\n}\n",
     "failed", "wrong_answer", "line 6: assert.deepEqual(candidate(0, 1),1);: got -1, expected 1 (js_deep)",
     1.87, 0.62),
]


def build(path: str | Path) -> Path:
    path = Path(path)
    store = Store(path)
    manifest = parse_manifest(MANIFEST_TEXT, "languages-fixture.yaml")
    store.save_manifest(manifest.manifest_id, manifest.name, manifest.canonical_json(), MANIFEST_TEXT,
                        "languages-fixture.yaml")
    store.create_run({"run_id": RUN, "manifest_id": manifest.manifest_id, "name": "languages-fixture",
                      "status": "completed", "created_at": AT, "started_at": AT, "finished_at": AT, "operator": "rel-eng",
                      "policy": "secure-default", "model": "fixture-coder-7b", "runtime": "runsc",
                      "image": "passgate-lang:node-bookworm", "image_digest": DIGEST, "worker_sha256": "0" * 64,
                      "limits_json": json.dumps({"cpu_s": 3.0, "memory_mb": 1024, "compile_cpu_s": 60.0}),
                      "probe_json": _checks(PROBE_CHECKS), "preflight_json": _checks(PREFLIGHT_CHECKS),
                      "selfcheck_json": json.dumps({"ran": True, "references": 5, "passed": 5, "failed": []}),
                      "grading_protocol": 3, "passgate_version": "0.1.0"})
    tasks, cands, execs, outs = [], [], [], []
    for i, (tid, sl, lang, dataset, integrity, prompt, completion, outcome, cls, detail, compile_s, run_s) in \
            enumerate(TASKS):
        job = LanguageJob(language=lang, dataset=dataset, prompt=prompt)
        tasks.append({"task_id": tid, "position": i, "slice": sl, "set_id": sl, "set_sha256": "0" * 64,
                      "set_revision": "fixture", "exposure": "public",
                      "tags_json": json.dumps([f"language:{lang}", f"dataset:{dataset}", f"integrity:{integrity}"]),
                      "prompt": prompt, "entry_point": "", "candidate_preamble": "", "test_setup": job.to_json(),
                      "public_tests": "" if dataset == "multipl-e" else "console.assert(true)\n",
                      "protected_tests": "const assert = require('node:assert');\nassert.deepEqual(candidate(0, 1), 1);\n",
                      "reference_solution": "" if dataset == "multipl-e" else completion, "completion_style": "body",
                      "cpu_limit_s": 3.0, "reference_cpu_s": 0.4})
        sha = hashlib.sha256(completion.encode()).hexdigest()
        cands.append({"run_id": RUN, "task_id": tid, "candidate_index": 0, "raw_text": completion,
                      "processed_text": completion, "program": completion, "program_sha256": sha, "source": "import",
                      "source_ref": f"samples.jsonl:{i + 1}", "model_id": "fixture-coder-7b", "gen_status": "ok",
                      "created_at": AT})
        evidence = {"protocol": 1, "language": {
            "language": lang, "dataset": dataset, "integrity": {"protected": integrity}, "compile_s": compile_s,
            "run_s": run_s, "compile_cpu_s": round(compile_s * 0.9, 2), "run_cpu_s": round(run_s * 0.5, 2),
            "protocol": 1}}
        ok = outcome == "passed"
        execs.append({"run_id": RUN, "task_id": tid, "candidate_index": 0, "attempt": 1, "purpose": "grade",
                      "program_sha256": sha, "status": "ok", "public_status": "passed" if ok else "failed",
                      "protected_status": outcome, "failure_class": cls, "detail": detail,
                      "exit_reason": "run: exit 0", "cpu_s": round(run_s * 0.5, 2),
                      "wall_s": compile_s + run_s, "peak_rss_kb": 41000, "out_bytes": 0, "stdout": "", "stderr": "",
                      "violations_json": "[]", "runtime": "runsc", "image_digest": DIGEST, "node": "fixture-node",
                      "container_id": f"c0ffee{i:02d}", "started_at": AT, "finished_at": AT,
                      "evidence_json": json.dumps(evidence)})
        outs.append({"run_id": RUN, "task_id": tid, "candidate_index": 0, "outcome": outcome, "failure_class": cls,
                     "public_passed": None if dataset == "multipl-e" else int(ok), "protected_passed": int(ok),
                     "attempts": 1, "executed_as": None, "cpu_s": round(run_s * 0.5, 2),
                     "wall_s": compile_s + run_s, "reason": "", "decided_at": AT})
    store.save_tasks(RUN, tasks)
    store.append("candidates", cands)
    store.append("executions", execs)
    store.append("outcomes", outs)
    store.close()
    return path
