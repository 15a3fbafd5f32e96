"""The SQLite record: versioned schema, append-only chained rows, integrity."""

import sqlite3

import pytest

from passgate.core.errors import StoreError
from passgate.core.record.store import SCHEMA_VERSION, Store, verify_chain


def exec_row(run_id, i, **over):
    row = {"run_id": run_id, "task_id": f"T/{i}", "candidate_index": 0, "attempt": 1, "purpose": "grade",
           "program_sha256": "x", "status": "ok", "public_status": "passed", "protected_status": "passed",
           "failure_class": None, "detail": "", "cpu_s": 0.01 * i, "wall_s": 0.02}
    row.update(over)
    return row


def test_new_file_gets_the_current_schema_version(tmp_path):
    s = Store(tmp_path / "r.db")
    assert s.schema_version() == SCHEMA_VERSION
    assert {"runs", "tasks", "candidates", "executions", "outcomes", "signoffs", "manifests"} <= set(s.db.table_names())


def test_a_newer_schema_is_refused(tmp_path):
    path = tmp_path / "r.db"
    Store(path).db.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    with pytest.raises(StoreError, match="newer than this passgate"):
        Store(path)


def test_execution_rows_refuse_update_and_delete(tmp_path):
    s = Store(tmp_path / "r.db")
    s.append("executions", [exec_row("r1", 1)])
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        s.db.execute("UPDATE executions SET status = 'ok'")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        s.db.execute("DELETE FROM executions")


def test_duplicate_outcome_is_refused(tmp_path):
    s = Store(tmp_path / "r.db")
    row = {"run_id": "r1", "task_id": "T/0", "candidate_index": 0, "outcome": "passed", "protected_passed": 1}
    s.append("outcomes", [row])
    with pytest.raises(StoreError, match="duplicate"):
        s.append("outcomes", [row])


def test_chain_links_rows_and_survives_reopening(tmp_path):
    path = tmp_path / "r.db"
    s = Store(path)
    s.append("executions", [exec_row("r1", i) for i in range(3)])
    s.close()
    s = Store(path)
    s.append("executions", [exec_row("r1", 3)])
    rows = s.rows("executions", "r1")
    assert [r["prev_hash"] for r in rows[1:]] == [r["row_hash"] for r in rows[:-1]]
    assert verify_chain(s, "r1") == []


def test_verify_names_the_first_altered_row(tmp_path):
    s = Store(tmp_path / "r.db")
    s.append("executions", [exec_row("r1", i, protected_status="failed", failure_class="wrong_answer")
                            for i in range(5)])
    s.db.execute("DROP TRIGGER executions_no_update")
    s.db.execute("UPDATE executions SET protected_status = 'passed' WHERE task_id = 'T/2'")
    findings = verify_chain(s, "r1")
    assert findings and findings[0]["table"] == "executions" and findings[0]["key"]["task_id"] == "T/2"


def test_integrity_check_passes_on_a_fresh_file(tmp_path):
    assert Store(tmp_path / "r.db").integrity_ok()


def test_sealed_run_evidence_and_tails_catch_edits_to_the_runs_row_and_removed_rows(tmp_path):
    s = Store(tmp_path / "r.db")
    s.create_run({"run_id": "r1", "manifest_id": "m-x", "status": "created"})
    s.seal("r1", "preflight", probe_json='{"checks": [{"name": "only_loopback_interface", "ok": true}]}')
    s.append("executions", [exec_row("r1", i) for i in range(3)])
    s.seal_finish("r1", "completed")
    assert verify_chain(s, "r1") == []
    s.db.execute("UPDATE runs SET probe_json = '{\"checks\": []}' WHERE run_id = 'r1'")
    assert any("probe_json differs" in f["reason"] for f in verify_chain(s, "r1"))
    s.db.execute("UPDATE runs SET probe_json = ? WHERE run_id = 'r1'",
                 ['{"checks": [{"name": "only_loopback_interface", "ok": true}]}'])
    assert verify_chain(s, "r1") == []
    s.db.execute("DROP TRIGGER executions_no_delete")
    s.db.execute("DELETE FROM executions WHERE task_id = 'T/2'")     # the tail: no chain link breaks
    assert any(f["table"] == "executions" and "sealed" in f["reason"] for f in verify_chain(s, "r1"))


