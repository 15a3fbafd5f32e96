"""The report dict built from a real SQLite record written through Store, checked by hand."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from passgate.cli.main import main
from passgate.core.record.store import Store
from passgate.core.score.report import SCHEMA, build_report
from tests.core.report_kit import CANDS, PREFLIGHT, PROBE, Cand, TaskSpec, manifest, record, standard_run

DOCS = Path(__file__).resolve().parents[2] / "docs" / "report-schema.md"


@pytest.fixture()
def store(tmp_path):
    s = Store(tmp_path / "report.db")
    yield s
    s.close()


@pytest.fixture()
def report(store):
    standard_run(store, k=(1, 3), weights={})
    return build_report(store, "run-kit")


def by_k(rows, k):
    return next(r for r in rows if r["k"] == k)


def test_report_carries_its_schema_version_and_is_strict_json(report):
    assert report["schema"] == SCHEMA == "passgate.report/1"
    json.loads(json.dumps(report, allow_nan=False))


def test_micro_and_macro_pass_at_1_match_hand_computation(report):
    # per task pass@1: H/0 3/4, H/1 1/5 (flaky is not a pass), H/2 0/2, M/0 4/4, M/1 1/3; H/3 has none counted
    row = by_k(report["scores"]["pass_at_k"], 1)
    assert row["micro"]["value"] == pytest.approx((0.75 + 0.2 + 0 + 1 + 1 / 3) / 5)
    assert row["macro"]["value"] == pytest.approx(((0.75 + 0.2 + 0) / 3 + (1 + 1 / 3) / 2) / 2)
    assert row["micro"]["ci_low"] < row["micro"]["value"] < row["micro"]["ci_high"]
    assert row["denominator"] == {"k": 1, "tasks": 5, "not_estimable_tasks": 1, "no_counted_candidates": 1,
                                  "candidates_per_task": {"min": 2, "median": 4.0, "max": 5}, "candidates": 18}
    head = report["scores"]["headline"]
    assert (head["k"], head["aggregation"], head["value"]) == (1, "micro", row["micro"]["value"])


def test_k_larger_than_a_tasks_n_is_reported_not_dropped(report):
    row = by_k(report["scores"]["pass_at_k"], 3)
    # H/2 has n = 2 < 3; H/3 has n = 0: both left out and counted
    assert row["denominator"]["tasks"] == 4
    assert row["denominator"]["not_estimable_tasks"] == 2
    assert row["micro"]["value"] == pytest.approx((1 + 0.6 + 1 + 1) / 4)
    ne = by_k(report["omissions"]["not_estimable"], 3)
    assert ne["tasks"] == 1 and ne["task_ids"] == ["H/2"]
    h2 = next(t for t in report["tasks"] if t["task_id"] == "H/2")
    assert h2["pass_at_k"]["3"] is None and h2["pass_at_k"]["1"] == 0.0


def test_every_exclusion_is_listed_with_its_reason(report):
    listed = {(r["task_id"], r["candidate_index"]): (r["outcome"], r["reason"]) for r in report["omissions"]["candidates"]}
    assert listed == {("H/2", 2): ("infra_error", "evaluator failed 3 times: container died"),
                      ("H/2", 3): ("excluded", "unmatched import line 7"),
                      ("H/3", 0): ("excluded", "generation error: HTTP 500"),
                      ("M/1", 3): ("pending", "no outcome recorded (run not finished)")}
    assert report["omissions"]["tasks"] == [{"task_id": "H/3", "reason": "none of 1 candidates counted: "
                                             "1 excluded, 0 infra_error, 0 without outcome"}]
    assert report["omissions"]["counts"] == {"excluded": 2, "infra_error": 1, "pending": 1,
                                             "tasks_without_counted_candidates": 1, "not_imported": 0}
    assert report["counts"] == {"tasks": 6, "candidates": 22, "outcomes": 21, "counted": 18, "passed": 9,
                                "flaky": 1, "failed": 8, "infra_error": 1, "excluded": 2, "pending": 1}


def test_groups_cover_slices_sets_and_tags(report):
    groups = {(g["kind"], g["name"]): g for g in report["scores"]["groups"]}
    assert set(groups) == {("slice", "humaneval"), ("slice", "mbpp"), ("tag", "math"), ("tag", "strings")}
    assert by_k(groups[("slice", "mbpp")]["pass_at_k"], 1)["value"] == pytest.approx((1 + 1 / 3) / 2)
    assert by_k(groups[("tag", "math")]["pass_at_k"], 1)["value"] == pytest.approx((0.2 + 0) / 2)
    strings = by_k(groups[("tag", "strings")]["pass_at_k"], 1)
    assert strings["value"] == pytest.approx((0.75 + 1) / 2) and strings["ci_low"] is not None


def test_public_protected_gap_on_tasks_with_public_tests(report):
    pvp = report["public_vs_protected"]
    assert pvp["tasks"] == 3 and pvp["tasks_without_public_tests"] == 2
    row = by_k(pvp["pass_at_k"], 1)
    # public passes: H/0 3/4, H/1 3/5, H/2 0/2; protected: 3/4, 1/5, 0/2
    assert row["public"]["value"] == pytest.approx((0.75 + 0.6 + 0) / 3)
    assert row["protected"]["value"] == pytest.approx((0.75 + 0.2 + 0) / 3)
    assert row["gap"]["value"] == pytest.approx(0.4 / 3)
    assert row["gap"]["ci_low"] is not None


def test_filtered_pass_at_1_takes_the_first_public_pass(report):
    f = report["filtered_pass_at_1"]
    # H/0: first public pass is #1 (passed); H/1: #1 is flaky (not a pass); H/2: none passes public tests
    assert (f["tasks"], f["value"], f["no_public_pass_tasks"]) == (3, pytest.approx(1 / 3), 1)
    assert f["no_public_pass_share"] == pytest.approx(1 / 3)


def test_ranked_pass_at_1_takes_the_top_mean_logprob(report):
    r = report["ranked_pass_at_1"]
    # H/0 top logprob #1 passed; H/1 top logprob #0 failed (timeout)
    assert r["available"] and r["tasks"] == 2 and r["value"] == 0.5
    assert r["random_pass_at_1"] == pytest.approx((0.75 + 0.2) / 2)


def test_execution_times_classes_and_cost(report):
    ex, cost = report["execution"], report["cost"]
    attempts = [c for c in CANDS if c.outcome not in ("excluded", "pending")]
    cpu = sorted([c.cpu for c in attempts] + [c.cpu / 2 for c in attempts for _ in range(c.retries)])
    assert ex["attempts"] == len(cpu) == 22
    assert ex["attempts_by_purpose"] == {"grade": 19, "infra_retry": 3}
    assert ex["cpu_s"]["max"] == pytest.approx(max(cpu))
    assert ex["cpu_s"]["median"] == pytest.approx(float(__import__("numpy").median(cpu)), abs=1e-6)
    assert cost["sandbox_cpu_s"] == pytest.approx(sum(cpu), abs=1e-5)
    assert cost["prompt_tokens"] == 10 * len(CANDS) and cost["completion_tokens"] == 20 * len(CANDS)
    assert ex["timeouts"] == 1 and ex["timeout_rate"] == pytest.approx(1 / 18)
    assert ex["failure_classes"] == {"memory_exceeded": 1, "output_exceeded": 1, "runtime_error": 1,
                                     "sandbox_violation": 1, "syntax_error": 1, "timeout": 1, "wrong_answer": 2}
    cats = ex["failure_categories"]
    assert (cats["resource"]["total"], cats["violation"]["total"], cats["syntax"]["total"]) == (3, 1, 1)
    assert ex["infra_errors"] == {"candidates": 1, "attempts": 4}
    assert sum(ex["histogram"]["counts"]) == 22


def test_flaky_per_task_and_aggregate(report):
    assert report["flaky"]["total"] == 1
    assert report["flaky"]["tasks"] == [{"task_id": "H/1", "flaky": 1, "counted": 5}]


def test_configuration_probe_and_preflight_are_shown_as_given(report):
    assert report["probe"] == PROBE and report["preflight"] == PREFLIGHT
    cfg = report["config"]
    assert cfg["model"] == "kit-model"
    assert cfg["benchmarks"] == [{"set_id": "humaneval", "revision": "v1", "sha256": "e" * 64, "tasks": 4},
                                 {"set_id": "mbpp", "revision": "v1", "sha256": "e" * 64, "tasks": 2}]
    assert cfg["sandbox"]["image_digest"] == "sha256:" + "cd" * 32
    assert cfg["test_policy"]["tasks_with_public_tests"] == 4
    assert cfg["timeout_policy"]["task_cpu_limit_s"]["calibrated_tasks"] == 5
    assert cfg["package_policy"]["rule"] == "the pinned image's standard library only"
    assert report["scores"]["interval"]["seed"] == 3 and report["scores"]["interval"]["resamples"] == 400


def test_macro_weights_from_the_manifest(store):
    standard_run(store, "weighted", aggregation="macro", weights={"humaneval": 3, "mbpp": 1})
    rep = build_report(store, "weighted")
    row = by_k(rep["scores"]["pass_at_k"], 1)
    assert row["macro"]["value"] == pytest.approx((3 * (0.95 / 3) + 1 * (4 / 3) / 2) / 4)
    assert rep["scores"]["headline"]["aggregation"] == "macro"
    assert rep["scores"]["weights"] == {"humaneval": 3.0, "mbpp": 1.0}


def test_parallel_and_serial_reads_agree(store):
    standard_run(store)
    a = build_report(store, "run-kit", parallel=True)
    b = build_report(store, "run-kit", parallel=False)
    a.pop("generated_at"), b.pop("generated_at")
    assert a == b


def test_a_run_without_records_still_reports(store):
    record(store, "empty", [TaskSpec("E/0", "x")], [])
    rep = build_report(store, "empty")
    assert rep["scores"]["headline"]["value"] is None
    assert rep["omissions"]["tasks"] == [{"task_id": "E/0", "reason": "no candidates"}]
    json.dumps(rep, allow_nan=False)


def test_report_command_prints_json_and_renders_the_terminal_report(store, capsys):
    standard_run(store)
    assert main(["--db", str(store.path), "report", "run-kit", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["schema"] == SCHEMA and printed["run"]["run_id"] == "run-kit"
    assert main(["--db", str(store.path), "report", "run-kit", "--k", "1,2", "--tasks"]) == 0
    out = capsys.readouterr().out
    assert "pass@1 (micro)" in out and "Self-probe" in out and "H/3" in out


def test_report_command_refuses_bad_overrides(store, capsys):
    standard_run(store)
    assert main(["--db", str(store.path), "report", "run-kit", "--k", "0"]) == 2
    assert main(["--db", str(store.path), "report", "run-kit", "--level", "1.5"]) == 2
    assert main(["--db", str(store.path), "report", "no-such-run"]) == 2
    assert "run not found" in capsys.readouterr().err


def test_schema_doc_names_every_top_level_key_and_section_field(report):
    text = DOCS.read_text()
    assert f'"schema": "{SCHEMA}"' in text
    for key in report:
        assert re.search(rf"`{key}`", text), f"docs/report-schema.md does not describe `{key}`"
    for section in ("scores", "execution", "cost", "omissions", "filtered_pass_at_1", "ranked_pass_at_1"):
        for key in report[section]:
            assert f"`{key}`" in text, f"docs/report-schema.md does not describe {section}.{key}"


def test_ranked_ties_go_to_the_lowest_candidate_index(store):
    record(store, "ties", [TaskSpec("T/0", "x")],
           [Cand("T/0", 0, "failed", cls="wrong_answer", logprob=-0.5), Cand("T/0", 1, "passed", logprob=-0.5),
            Cand("T/0", 2, "passed", logprob=-0.9)])
    ranked = build_report(store, "ties")["ranked_pass_at_1"]
    assert (ranked["tasks"], ranked["value"], ranked["random_pass_at_1"]) == (1, 0.0, pytest.approx(2 / 3))


def test_ranked_skips_a_top_candidate_that_was_not_counted(store):
    record(store, "skip", [TaskSpec("T/0", "x")],
           [Cand("T/0", 0, "infra_error", cls="infra_error", logprob=-0.1), Cand("T/0", 1, "passed", logprob=-0.5),
            Cand("T/0", 2, "failed", cls="wrong_answer", logprob=-0.9)])
    ranked = build_report(store, "skip")["ranked_pass_at_1"]
    assert (ranked["tasks"], ranked["value"]) == (1, 1.0)
