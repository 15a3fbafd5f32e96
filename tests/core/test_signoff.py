"""`passgate signoff`: reviewer is not the operator, terms are recorded in the chain, the gate follows."""

import pytest

from passgate.cli.main import main
from passgate.core.gate.policy import policies_dir
from passgate.core.record.store import Store, verify_chain
from tests.core.gate_kit import EGRESS_KEYS, record_run


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "record.db"
    record_run(Store(path), "r-s", policy="product-egress-mirror", tasks=6, passed=6)
    return path


@pytest.fixture
def small_policy(tmp_path):
    """product-egress-mirror with evidence bands a six-task test run can meet."""
    text = (policies_dir() / "product-egress-mirror.yaml").read_text()
    text = text.replace("name: product-egress-mirror", "name: small-egress")
    text = text.replace("tasks: {strong: 100, adequate: 30}", "tasks: {strong: 5, adequate: 3}")
    text = text.replace("interval_width: {strong: 0.10, adequate: 0.20}", "interval_width: {strong: 1.0, adequate: 1.0}")
    path = tmp_path / "small-egress.yaml"
    path.write_text(text)
    return str(path)


def text(capsys) -> str:
    """Captured output with line wrapping undone."""
    return " ".join(capsys.readouterr().out.split())


def cli(db, *args):
    return main(["--db", str(db), *args])


def sign(db, boundary, reviewer="bob", *extra):
    return cli(db, "signoff", "r-s", "--boundary", boundary, "--reviewer", reviewer,
               "--statement", f"{boundary}: reviewed the mirror config, ticket SEC-41", *extra)


def test_the_operator_cannot_sign_their_own_run(db, capsys):
    assert sign(db, "network", "Alice") == 2
    assert "Alice is the operator of run r-s: a relaxation must be reviewed by someone else" in capsys.readouterr().err
    assert Store(db).count("signoffs", "r-s") == 0


def test_a_sign_off_is_appended_to_the_chain_with_its_terms(db, capsys):
    assert sign(db, "network") == 0
    assert f"approved: {EGRESS_KEYS[0]} for run r-s by bob" in capsys.readouterr().out
    store = Store(db)
    (row,) = store.rows("signoffs", "r-s")
    assert row["boundary"] == EGRESS_KEYS[0] and row["decision"] == "approved" and row["reviewer"] == "bob"
    assert row["manifest_id"] == store.run("r-s")["manifest_id"] and row["at"] and "SEC-41" in row["statement"]
    assert verify_chain(store, "r-s") == []


def test_a_boundary_at_the_secure_default_has_nothing_to_sign(db, capsys):
    assert sign(db, "runtime") == 2
    assert "runtime is at the secure default" in capsys.readouterr().err


def test_a_relaxation_beyond_the_policy_cannot_be_signed(tmp_path, capsys):
    path = tmp_path / "runc.db"
    record_run(Store(path), "r-s", policy="secure-default", runtime="runc")
    assert sign(path, "runtime") == 2
    assert "the run used runc, which policy secure-default does not allow" in capsys.readouterr().err


def test_sign_off_needs_reviewer_and_statement(db, capsys):
    assert cli(db, "signoff", "r-s", "--boundary", "network") == 2
    assert "give --reviewer, --statement" in capsys.readouterr().err


def test_the_list_shows_relaxations_and_sign_offs(db, capsys):
    sign(db, "network")
    capsys.readouterr()
    assert cli(db, "signoff", "r-s", "--list") == 0
    out = capsys.readouterr().out
    assert "operator alice  policy product-egress-mirror" in out
    assert f"{EGRESS_KEYS[0]}" in out and "[signed]" in out and "[unsigned]" in out
    assert "approved approved" not in out and "by bob" in out


def test_gate_blocks_without_sign_off_and_allows_a_canary_with_it(db, small_policy, capsys):
    assert cli(db, "gate", "r-s", "--policy", small_policy) == 4
    out = text(capsys)
    assert "BLOCKED" in out and "has no sign-off from a reviewer other than the operator (alice)" in out
    assert sign(db, "network") == 0 and sign(db, "dependencies", "carol") == 0
    capsys.readouterr()
    assert cli(db, "gate", "r-s", "--policy", small_policy) == 3
    out = text(capsys)
    assert "CANARY ONLY (exit 3)" in out and "* sandbox" in out and "signed by bob" in out


def test_a_refusal_blocks_the_gate(db, small_policy, capsys):
    sign(db, "network")
    sign(db, "dependencies", "carol")
    assert sign(db, "network", "dave", "--refuse") == 0
    assert cli(db, "gate", "r-s", "--policy", small_policy) == 4
    assert "was refused by dave" in text(capsys)


def test_gate_json_carries_the_verdict(db, small_policy, capsys):
    import json
    assert cli(db, "gate", "r-s", "--policy", small_policy, "--json") == 4
    d = json.loads(capsys.readouterr().out)
    assert d["consequence"] == "blocked" and d["policy"]["name"] == "small-egress"
    assert [b["status"] for b in d["boundaries"] if b["relaxed"]] == ["unsigned", "unsigned"]


def test_gate_usage_errors_exit_2(db, capsys):
    assert cli(db, "gate", "r-nope") == 2
    assert cli(db, "gate", "r-s", "--policy", "no-such-policy") == 2
    assert cli(db, "gate", "r-s", "--baseline", "r-s") == 2
    assert "the baseline must be another run" in capsys.readouterr().err
