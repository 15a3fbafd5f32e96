"""`passgate verify`: a real SQLite file, rows appended through Store, then altered with plain SQL."""

import json
import sqlite3

from passgate.cli.main import main
from passgate.core.record.store import Store
from tests.core.gate_kit import record_run


def verify(db, run_id, capsys):
    """Exit code and output, its lines joined (the command wraps to the terminal's width)."""
    code = main(["--db", str(db), "verify", run_id])
    return code, " ".join(capsys.readouterr().out.split())


def recorded(tmp_path):
    db = tmp_path / "record.db"
    store = Store(db)
    record_run(store, "r-v", tasks=6, passed=4)
    store.close()
    return db


def test_an_untouched_run_is_intact(tmp_path, capsys):
    code, out = verify(recorded(tmp_path), "r-v", capsys)
    assert code == 0 and "intact: r-v" in out
    assert "outcomes: 6 rows" in out and "executions: 8 rows" in out


def test_an_outcome_flipped_with_plain_sql_is_named(tmp_path, capsys):
    db = recorded(tmp_path)
    con = sqlite3.connect(db)
    con.execute("DROP TRIGGER outcomes_no_update")
    con.execute("UPDATE outcomes SET outcome = 'passed', protected_passed = 1 WHERE run_id = 'r-v' AND task_id = 'P/5'")
    con.commit()
    con.close()
    code, out = verify(db, "r-v", capsys)
    assert code == 1
    assert "ALTERED r-v: outcomes row 6 (task P/5, candidate 0): row content does not match its hash" in out
    assert "warning: the append-only trigger outcomes_no_update is missing" in out


def test_the_first_altered_row_is_named_not_a_later_one(tmp_path, capsys):
    db = recorded(tmp_path)
    con = sqlite3.connect(db)
    con.execute("DROP TRIGGER executions_no_update")
    con.execute("UPDATE executions SET cpu_s = 0.5 WHERE run_id = 'r-v' AND task_id IN ('P/2', 'P/4')")
    con.commit()
    con.close()
    code, out = verify(db, "r-v", capsys)
    assert code == 1 and "executions row 3 (task P/2, candidate 0, execution 3)" in out


def test_a_deleted_middle_row_breaks_the_link_to_the_next(tmp_path, capsys):
    db = recorded(tmp_path)
    con = sqlite3.connect(db)
    con.execute("DROP TRIGGER candidates_no_delete")
    con.execute("DELETE FROM candidates WHERE run_id = 'r-v' AND task_id = 'P/1'")
    con.commit()
    con.close()
    code, out = verify(db, "r-v", capsys)
    assert code == 1 and "candidates row 3 (task P/2, candidate 0): prev_hash does not match" in out


def test_a_deleted_last_outcome_is_caught_as_missing(tmp_path, capsys):
    db = recorded(tmp_path)
    con = sqlite3.connect(db)
    con.execute("DROP TRIGGER outcomes_no_delete")
    con.execute("DELETE FROM outcomes WHERE run_id = 'r-v' AND task_id = 'P/5'")
    con.commit()
    con.close()
    code, out = verify(db, "r-v", capsys)
    assert code == 1 and "1 candidates of this completed run have no outcome" in out


def test_a_rewritten_manifest_is_caught(tmp_path, capsys):
    db = recorded(tmp_path)
    con = sqlite3.connect(db)
    (canonical,) = con.execute("SELECT canonical_json FROM manifests").fetchone()
    loose = json.loads(canonical)
    loose["gate"]["policy"] = "product-egress-mirror"
    con.execute("UPDATE manifests SET canonical_json = ?", [json.dumps(loose)])
    con.commit()
    con.close()
    code, out = verify(db, "r-v", capsys)
    assert code == 1 and "canonical JSON hashes to" in out


def test_an_altered_record_makes_the_gate_block(tmp_path, capsys):
    db = recorded(tmp_path)
    con = sqlite3.connect(db)
    con.execute("DROP TRIGGER outcomes_no_update")
    con.execute("UPDATE outcomes SET protected_passed = 1 WHERE run_id = 'r-v'")
    con.commit()
    con.close()
    assert main(["--db", str(db), "gate", "r-v"]) == 4
    assert "The record was altered: outcomes row 5" in capsys.readouterr().out


def test_an_unknown_run_is_a_usage_error(tmp_path, capsys):
    assert main(["--db", str(recorded(tmp_path)), "verify", "r-nope"]) == 2
    assert "no run 'r-nope'" in capsys.readouterr().err
