"""A fixed record for snapshot tests: written through the real Store, with no clock and no randomness.

Four runs of one manifest (tests/tui/fixtures/fixed-manifest.yaml, whose policy path is relative:
build and open it with tests/tui/fixtures as the working directory) over 8 tasks in two slices,
two candidates each: a completed run (two samples lines that became no candidate), an earlier
completed baseline, an interrupted run (one candidate failed once and waits for its rerun), and
the oldest: a copy of the completed run, failures, timeout and unsigned relaxations included,
whose record was altered afterwards with plain SQL (an outcome flipped to passed).
The journeys in test_journeys.py use real runs instead; this file exists so screens can be
snapshotted byte for byte.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from passgate.core.manifest import parse_manifest
from passgate.core.record.store import Store

FIXTURES = Path(__file__).parent / "fixtures"
MANIFEST = FIXTURES / "fixed-manifest.yaml"
RUN = "r20261130-090000-aaaaaa"
BASELINE = "r20261129-090000-bbbbbb"
INTERRUPTED = "r20261130-100000-cccccc"
ALTERED = "r20261128-090000-dddddd"
MANIFEST_ID = parse_manifest(MANIFEST.read_text()).manifest_id
DIGEST = "sha256:fe62768e74a2c542061a3d60ab1e20907166a4b127d0b6ee0be147153ee5447f"

TASKS = [  # task_id, slice, entry point
    ("HumanEval/0", "humaneval", "has_close_elements"), ("HumanEval/1", "humaneval", "separate_paren_groups"),
    ("HumanEval/2", "humaneval", "truncate_number"), ("HumanEval/3", "humaneval", "below_zero"),
    ("HumanEval/4", "humaneval", "mean_absolute_deviation"), ("11", "mbpp", "remove_Occ"),
    ("12", "mbpp", "sort_matrix"), ("13", "mbpp", "count_common"),
]
# (task position, candidate index) -> (outcome, failure class, detail); unlisted candidates passed
RUN_OUTCOMES = {
    (1, 0): ("failed", "wrong_answer", "AssertionError: candidate('(()()) ((()))') returned ['(()())'], expected 2 groups"),
    (1, 1): ("failed", "wrong_answer", "AssertionError: candidate('() (()) ((())) (((())))') returned ['()']"),
    (3, 1): ("failed", "timeout", "CPU limit 3.0 s exceeded (while True loop)"),
    (5, 0): ("failed", "runtime_error", "IndexError: string index out of range"),
    (6, 1): ("infra_error", "infra_error", "worker lost: container exited 137 three times"),
    (7, 0): ("flaky", "wrong_answer", "1/2 attempts passed"),
    (7, 1): ("excluded", None, "unmatched import line 16"),
}
BASELINE_OUTCOMES = {
    (1, 0): ("failed", "wrong_answer", "AssertionError: wrong grouping"),
    (5, 0): ("failed", "runtime_error", "IndexError: string index out of range"),
}
PROBE_CHECKS = [("only_loopback_interface", "network", "interfaces ['lo']"),
                ("no_route_public", "network", "route to a public address: [Errno 101] Network is unreachable"),
                ("docker_socket_absent", "mounts", "docker sockets present: none"),
                ("system_paths_read_only", "filesystem", "writable: none of ['/etc', '/usr']"),
                ("unprivileged_uid", "credentials", "uid 10001"),
                ("no_capabilities", "credentials", "CapEff 0000000000000000"),
                ("process_limit_enforced", "processes", "forked 31 with RLIMIT_NPROC 32 (errno 11)"),
                ("memory_limit_enforced", "memory", "allocation past RLIMIT_AS 1073741824: refused"),
                ("canary_not_visible", "credentials", "planted canary absent in 14 environment values")]
PREFLIGHT_CHECKS = [("runtime", "runtime", "runtime 'runsc' (manifest: 'runsc')"),
                    ("network_none", "network", "network mode 'none'"),
                    ("no_host_mounts", "mounts", "mounts none"),
                    ("read_only_root", "filesystem", "ReadonlyRootfs=True"),
                    ("capabilities_dropped", "credentials", "drop ['ALL'] add ['SETUID', 'SETGID', 'KILL']"),
                    ("image_pinned", "image", f"container image {DIGEST} (pinned {DIGEST})")]


def _checks(rows) -> str:
    return json.dumps({"checks": [{"name": n, "ok": True, "saw": saw, "boundary": b} for n, b, saw in rows]})


def program(entry: str, variant: int) -> str:
    return f"def {entry}(*args):\n    # candidate {variant}\n    result = list(args)\n    return result\n"


def build(path: str | Path) -> Path:
    """Write the fixed record to `path` (a new file) and return it."""
    path = Path(path)
    store = Store(path)
    text = MANIFEST.read_text()
    manifest = parse_manifest(text, str(MANIFEST))
    store.save_manifest(manifest.manifest_id, manifest.name, manifest.canonical_json(), text, str(MANIFEST))
    _run(store, manifest.manifest_id, BASELINE, "2026-11-29T09:00:00.000+00:00", "completed", BASELINE_OUTCOMES)
    _run(store, manifest.manifest_id, RUN, "2026-11-30T09:00:00.000+00:00", "completed", RUN_OUTCOMES)
    store.append("signoffs", [{"run_id": RUN, "manifest_id": manifest.manifest_id, "boundary": "holdout=public-only",
                               "reviewer": "sec-reviewer", "decision": "approved",
                               "statement": "public regression check; no release claim", "at": "2026-11-30T09:30:00"}])
    store.append("evidence", [{"run_id": RUN, "kind": "not_imported", "at": "2026-11-30T09:00:00",
                                "body_json": json.dumps({"lines": NOT_IMPORTED}, sort_keys=True)}])
    _run(store, manifest.manifest_id, INTERRUPTED, "2026-11-30T10:00:00.000+00:00", "interrupted", RUN_OUTCOMES,
         decided=9)
    store.append("executions", [_awaiting_rerun()])
    _run(store, manifest.manifest_id, ALTERED, "2026-11-28T09:00:00.000+00:00", "completed", RUN_OUTCOMES)
    store.close()
    alter(path)
    return path


NOT_IMPORTED = [{"file": "samples.jsonl", "line": 17, "reason": "not valid JSON (Expecting value, column 1)"},
                {"file": "samples.jsonl", "line": 18, "reason": "task HumanEval/99 is not in the task set",
                 "task_id": "HumanEval/99"}]


def _awaiting_rerun() -> dict:
    """The interrupted run's next candidate failed its first attempt; the run stopped before its rerun."""
    return {"run_id": INTERRUPTED, "task_id": "11", "candidate_index": 0, "attempt": 1, "purpose": "grade",
            "program_sha256": hashlib.sha256(program("remove_Occ", 0).encode()).hexdigest(), "status": "ok",
            "public_status": "passed", "protected_status": "failed", "failure_class": "runtime_error",
            "detail": "IndexError: string index out of range", "exit_reason": "exit 1", "cpu_s": 0.06,
            "wall_s": 0.3, "peak_rss_kb": 9500, "out_bytes": 0, "stdout": "", "stderr": "", "violations_json": "[]",
            "runtime": "runsc", "image_digest": DIGEST, "node": "fixture-node", "container_id": "c0ffee050",
            "started_at": "2026-11-30T10:00:00.000+00:00", "finished_at": "2026-11-30T10:00:00.000+00:00"}