def test_a_version_1_file_is_migrated_in_place(tmp_path):
    path = tmp_path / "old.db"
    s = Store(path)
    s.db.execute("DROP TABLE evidence")
    for index in ("outcomes_report", "candidates_report", "executions_report"):
        s.db.execute(f"DROP INDEX {index}")
    s.db.execute("CREATE INDEX idx_executions_run_id_task_id_candidate_index "
                 "ON executions (run_id, task_id, candidate_index)")
    s.db.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
    s.close()
    s = Store(path)
    assert s.schema_version() == SCHEMA_VERSION == 10
    assert "evidence" in s.db.table_names() and "cpu_total_s" in s.db["executions"].columns_dict
    indexes = {r[0] for r in s.db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert {"outcomes_report", "candidates_report", "executions_report"} <= indexes
    assert "idx_executions_run_id_task_id_candidate_index" not in indexes
    s.create_run({"run_id": "r1", "manifest_id": "m-x", "status": "created"})
    s.seal("r1", "start", runtime="runsc")     # the new chain works on the migrated file


V4_COLUMNS = (("runs", "grading_protocol"), ("executions", "classic_status"), ("executions", "classic_class"),
              ("executions", "evidence_json"), ("tasks", "classic_suffix"))


def test_rows_written_before_v4_still_verify_after_its_columns_are_added(tmp_path):
    path = tmp_path / "v3.db"
    s = Store(path)
    for table, column in V4_COLUMNS:                      # the file as v3 wrote it
        s.db.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
    s.db.execute("UPDATE meta SET value = '3' WHERE key = 'schema_version'")
    s.create_run({"run_id": "r1", "manifest_id": "m-x", "status": "created"})
    s.append("executions", [exec_row("r1", i) for i in range(3)])   # hashed over the v3 columns
    s.close()
    s = Store(path)                                       # migrates: the v4 columns arrive, NULL
    assert s.schema_version() == SCHEMA_VERSION and "evidence_json" in s.db["executions"].columns_dict
    assert verify_chain(s, "r1") == []
    s.append("executions", [{**exec_row("r1", 3), "classic_status": "passed", "evidence_json": "{}"}])
    assert verify_chain(s, "r1") == []
    s.db.execute("DROP TRIGGER executions_no_update")
    s.db.execute("UPDATE executions SET classic_status = 'failed' WHERE task_id = 'T/3'")
    assert verify_chain(s, "r1")[0]["table"] == "executions"


def test_the_reports_grouped_scans_read_covering_indexes_in_key_order(tmp_path):
    """A million-row report stays fast only while each scan reads an index alone and needs no sort."""
    from passgate.core.score.data import Rescore, load_records
    s = Store(tmp_path / "r.db")
    s.create_run({"run_id": "r1", "manifest_id": "m-x", "status": "created"})
    s.append("executions", [exec_row("r1", i) for i in range(3)])
    seen = []
    s.db.conn.set_trace_callback(seen.append)
    for rescore in (Rescore(), Rescore(max_candidates=1), Rescore(cpu_limit_s=0.5), Rescore(cpu_limit_factor=2.0)):
        load_records(s, "r1", rescore, parallel=False)
    s.db.conn.set_trace_callback(None)
    scans = [q for q in seen if "GROUP BY" in q and "json_each" not in q]
    assert {t for q in scans for t in ("outcomes", "candidates", "executions") if f"FROM {t}" in q} == \
           {"outcomes", "candidates", "executions"}
    for sql in scans:
        plan = " | ".join(r[3] for r in s.db.conn.execute("EXPLAIN QUERY PLAN " + sql))
        assert "COVERING INDEX" in plan and "TEMP B-TREE" not in plan, (sql, plan)


def test_a_version_4_file_gains_the_append_only_scans_chain(tmp_path):
    path = tmp_path / "v4.db"
    s = Store(path)
    s.db.execute("DROP TABLE scans")
    s.db.execute("UPDATE meta SET value = '4' WHERE key = 'schema_version'")
    s.close()
    s = Store(path)
    assert s.schema_version() == SCHEMA_VERSION and "scans" in s.db.table_names()
    s.append("scans", [{"run_id": "r1", "task_id": "T/0", "candidate_index": 0, "findings": 1,
                        "findings_json": [{"rule_id": "B324"}]}])
    assert verify_chain(s, "r1") == []
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        s.db.execute("UPDATE scans SET findings = 0")


def test_v6_adds_repository_rows_that_chain_and_stay_append_only(tmp_path):
    import sqlite3
    path = tmp_path / "v5.db"
    s = Store(path)
    s.db.execute("DROP TABLE repo_results")
    s.db.execute("ALTER TABLE tasks DROP COLUMN repo_json")
    s.db.execute("UPDATE meta SET value = '5' WHERE key = 'schema_version'")
    s.close()
    s = Store(path)
    assert s.schema_version() == SCHEMA_VERSION and "repo_json" in s.db["tasks"].columns_dict
    s.create_run({"run_id": "r1", "manifest_id": "m-x", "status": "created"})
    s.append("repo_results", [{"run_id": "r1", "task_id": "t", "candidate_index": i, "purpose": "grade",
                               "applies": 1, "failure_class": None, "at": "now"} for i in range(2)])
    assert verify_chain(s, "r1") == []
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        s.db.execute("UPDATE repo_results SET applies = 0")


def test_v7_candidates_written_before_it_still_verify_and_suggestion_logs_chain(tmp_path):
    import sqlite3
    path = tmp_path / "v6.db"
    s = Store(path)
    s.db.execute("DROP TABLE acceptance")
    s.db.execute("ALTER TABLE tasks DROP COLUMN infill_suffix")
    s.db.execute("ALTER TABLE candidates DROP COLUMN first_token_ms")
    s.db.execute("UPDATE meta SET value = '6' WHERE key = 'schema_version'")
    s.create_run({"run_id": "r1", "manifest_id": "m-x", "status": "created"})
    row = {"run_id": "r1", "task_id": "t", "raw_text": "x", "processed_text": "x", "program": "x",
           "source": "generate", "latency_ms": 12.5, "gen_status": "ok", "created_at": "now"}
    s.append("candidates", [{**row, "candidate_index": 0}])          # hashed over the v6 columns
    s.close()
    s = Store(path)
    assert s.schema_version() == SCHEMA_VERSION == 10 and "first_token_ms" in s.db["candidates"].columns_dict
    assert verify_chain(s, "r1") == []
    s.append("candidates", [{**row, "candidate_index": 1, "first_token_ms": 3.5}])
    s.append("acceptance", [{"run_id": "r1", "task_id": "t", "candidate_index": 0, "shown": 1, "accepted": 1,
                             "edited_after": 0, "source_ref": "log.jsonl:1", "log_sha256": "ab", "at": "now"}])
    assert verify_chain(s, "r1") == []
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        s.db.execute("UPDATE acceptance SET accepted = 0")
