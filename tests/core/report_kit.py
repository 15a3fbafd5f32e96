"""A small recorded run for report tests, written through `Store` exactly as the engine writes it."""

from __future__ import annotations

import json
from dataclasses import dataclass

from passgate.core.manifest import (
    CandidatesContract,
    ExecutionContract,
    ImportSpec,
    IntervalSpec,
    Manifest,
    ModelSpec,
    ScoringContract,
    TasksContract,
    TaskSetSpec,
    TimeoutSpec,
)
from passgate.core.record.store import Store

PROBE = {"checks": [{"name": "only_loopback_interface", "ok": True, "saw": "interfaces ['lo']"}]}
PREFLIGHT = {"checks": [{"name": "network_none", "ok": True, "saw": "network mode 'none'"}]}


@dataclass
class Cand:
    """One candidate and how it ended. outcome 'pending' writes no outcome row."""

    task: str
    index: int
    outcome: str                     # passed | failed | flaky | infra_error | excluded | pending
    public: int | None = None        # public_passed
    cpu: float = 0.01                # deciding attempt's CPU seconds
    cls: str | None = None           # failure class
    reason: str = ""
    logprob: float | None = None
    tokens: int = 10
    retries: int = 0                 # extra attempts before the deciding one (each cpu/2)


@dataclass
class TaskSpec:
    task_id: str
    slice: str
    tags: tuple[str, ...] = ()
    public_tests: str = ""
    cpu_limit_s: float | None = 2.0
    set_id: str = ""


def manifest(k=(1,), aggregation="micro", weights=None, resamples=400, seed=3, level=0.95,
             method="bootstrap") -> Manifest:
    """The kit's manifest with these scoring settings: the model's defaults elsewhere."""
    return Manifest(name="kit", tasks=TasksContract(sets=(TaskSetSpec("humaneval"), TaskSetSpec("mbpp"))),
                    candidates=CandidatesContract("import", ModelSpec(name="kit-model", temperature=0.2),
                                                  ImportSpec("kit.jsonl")),
                    execution=ExecutionContract(timeout=TimeoutSpec(floor_s=1.0)),
                    scoring=ScoringContract(k=tuple(k), aggregation=aggregation,
                                            weights={s: float(w) for s, w in (weights or {}).items()},
                                            interval=IntervalSpec(method, level, resamples, seed)))


def record(store: Store, run_id: str, tasks: list[TaskSpec], cands: list[Cand], *, scoring: Manifest | None = None,
           model: str = "kit-model") -> str:
    """Write a run with these tasks and candidates (and `scoring`, the kit's manifest by default); returns the run id."""
    m = scoring if scoring is not None else manifest()
    manifest_id = "m-" + run_id
    store.save_manifest(manifest_id, "kit", m.canonical_json(), "name: kit\n", "kit.yaml")
    store.create_run({"run_id": run_id, "manifest_id": manifest_id, "name": "kit", "status": "completed",
                      "model": model, "runtime": "runsc", "image": "passgate-sandbox:test",
                      "image_digest": "sha256:" + "cd" * 32, "probe_json": PROBE, "preflight_json": PREFLIGHT,
                      "limits_json": {"cpu_s": 2.0}, "seeds_json": {"random_seed": 0}})
    store.save_tasks(run_id, [{"task_id": t.task_id, "position": i, "slice": t.slice, "set_id": t.set_id or t.slice,
                               "set_sha256": "e" * 64, "set_revision": "v1", "exposure": "public",
                               "tags_json": list(t.tags), "public_tests": t.public_tests,
                               "cpu_limit_s": t.cpu_limit_s, "prompt": "", "protected_tests": "assert True"}
                              for i, t in enumerate(tasks)])
    store.append("candidates", [_candidate_row(run_id, c, model) for c in cands])
    store.append("executions", [row for c in cands for row in _execution_rows(run_id, c)])
    store.append("outcomes", [_outcome_row(run_id, c) for c in cands if c.outcome != "pending"])
    return run_id


