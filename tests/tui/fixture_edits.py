"""A fixed record of local edits for snapshot tests, written through the real Store with no clock
and no randomness: two generated runs (a baseline and a slower candidate) over 8 edits in two
slices, two candidates each with streamed timings, and a suggestion log on the candidate run."""

from __future__ import annotations

import hashlib
from pathlib import Path

from passgate.core.manifest import parse_manifest
from passgate.core.record.store import Store

from .fixture_db import DIGEST, run_row

FIXTURES = Path(__file__).parent / "fixtures"
MANIFEST = FIXTURES / "edits-manifest.yaml"
BASELINE = "r20261201-090000-dddddd"
RUN = "r20261202-090000-eeeeee"
# (slice, code before the gap, canonical middle, code after it)
EDITS = [("single-line", "def add(a, b):\n", f"    return a + {i}\n", "") for i in range(4)] + \
        [("multi-line", "def pick(xs):\n", f"    ys = sorted(xs)\n    return ys[{i}]\n", "") for i in range(4)]
# (task position, candidate index) -> the middle the model gave (unlisted: the canonical one)
MIDDLES = {(0, 1): "    return {i} + a\n", (1, 1): "    return a - {i}\n", (2, 1): "    return a + {i} \n",
           (4, 1): "    ys = sorted(xs)\n    return ys[-1]\n", (5, 1): "    return sorted(xs)[{i}]\n",
           (6, 0): "    pass\n"}
FAILS = {(1, 1), (4, 1), (6, 0)}


def build(path: str | Path) -> Path:
    path = Path(path)
    store = Store(path)
    text = MANIFEST.read_text()
    manifest = parse_manifest(text, str(MANIFEST))
    store.save_manifest(manifest.manifest_id, manifest.name, manifest.canonical_json(), text, str(MANIFEST))
    _run(store, manifest.manifest_id, BASELINE, "2026-12-01T09:00:00.000+00:00", slow=0.0)
    _run(store, manifest.manifest_id, RUN, "2026-12-02T09:00:00.000+00:00", slow=260.0)
    store.append("acceptance", [{"run_id": RUN, "task_id": f"edit/{pos}", "candidate_index": idx, "shown": 1,
                                 "accepted": int((pos + idx) % 3 != 0), "edited_after": int(pos == 2),
                                 "source_ref": f"log.jsonl:{pos * 2 + idx + 1}", "log_sha256": "0" * 64,
                                 "at": "2026-12-02T10:00:00"} for pos in range(8) for idx in (0, 1)])
    store.close()
    return path


def _run(store: Store, manifest_id: str, run_id: str, at: str, slow: float) -> None:
    store.create_run(run_row(manifest_id, run_id, at, "completed", "edits-fixture", "code-completion",
                             "fixture-coder-1b"))
    store.save_tasks(run_id, [{"task_id": f"edit/{i}", "position": i, "slice": sl, "set_id": "humaneval-infilling",
                               "set_sha256": "0" * 64, "set_revision": "88062ff", "exposure": "public",
                               "tags_json": "[]", "prompt": before, "entry_point": before[4:before.index("(")],
                               "candidate_preamble": "", "test_setup": "", "public_tests": "",
                               "protected_tests": "check(candidate)\n", "reference_solution": before + middle + after,
                               "completion_style": "infill", "infill_suffix": after, "cpu_limit_s": 3.0,
                               "reference_cpu_s": 0.02}
                              for i, (sl, before, middle, after) in enumerate(EDITS)])
    cands, execs, outs = [], [], []
    for pos, (_sl, before, middle, after) in enumerate(EDITS):
        for idx in (0, 1):
            text = MIDDLES.get((pos, idx), middle).replace("{i}", str(pos % 4))
            prog = before + text + after
            sha = hashlib.sha256(prog.encode()).hexdigest()
            passed = (pos, idx) not in FAILS
            first = 40.0 + 7 * pos + 3 * idx + slow
            cands.append({"run_id": run_id, "task_id": f"edit/{pos}", "candidate_index": idx, "raw_text": text,
                          "processed_text": text, "program": prog, "program_sha256": sha, "source": "generate",
                          "source_ref": f"stub-{pos}-{idx}", "seed": idx, "finish_reason": "stop",
                          "prompt_tokens": 30, "completion_tokens": 12, "latency_ms": first + 90 + 5 * idx,
                          "first_token_ms": first, "model_id": "fixture-coder-1b", "gen_status": "ok",
                          "gen_attempts_json": "[]", "created_at": at})
            execs.append({"run_id": run_id, "task_id": f"edit/{pos}", "candidate_index": idx, "attempt": 1,
                          "purpose": "grade", "program_sha256": sha, "status": "ok", "public_status": "not_run",
                          "protected_status": "passed" if passed else "failed",
                          "failure_class": None if passed else "wrong_answer",
                          "detail": "" if passed else "assertion failed", "exit_reason": "returned",
                          "cpu_s": 0.01, "wall_s": 0.05, "peak_rss_kb": 9000, "out_bytes": 0, "stdout": "",
                          "stderr": "", "violations_json": "[]", "runtime": "runsc", "image_digest": DIGEST,
                          "node": "fixture-node", "container_id": f"c0ffee{pos:02d}{idx}", "started_at": at,
                          "finished_at": at})
            outs.append({"run_id": run_id, "task_id": f"edit/{pos}", "candidate_index": idx,
                         "outcome": "passed" if passed else "failed",
                         "failure_class": None if passed else "wrong_answer",
                         "public_passed": None, "protected_passed": int(passed), "attempts": 1, "executed_as": None,
                         "cpu_s": 0.01, "wall_s": 0.05, "reason": "", "decided_at": at})
    store.append("candidates", cands)
    store.append("executions", execs)
    store.append("outcomes", outs)
