"""gather_facts reads the record the engine writes: checks, runtime, slices, outcome counts, sign-offs."""

import json

from passgate.core.gate import gather_facts, verdict
from passgate.core.record.store import Store
from tests.core.gate_kit import PREFLIGHT, record_run, secure


def test_a_healthy_record_reads_back_as_facts(tmp_path):
    store = Store(tmp_path / "r.db")
    record_run(store, "r-g", tasks=6, passed=4)
    f = gather_facts(store, "r-g", secure())
    assert (f.status, f.operator, f.runtime, f.rerun_policy, f.rerun_count) == ("completed", "alice", "runsc", "failures", 2)
    assert len(f.probe) == 16 and all(c.ok for c in f.probe + f.preflight)
    assert f.counts.counted == 6 and f.counts.passed == 4 and f.tasks_with_protected == 6
    assert [(s.name, s.kind, s.exposure, s.tasks) for s in f.slices] == [("product", "product", "holdout", 6)]
    assert f.per_task["P/0"][:3] == (1, 1, "product") and f.per_task["P/5"][:3] == (1, 0, "product")
    assert f.score.pass_at_1 == 4 / 6 and f.score.ci_low is not None and f.chain_findings == ()


def test_a_public_benchmark_row_claiming_holdout_is_still_exposed(tmp_path):
    store = Store(tmp_path / "r.db")
    record_run(store, "r-p", tasks=2, passed=2)
    store.db.execute("UPDATE tasks SET slice = 'humaneval', set_id = 'humaneval' WHERE run_id = 'r-p'")
    (s,) = gather_facts(store, "r-p", secure()).slices
    assert (s.kind, s.exposure) == ("humaneval", "exposed")


def test_a_refused_run_with_a_failed_check_is_blocked_and_names_what_it_saw(tmp_path):
    store = Store(tmp_path / "r.db")
    record_run(store, "r-x", tasks=2, passed=2, status="refused")
    pre = [{"name": n, "ok": n != "no_host_mounts", "boundary": b,
            "saw": "mounts ['/home/alice/src']" if n == "no_host_mounts" else s} for n, b, s in PREFLIGHT]
    store.update_run("r-x", preflight_json=json.dumps({"checks": pre}), error="sandbox boundary open")
    v = verdict(gather_facts(store, "r-x", secure()), secure())
    assert v.consequence == "blocked" and v.risk == "critical"
    assert any("no_host_mounts failed (mounts /home/alice/src)" in r for r in v.risk_reasons)   # in words
    assert next(b for b in v.boundaries if b.boundary == "mounts").used == "host-paths"


def test_the_runtime_is_what_the_container_check_saw_when_it_disagrees(tmp_path):
    store = Store(tmp_path / "r.db")
    record_run(store, "r-r", tasks=2, passed=2)
    pre = [{"name": n, "ok": n != "runtime", "boundary": b,
            "saw": "runtime 'runc' (manifest: 'runsc')" if n == "runtime" else s} for n, b, s in PREFLIGHT]
    store.update_run("r-r", preflight_json=json.dumps({"checks": pre}))
    assert gather_facts(store, "r-r", secure()).runtime == "runc"


def test_timeouts_violations_and_the_public_gap_are_counted(tmp_path):
    store = Store(tmp_path / "r.db")
    record_run(store, "r-c", tasks=4, passed=4)
    store.append("candidates", [{"run_id": "r-c", "task_id": "P/0", "candidate_index": i, "program": "x",
                                 "program_sha256": f"t{i}", "gen_status": "ok"} for i in (1, 2)])
    store.append("executions", [{"run_id": "r-c", "task_id": "P/0", "candidate_index": 2, "attempt": 1,
                                 "purpose": "grade", "status": "ok", "failure_class": "runtime_error",
                                 "violations_json": json.dumps(["connect to 10.0.0.1"])}])
    store.append("outcomes", [
        {"run_id": "r-c", "task_id": "P/0", "candidate_index": 1, "outcome": "failed", "failure_class": "timeout",
         "public_passed": 1, "protected_passed": 0, "attempts": 1},
        {"run_id": "r-c", "task_id": "P/0", "candidate_index": 2, "outcome": "failed",
         "failure_class": "runtime_error", "public_passed": 0, "protected_passed": 0, "attempts": 1}])
    c = gather_facts(store, "r-c", secure()).counts
    assert (c.counted, c.timeouts, c.sandbox_violations) == (6, 1, 1)
    assert (c.public_graded, c.public_passed, c.protected_passed_of_public) == (6, 5, 4)