def _candidate_row(run_id: str, c: Cand, model: str) -> dict:
    return {"run_id": run_id, "task_id": c.task, "candidate_index": c.index, "raw_text": "", "processed_text": "",
            "program": "", "program_sha256": f"{c.task}-{c.index}", "source": "import", "prompt_tokens": c.tokens,
            "completion_tokens": 2 * c.tokens, "model_id": model, "mean_logprob": c.logprob,
            "gen_status": "excluded" if c.outcome == "excluded" else "ok",
            "excluded_reason": c.reason if c.outcome == "excluded" else None}


def _execution_rows(run_id: str, c: Cand) -> list[dict]:
    if c.outcome in ("excluded", "pending"):
        return []
    rows = []
    for attempt in range(c.retries + 1):
        last = attempt == c.retries
        infra = c.outcome == "infra_error" or not last
        verdict = "passed" if c.outcome == "passed" else "failed"
        rows.append({"run_id": run_id, "task_id": c.task, "candidate_index": c.index, "attempt": attempt + 1,
                     "purpose": "grade" if attempt == 0 else "infra_retry",
                     "status": "infra_error" if infra else "ok",
                     "public_status": "not_run" if c.public is None else ("passed" if c.public else "failed"),
                     "protected_status": "not_run" if infra else verdict,
                     "failure_class": "infra_error" if infra else c.cls,
                     "cpu_s": c.cpu if last else c.cpu / 2, "wall_s": 2 * c.cpu, "peak_rss_kb": 1000})
    return rows


def _outcome_row(run_id: str, c: Cand) -> dict:
    counted = c.outcome in ("passed", "failed", "flaky")
    return {"run_id": run_id, "task_id": c.task, "candidate_index": c.index, "outcome": c.outcome,
            "failure_class": c.cls if c.outcome != "infra_error" else "infra_error",
            "public_passed": c.public if counted else None, "protected_passed": int(c.outcome == "passed"),
            "attempts": c.retries + 1, "cpu_s": c.cpu if counted else None, "wall_s": 2 * c.cpu if counted else None,
            "reason": c.reason}


# ---- the standard small run ----------------------------------------------------------------
#
# humaneval: H/0 3 passes of 4 (3 public passes), H/1 1 pass of 4 + 1 flaky, H/2 0 of 2 (+1 infra_error,
# +1 excluded), H/3 every candidate excluded.  mbpp: M/0 4 of 4 (no public tests), M/1 1 of 3 + 1 pending.

TASKS = [TaskSpec("H/0", "humaneval", ("strings",), "assert f(1) == 1"),
         TaskSpec("H/1", "humaneval", ("math",), "assert f(2) == 2"),
         TaskSpec("H/2", "humaneval", ("math",), "assert f(3) == 3"),
         TaskSpec("H/3", "humaneval", (), "assert f(4) == 4"),
         TaskSpec("M/0", "mbpp", ("strings",), ""),
         TaskSpec("M/1", "mbpp", (), "", cpu_limit_s=None)]

CANDS = [
    Cand("H/0", 0, "failed", public=0, cls="wrong_answer", cpu=0.02, logprob=-0.9),
    Cand("H/0", 1, "passed", public=1, cpu=1.5, logprob=-0.2),
    Cand("H/0", 2, "passed", public=1, cpu=0.03, logprob=-0.5),
    Cand("H/0", 3, "passed", public=1, cpu=0.04, logprob=-0.7),
    Cand("H/1", 0, "failed", public=0, cls="timeout", cpu=2.0, logprob=-0.1),
    Cand("H/1", 1, "flaky", public=1, cls="wrong_answer", cpu=0.05, reason="1/2 attempts passed", logprob=-0.3),
    Cand("H/1", 2, "passed", public=1, cpu=0.06, logprob=-0.4, retries=1),
    Cand("H/1", 3, "failed", public=0, cls="syntax_error", cpu=0.001, logprob=-2.0),
    Cand("H/1", 4, "failed", public=1, cls="runtime_error", cpu=0.07, logprob=-1.0),
    Cand("H/2", 0, "failed", public=0, cls="memory_exceeded", cpu=0.5),
    Cand("H/2", 1, "failed", public=0, cls="sandbox_violation", cpu=0.2),
    Cand("H/2", 2, "infra_error", cls="infra_error", reason="evaluator failed 3 times: container died", retries=2),
    Cand("H/2", 3, "excluded", reason="unmatched import line 7"),
    Cand("H/3", 0, "excluded", reason="generation error: HTTP 500"),
    Cand("M/0", 0, "passed", cpu=0.01),
    Cand("M/0", 1, "passed", cpu=0.02),
    Cand("M/0", 2, "passed", cpu=0.03),
    Cand("M/0", 3, "passed", cpu=0.04),
    Cand("M/1", 0, "failed", cls="output_exceeded", cpu=0.3),
    Cand("M/1", 1, "passed", cpu=1.2),
    Cand("M/1", 2, "failed", cls="wrong_answer", cpu=0.1),
    Cand("M/1", 3, "pending"),
]


