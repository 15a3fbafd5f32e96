"""What-if lab: re-scoring from the stored record, nothing executed again."""

from __future__ import annotations

import pytest

from passgate.core.errors import ConfigError
from passgate.core.record.store import Store
from passgate.core.score.report import build_report
from passgate.core.score.whatif import parse_scenario
from tests.core.report_kit import CANDS, standard_run


@pytest.fixture()
def store(tmp_path):
    s = Store(tmp_path / "whatif.db")
    standard_run(s, k=(1, 3))
    yield s
    s.close()


def scenario(store, *specs):
    return build_report(store, "run-kit", whatif=list(specs))["whatif"]


def by_k(rows, k):
    return next(r for r in rows if r["k"] == k)


def test_parse_settings_and_refuse_bad_ones():
    s = parse_scenario("k=5,1 timeout=0.5x; verifier=public slices=humaneval:2,mbpp candidates=3")
    assert (s.k, s.cpu_limit_factor, s.verifier, s.candidates) == ((1, 5), 0.5, "public", 3)
    assert dict(s.slices) == {"humaneval": 2.0, "mbpp": 1.0}
    assert parse_scenario("timeout=1.5s").cpu_limit_s == 1.5
    for bad in ("", "speed=fast", "k=0", "timeout=-1", "verifier=oracle", "aggregation=median", "k=1 k=2",
                "candidates=none", "timeout=1 timeout=2x"):
        with pytest.raises(ConfigError):
            parse_scenario(bad)


def test_stricter_timeout_turns_slow_passes_into_timeouts(store):
    (w,) = scenario(store, "timeout=1.0")
    # passes above 1.0 CPU s: H/0 #1 (1.5 s) and M/1 #1 (1.2 s)
    row = by_k(w["pass_at_k"], 1)
    assert row["value"] == pytest.approx((0.5 + 0.2 + 0 + 1 + 0) / 5)
    assert row["baseline"] == pytest.approx((0.75 + 0.2 + 0 + 1 + 1 / 3) / 5)
    assert row["delta"] == pytest.approx(row["value"] - row["baseline"])
    assert w["timeouts"] == {"count": 3, "rate": pytest.approx(3 / 18), "passes_turned_timeouts": 2}
    capped = sum(min(c.cpu, 1.0) + c.retries * min(c.cpu / 2, 1.0)
                 for c in CANDS if c.outcome not in ("excluded", "pending"))
    assert w["cost"]["sandbox_cpu_s"] == pytest.approx(capped, abs=1e-5)
    assert w["cost"]["delta_cpu_s"] < 0


def test_timeout_as_a_factor_of_each_tasks_calibrated_limit(store):
    (w,) = scenario(store, "timeout=0.6x")
    # limits are 2.0 s -> 1.2 s: H/0 #1 (1.5 s) times out; M/1 has no calibrated limit and keeps its pass
    assert by_k(w["pass_at_k"], 1)["value"] == pytest.approx((0.5 + 0.2 + 0 + 1 + 1 / 3) / 5)
    assert w["timeouts"]["passes_turned_timeouts"] == 1


def test_public_verifier_scores_the_public_tests(store):
    rep = build_report(store, "run-kit", whatif=["verifier=public"])
    (w,) = rep["whatif"]
    # public verdicts: H/0 3/4, H/1 3/5, H/2 0/2; tasks without public tests are not estimable
    row = by_k(w["pass_at_k"], 1)
    assert row["value"] == pytest.approx((0.75 + 0.6 + 0) / 3)
    assert row["value"] == pytest.approx(by_k(rep["public_vs_protected"]["pass_at_k"], 1)["public"]["value"])
    assert row["denominator"]["tasks"] == 3
    assert w["cost"]["notes"] and w["cost"]["delta_cpu_s"] == 0


def test_slice_mix_and_k_and_aggregation(store):
    only_he, macro, ks = scenario(store, "slices=humaneval", "aggregation=macro", "k=2")
    assert by_k(only_he["pass_at_k"], 1)["value"] == pytest.approx((0.75 + 0.2 + 0) / 3)
    assert only_he["tasks"] == 4
    humaneval_cpu = sum(c.cpu + c.retries * c.cpu / 2 for c in CANDS
                        if c.task.startswith("H") and c.outcome not in ("excluded", "pending"))
    assert only_he["cost"]["sandbox_cpu_s"] == pytest.approx(humaneval_cpu, abs=1e-5)
    assert by_k(macro["pass_at_k"], 1)["value"] == pytest.approx(((0.95 / 3) + (4 / 3) / 2) / 2)
    assert [r["k"] for r in ks["pass_at_k"]] == [2]
    # pass@2 on H/2 (n=2, c=0) is 0, estimable
    assert by_k(ks["pass_at_k"], 2)["denominator"]["tasks"] == 5


def test_fewer_candidates_per_task(store):
    (w,) = scenario(store, "candidates=1")
    # first candidate only: H/0 failed, H/1 failed, H/2 failed, M/0 passed, M/1 failed; H/3 excluded
    assert by_k(w["pass_at_k"], 1)["value"] == pytest.approx(1 / 5)
    assert by_k(w["pass_at_k"], 3)["denominator"]["tasks"] == 0
    assert w["cost"]["attempts"] == 5 < w["cost"]["baseline_attempts"]


def test_unknown_slice_is_an_error_naming_the_slices(store):
    with pytest.raises(ConfigError, match="humaneval, mbpp"):
        scenario(store, "slices=apps")


def test_whatif_from_the_command_line(store, capsys):
    from passgate.cli.main import main
    assert main(["--db", str(store.path), "report", "run-kit", "--whatif", "timeout=1", "--whatif",
                 "k=1,5;verifier=public"]) == 0
    out = capsys.readouterr().out
    assert "What-if" in out and "timeout=1" in out