def alter(path: Path) -> None:
    """Flip one recorded failure of ALTERED to a pass with plain SQL, around the append-only trigger."""
    import sqlite3
    con = sqlite3.connect(path)
    (trigger,) = con.execute("SELECT sql FROM sqlite_master WHERE name = 'outcomes_no_update'").fetchone()
    con.execute("DROP TRIGGER outcomes_no_update")
    con.execute("UPDATE outcomes SET outcome = 'passed', failure_class = NULL, protected_passed = 1 "
                "WHERE run_id = ? AND task_id = 'HumanEval/1' AND candidate_index = 0", [ALTERED])
    con.execute(trigger)
    con.commit()
    con.close()


def run_row(manifest_id: str, run_id: str, at: str, status: str, name: str, policy: str, model: str) -> dict:
    """A fixture run's row: gVisor, the pinned image, every probe and preflight check passed, 8/8 references."""
    return {"run_id": run_id, "manifest_id": manifest_id, "name": name, "status": status,
            "created_at": at, "started_at": at, "finished_at": at, "operator": "rel-eng",
            "policy": policy, "model": model, "runtime": "runsc",
            "image": "passgate-sandbox:bookworm-py311", "image_digest": DIGEST, "worker_sha256": "0" * 64,
            "limits_json": json.dumps({"cpu_s": 3.0, "memory_mb": 1024}), "probe_json": _checks(PROBE_CHECKS),
            "preflight_json": _checks(PREFLIGHT_CHECKS),
            "selfcheck_json": json.dumps({"ran": True, "references": 8, "passed": 8, "failed": []}),
            "passgate_version": "0.1.0"}