def standard_run(store: Store, run_id: str = "run-kit", **manifest_kw) -> str:
    return record(store, run_id, TASKS, CANDS, scoring=manifest(**manifest_kw))


# ---- what the sandbox and the scanners add to a record ------------------------------------------
#
# For the sections the standard run leaves unrecorded or empty: a static finding on a passing and on a
# failing candidate, tamper tripwires and a refused import on an extra attempt, a contract scan with a
# changed signature, and a graded and a reference patch of a repository task.

FINDING = {"scanner": "bandit 1.9.4", "rule_id": "B602", "rule": "subprocess_popen_with_shell_equals_true",
           "severity": "high", "confidence": "high", "line": 1, "text": "subprocess call with shell=True"}


def record_findings(store: Store, run_id: str) -> None:
    """Append the scanners', the tripwires', the contract's and a repository's rows to a standard run."""
    scanners = json.dumps({"bandit": "1.9.4", "detect-secrets": "1.5.0"})
    store.append("scans", [{"run_id": run_id, "task_id": t, "candidate_index": i, "program_sha256": f"{t}-{i}",
                            "scanners_json": scanners, "parsed": 1, "findings": len(found),
                            "max_severity": "high" if found else None, "findings_json": json.dumps(found)}
                           for t, i, found in (("H/0", 1, [FINDING]), ("H/0", 0, [FINDING]), ("M/0", 0, []))])
    store.append("executions", [{"run_id": run_id, "task_id": "H/0", "candidate_index": 0, "attempt": 9,
                                 "purpose": "rerun", "status": "ok", "protected_status": "failed",
                                 "failure_class": "wrong_answer", "cpu_s": 0.01, "wall_s": 0.02,
                                 "tamper_json": json.dumps(["settrace", "getframe: f_back"]),
                                 "imports_json": json.dumps([{"module": "socket", "top": "socket", "line": 1,
                                                              "how": "import", "in": ""}])}])
    store.append("contract_scans", [{"run_id": run_id, "task_id": "H/1", "candidate_index": 0,
                                     "program_sha256": "H/1-0", "parsed": 1, "disallowed": 1, "dynamic": 0,
                                     "imports_json": json.dumps([{"top": "socket", "allowed": False}]),
                                     "signature_changed": 1,
                                     "signature_changes_json": json.dumps(["parameter b was removed"])}])
    store.append("repo_results", [_repo_row(run_id, purpose) for purpose in ("grade", "selfcheck")])


def _repo_row(run_id: str, purpose: str) -> dict:
    scan = {"files": [{"path": "src/app.py"}], "test_files": ["tests/test_app.py"], "test_config": [],
            "dependency_files": [], "secrets": []}
    return {"run_id": run_id, "task_id": "H/0", "candidate_index": 0, "attempt": 1, "purpose": purpose,
            "applies": 1, "apply_error": None, "files_changed": 2, "lines_added": 5, "lines_removed": 1,
            "reviewer_burden": 7, "refused_json": "[]", "scan_json": json.dumps(scan), "build_status": "passed",
            "build_log_tail": "", "public_status": "passed", "protected_status": "failed",
            "public_tests_json": json.dumps({"t::a": "passed"}),
            "protected_tests_json": json.dumps({"t::a": "passed", "t::b": "failed"}),
            "tamper_json": json.dumps(["edited a test"]), "rollback_applies": 1, "rollback_restores": 1,
            "failure_class": "test_failed", "detail": "1 of 2 protected tests failed", "at": "2026-12-01T09:00:00"}
