"""A small run whose executions record how their assertions were decided, written through `Store`.

Two slices: `strings` decided by the grader (outside, one site visible), `parsing` mostly in the
candidate's process. Around them, what the counts must leave out or follow: a rerun that decided
differently, a candidate executed as an identical program, a program that never reached its test,
an infra error, an excluded candidate and a canary.
"""

from __future__ import annotations

import json

from passgate.core.manifest import parse_manifest
from passgate.core.record.store import Store
from tests.core.gate_kit import DIGEST, MANIFEST, PREFLIGHT, PROBE


def integrity(outside: int, in_process: int = 0, visible: int = 0, control: str = "grader") -> str:
    return json.dumps({"outside": outside, "visible": visible, "in_process": in_process, "control": control})


# (task_id, slice, candidate_index, outcome, attempts: [(purpose, status, integrity_json)], executed_as)
VERDICTS = [
    ("S/0", "strings", 0, "passed", [("grade", "ok", integrity(5))], None),
    ("S/0", "strings", 1, "failed", [("grade", "ok", integrity(3, visible=1)),
                                     ("rerun", "ok", integrity(0, in_process=9, control="process"))], None),
    ("S/0", "strings", 2, "passed", [], 0),                                  # identical to candidate 0
    ("S/1", "strings", 0, "failed", [("grade", "infra_error", None), ("infra_retry", "ok", integrity(2))], None),
    ("P/0", "parsing", 0, "passed", [("grade", "ok", integrity(1, in_process=3, control="process"))], None),
    ("P/0", "parsing", 1, "failed", [("grade", "ok", None)], None),         # never reached its test
    ("P/1", "parsing", 0, "passed", [("grade", "ok", integrity(1, in_process=1))], None),
    ("P/1", "parsing", 1, "infra_error", [("grade", "infra_error", None)], None),
    ("P/1", "parsing", 2, "excluded", [], None),
    ("passgate-canary/0", "canary", 0, "passed", [("grade", "ok", integrity(0, in_process=7))], None),
]


def record_integrity_run(store: Store, run_id: str = "r-integrity", *, protocol: int | None = 3,
                         verdicts=VERDICTS, policy: str = "secure-default") -> str:
    """Write a completed run with these verdicts; `protocol` None leaves grading_protocol unset."""
    m = parse_manifest(MANIFEST.format(digest=DIGEST, policy=policy, extra=""), "/tmp/integrity/manifest.yaml")
    store.save_manifest(m.manifest_id, m.name, m.canonical_json(), "", "/tmp/integrity/manifest.yaml")
    checks = {"probe_json": [{"name": n, "ok": True, "saw": s, "boundary": b} for n, b, s in PROBE],
              "preflight_json": [{"name": n, "ok": True, "saw": s, "boundary": b} for n, b, s in PREFLIGHT]}
    store.create_run({"run_id": run_id, "manifest_id": m.manifest_id, "name": m.name, "status": "completed",
                      "operator": "alice", "policy": policy, "model": "acme-coder-7b", "runtime": "runsc",
                      "image_digest": DIGEST, "grading_protocol": protocol,
                      **{k: json.dumps({"checks": v}) for k, v in checks.items()}})
    tasks = list(dict.fromkeys((v[0], v[1]) for v in verdicts))
    store.save_tasks(run_id, [{"task_id": t, "position": i, "slice": s, "set_id": s, "exposure": "holdout",
                               "prompt": f"def f{i}(x):\n", "entry_point": f"f{i}",
                               "protected_tests": f"assert f{i}(1) == 1"} for i, (t, s) in enumerate(tasks)])
    store.append("candidates", [{"run_id": run_id, "task_id": t, "candidate_index": i, "program": "def f(x): ...",
                                 "program_sha256": f"{t}-{i if same is None else same}", "source": "import",
                                 "gen_status": "excluded" if out == "excluded" else "ok"}
                                for t, _, i, out, _, same in verdicts])
    store.append("executions", [{"run_id": run_id, "task_id": t, "candidate_index": i, "attempt": n,
                                 "purpose": purpose, "status": status, "integrity_json": blob,
                                 "protected_status": "not_run" if status != "ok" else
                                 ("passed" if out == "passed" else "failed"), "violations_json": "[]"}
                                for t, _, i, out, attempts, _ in verdicts
                                for n, (purpose, status, blob) in enumerate(attempts, start=1)])
    store.append("outcomes", [{"run_id": run_id, "task_id": t, "candidate_index": i, "outcome": out,
                               "failure_class": None if out == "passed" else out if out != "failed" else "wrong_answer",
                               "protected_passed": int(out == "passed"), "executed_as": same,
                               "attempts": len(attempts)} for t, _, i, out, attempts, same in verdicts])
    return run_id