def _run(store: Store, manifest_id: str, run_id: str, at: str, status: str, outcomes: dict,
         decided: int | None = None) -> None:
    store.create_run(run_row(manifest_id, run_id, at, status, "snapshot-fixture", "benchmark-regression.yaml",
                             "fixture-model-7b"))
    store.save_tasks(run_id, [{"task_id": tid, "position": i, "slice": sl, "set_id": sl, "set_sha256": "0" * 64,
                               "set_revision": "fixture", "exposure": "public", "tags_json": "[]",
                               "prompt": f"def {entry}(*args):\n", "entry_point": entry, "candidate_preamble": "",
                               "test_setup": "", "public_tests": f"assert {entry}(1) == [1]\n",
                               "protected_tests": f"def check(candidate):\n    assert candidate(1) == [1]\n"
                                                  f"    assert candidate(2, 3) == [2, 3]\n\ncheck({entry})\n",
                               "reference_solution": program(entry, -1), "completion_style": "full",
                               "cpu_limit_s": 3.0, "reference_cpu_s": 0.02}
                              for i, (tid, sl, entry) in enumerate(TASKS)])
    cands, execs, outs = [], [], []
    for pos, (tid, sl, entry) in enumerate(TASKS):
        for idx in (0, 1):
            prog = program(entry, idx)
            sha = hashlib.sha256(prog.encode()).hexdigest()
            outcome, cls, detail = outcomes.get((pos, idx), ("passed", None, ""))
            cands.append({"run_id": run_id, "task_id": tid, "candidate_index": idx, "raw_text": prog,
                          "processed_text": prog, "program": prog if outcome != "excluded" else "",
                          "program_sha256": sha, "source": "import", "source_ref": f"samples.jsonl:{pos * 2 + idx + 1}",
                          "model_id": "fixture-model-7b", "gen_status": "ok" if outcome != "excluded" else "excluded",
                          "excluded_reason": detail if outcome == "excluded" else None, "created_at": at})
            if decided is not None and len(outs) >= decided:
                continue
            if outcome != "excluded":
                attempts = 2 if outcome in ("flaky", "infra_error") else 1
                for attempt in range(1, attempts + 1):
                    infra = outcome == "infra_error"
                    ok = outcome == "passed" or (outcome == "flaky" and attempt == 1)
                    execs.append({"run_id": run_id, "task_id": tid, "candidate_index": idx, "attempt": attempt,
                                  "purpose": "grade" if attempt == 1 else ("infra_retry" if infra else "rerun"),
                                  "program_sha256": sha, "status": "infra_error" if infra else "ok",
                                  "public_status": "not_run" if infra else "passed",
                                  "protected_status": "not_run" if infra else ("passed" if ok else "failed"),
                                  "failure_class": None if ok else cls, "detail": "" if ok else detail,
                                  "exit_reason": "returned", "cpu_s": 0.01 * (pos + 1) + 0.001 * idx,
                                  "wall_s": 0.05 * (pos + 1), "peak_rss_kb": 9000 + 100 * pos, "out_bytes": 12,
                                  "stdout": "debug: called\n", "stderr": "", "violations_json": "[]",
                                  "runtime": "runsc", "image_digest": DIGEST, "node": "fixture-node",
                                  "container_id": f"c0ffee{pos:02d}{idx}", "started_at": at, "finished_at": at})
            outs.append({"run_id": run_id, "task_id": tid, "candidate_index": idx, "outcome": outcome,
                         "failure_class": cls if outcome != "passed" else None,
                         "public_passed": None if outcome in ("excluded", "infra_error") else 1,
                         "protected_passed": int(outcome == "passed"),
                         "attempts": 0 if outcome == "excluded" else (2 if outcome in ("flaky", "infra_error") else 1),
                         "executed_as": None, "cpu_s": 0.01 * (pos + 1), "wall_s": 0.05 * (pos + 1),
                         "reason": detail if outcome in ("excluded", "infra_error", "flaky") else "", "decided_at": at})
    store.append("candidates", cands)
    store.append("executions", execs)
    store.append("outcomes", outs)
