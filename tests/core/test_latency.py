"""Latency per completion: percentiles with order-statistic intervals, only over recorded timings;
a policy's latency budget graded as evidence; the alert on a slower run. Plain data, no store."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from passgate.core.gate.facts import GateFacts
from passgate.core.gate.latency import latency_alerts, latency_conditions
from passgate.core.gate.policy import LatencyBudget, LatencySettings, load_policy
from passgate.core.score.latency import latency_section, quantile


def rows(first_ms: list[float | None], total_extra: float = 100.0, slice_name: str = "single-line"):
    return [{"task_id": f"t/{i}", "candidate_index": 0, "slice": slice_name, "source": "generate",
             "first_token_ms": f, "latency_ms": None if f is None else f + total_extra, "completion_tokens": 20}
            for i, f in enumerate(first_ms)]


def facts(section) -> GateFacts:
    return GateFacts(run_id="r", status="completed", operator="o", manifest_id="m", manifest_policy="p",
                     latency=section or {})


def test_a_quantile_interval_is_made_of_order_statistics_and_opens_when_too_few():
    x = list(range(1, 1001))
    q = quantile(x, 0.9, 0.95)
    assert q["value"] == 900 and q["ci_low"] < 900 < q["ci_high"] and {q["ci_low"], q["ci_high"]} <= set(x)
    assert quantile(x[:20], 0.99, 0.95)["ci_high"] is None          # 20 values cannot bound a p99
    assert quantile([], 0.5, 0.95) == {"value": None, "ci_low": None, "ci_high": None}


def test_the_interval_covers_the_true_percentile_at_least_as_often_as_its_level():
    rng = np.random.default_rng(7)
    truth = -100 * np.log(0.1)                                        # p90 of an exponential with mean 100
    hits = 0
    for _ in range(400):
        q = quantile(rng.exponential(100, size=60), 0.9, 0.9)
        hits += q["ci_low"] is not None and q["ci_high"] is not None and q["ci_low"] <= truth <= q["ci_high"]
    assert hits / 400 >= 0.88


def test_candidates_without_a_recorded_timing_are_left_out_never_estimated():
    section = latency_section(rows([10.0, 20.0, None, None]), 0.95, answered={"single-line": 4})
    group = section["slices"][0]
    assert (group["candidates"], group["with_latency"], group["first_token_ms"]["n"]) == (4, 2, 2)
    assert group["tokens_per_s"]["p50"]["value"] == pytest.approx(20 / 0.12)    # nearest rank: the lower
    assert latency_section(rows([None, None]), 0.95) is None


def budget_policy(*budgets: LatencyBudget):
    return dataclasses.replace(load_policy("secure-default"), latency=LatencySettings(tuple(budgets)))


@pytest.mark.parametrize("limit, level", [(1000, "strong"), (304, "adequate"), (200, "weak")])
def test_a_budget_is_strong_within_its_interval_adequate_on_its_point_weak_past_it(limit, level):
    section = latency_section(rows([float(v) for v in range(1, 334)]), 0.95)   # p90 = 300
    policy = budget_policy(LatencyBudget("first_token_ms", 90, limit))
    (cond,) = latency_conditions(facts(section), policy)
    assert cond.name == "latency_budget" and cond.level == level
    assert "p90 time to first token 300.0 ms" in cond.measured


def test_a_budget_on_a_latency_nobody_measured_is_weak_and_says_so():
    policy = budget_policy(LatencyBudget("first_token_ms", 90, 300), LatencyBudget("tokens_per_s", 50, 10))
    (cond,) = latency_conditions(facts(None), policy)
    assert cond.level == "weak" and "cannot be checked" in cond.sentence
    assert latency_conditions(facts(None), load_policy("secure-default")) == []      # no budget: no condition


def test_tokens_per_second_is_a_floor():
    section = latency_section(rows([10.0] * 50, total_extra=190.0), 0.95)            # 20 tokens in 0.2 s = 100/s
    assert latency_conditions(facts(section), budget_policy(LatencyBudget("tokens_per_s", 50, 80)))[0].level == "strong"
    assert latency_conditions(facts(section), budget_policy(LatencyBudget("tokens_per_s", 50, 120)))[0].level == "weak"


def test_the_alert_fires_when_p90_rises_past_the_threshold_with_intervals_apart():
    policy = load_policy("code-completion")
    fast = facts(latency_section(rows([float(v % 50 + 10) for v in range(400)]), 0.95))
    slow = facts(latency_section(rows([float(v % 50 + 400) for v in range(400)]), 0.95))
    (raised,) = latency_alerts(slow, fast, policy)
    assert raised.raised and raised.cap == "canary" and "intervals apart" in raised.sentence
    (calm,) = latency_alerts(fast, fast, policy)
    assert not calm.raised
    (none,) = latency_alerts(facts(None), fast, policy)
    assert not none.raised and "cannot be compared" in none.sentence
