"""Bootstrap intervals: known standard errors, both candidate-level paths, seeds, pairing."""

from __future__ import annotations

import math

import numpy as np
import pytest

import passgate.core.score.intervals as intervals
from passgate.core.score.intervals import IntervalSpec, bootstrap_pass_at_k, candidate_level, paired_bootstrap
from passgate.core.score.scoring import Strata, aggregate, pass_at_k_array

Z80 = 1.2815515655446004


def binary_tasks(tasks: int, passed: int) -> tuple[np.ndarray, np.ndarray]:
    return np.ones(tasks, dtype=int), (np.arange(tasks) < passed).astype(int)


def test_binary_tasks_match_the_binomial_standard_error():
    n, c = binary_tasks(400, 120)
    spec = IntervalSpec(level=0.8, resamples=4000, seed=1)
    ci = bootstrap_pass_at_k(n, c, Strata.from_slices(["x"] * 400), [1], spec)[1]["micro"]
    se = math.sqrt(0.3 * 0.7 / 400)
    assert ci["se"] == pytest.approx(se, rel=0.06)
    assert ci["ci_high"] - ci["ci_low"] == pytest.approx(2 * Z80 * se, rel=0.1)


def test_164_tasks_at_80_percent_give_about_five_points_each_side_at_half_passing():
    """HumanEval's size: 164 single-sample tasks, half solved -> SE 3.9 points, 80% margin ~5.0."""
    n, c = binary_tasks(164, 82)
    ci = bootstrap_pass_at_k(n, c, Strata.from_slices(["x"] * 164), [1],
                             IntervalSpec(level=0.8, resamples=4000, seed=2))[1]["micro"]
    margin = (ci["ci_high"] - ci["ci_low"]) / 2
    assert margin == pytest.approx(Z80 * math.sqrt(0.25 / 164), abs=0.006)
    assert 0.04 < margin < 0.06


def test_164_tasks_at_80_percent_passing_give_about_six_points_each_side_at_the_default_level():
    """The issue's figure: 164 single-sample tasks, 80% solved, 95% interval -> margin near 6 points."""
    n, c = binary_tasks(164, 131)
    ci = bootstrap_pass_at_k(n, c, Strata.from_slices(["x"] * 164), [1],
                             IntervalSpec(level=0.95, resamples=4000, seed=4))[1]["micro"]
    margin = (ci["ci_high"] - ci["ci_low"]) / 2
    assert margin == pytest.approx(1.959964 * math.sqrt(0.8 * 0.2 / 164), abs=0.008)
    assert 0.05 < margin < 0.07


def test_one_task_many_candidates_gets_its_spread_from_the_candidate_level():
    n, c = np.array([100]), np.array([30])
    strata = Strata.from_slices(["x"])
    two_level = bootstrap_pass_at_k(n, c, strata, [1], IntervalSpec(resamples=4000, seed=3))[1]["micro"]
    assert two_level["se"] == pytest.approx(math.sqrt(0.3 * 0.7 / 100), rel=0.06)
    tasks_only = bootstrap_pass_at_k(n, c, strata, [1], IntervalSpec(method="bootstrap_tasks"))[1]["micro"]
    assert tasks_only["se"] == pytest.approx(0.0, abs=1e-12)


def test_moments_path_agrees_with_exact_draws(monkeypatch):
    rng = np.random.default_rng(5)
    n = np.full(300, 20)
    c = rng.binomial(20, rng.beta(0.6, 0.6, 300))
    strata = Strata.from_slices(["a", "b", "c"] * 100)
    spec = IntervalSpec(resamples=3000, seed=4)
    assert candidate_level(spec, 300) == "exact"
    exact = bootstrap_pass_at_k(n, c, strata, [1, 5], spec)
    monkeypatch.setattr(intervals, "EXACT_CELLS", 0)
    assert candidate_level(spec, 300) == "moments"
    moments = bootstrap_pass_at_k(n, c, strata, [1, 5], spec)
    for k in (1, 5):
        for rule in ("micro", "macro"):
            assert moments[k][rule]["se"] == pytest.approx(exact[k][rule]["se"], rel=0.1)
            assert moments[k][rule]["ci_low"] == pytest.approx(exact[k][rule]["ci_low"], abs=0.01)


@pytest.mark.parametrize("cells", [10**9, 0])
def test_intervals_hold_the_estimate_for_k_above_one_near_saturation(monkeypatch, cells):
    """pass@k is concave in c: without recentring, candidate redraws would pull the interval below it."""
    monkeypatch.setattr(intervals, "EXACT_CELLS", cells)
    rng = np.random.default_rng(6)
    n = np.full(200, 50)
    c = rng.binomial(50, rng.uniform(0.02, 0.3, 200))
    strata = Strata.from_slices(["x"] * 200)
    out = bootstrap_pass_at_k(n, c, strata, [10, 40], IntervalSpec(resamples=2000, seed=7))
    for k in (10, 40):
        point = aggregate(pass_at_k_array(n, c, k), strata, "micro")
        assert out[k]["micro"]["ci_low"] < point < out[k]["micro"]["ci_high"]
        assert out[k]["micro"]["ci_high"] <= 1.0


def test_every_k_and_every_slice_gets_an_interval():
    rng = np.random.default_rng(8)
    n = np.full(60, 10)
    c = rng.integers(0, 11, 60)
    out = bootstrap_pass_at_k(n, c, Strata.from_slices(["a", "b"] * 30), [1, 5, 10], IntervalSpec(resamples=200))
    assert set(out) == {1, 5, 10}
    for k in out:
        assert set(out[k]["strata"]) == {"a", "b"}
        assert all(v["ci_low"] is not None for v in out[k]["strata"].values())


def test_the_seed_reproduces_and_another_seed_differs():
    n, c = np.full(50, 5), np.arange(50) % 6
    strata = Strata.from_slices(["x"] * 50)
    first = bootstrap_pass_at_k(n, c, strata, [1], IntervalSpec(resamples=300, seed=11))
    assert first == bootstrap_pass_at_k(n, c, strata, [1], IntervalSpec(resamples=300, seed=11))
    assert first != bootstrap_pass_at_k(n, c, strata, [1], IntervalSpec(resamples=300, seed=12))


def test_tasks_without_counted_candidates_do_not_enter_replicates():
    n, c = np.array([0, 0, 4, 4]), np.array([0, 0, 4, 0])
    ci = bootstrap_pass_at_k(n, c, Strata.from_slices(["x"] * 4), [1], IntervalSpec(method="bootstrap_tasks"))
    assert ci[1]["micro"]["ci_low"] == 0.0 and ci[1]["micro"]["ci_high"] == 1.0


def test_paired_difference_of_identical_runs_is_zero():
    n, c = np.full(100, 4), np.arange(100) % 5
    strata = Strata.from_slices(["x"] * 100)
    same = paired_bootstrap(n, c, n, c, strata, [1, 2], IntervalSpec(method="bootstrap_tasks"), "micro")
    assert same[1] == pytest.approx({"ci_low": 0.0, "ci_high": 0.0, "se": 0.0}, abs=1e-12)


def test_paired_interval_is_tighter_than_two_independent_ones():
    rng = np.random.default_rng(9)
    base = rng.binomial(10, rng.beta(0.5, 0.5, 300))
    cand = np.minimum(base + (rng.random(300) < 0.3), 10)      # the candidate solves a bit more
    n = np.full(300, 10)
    strata = Strata.from_slices(["x"] * 300)
    spec = IntervalSpec(resamples=2000, seed=10)
    paired = paired_bootstrap(n, base, n, cand, strata, [1], spec, "micro")[1]
    se_a = bootstrap_pass_at_k(n, base, strata, [1], spec)[1]["micro"]["se"]
    se_b = bootstrap_pass_at_k(n, cand, strata, [1], spec)[1]["micro"]["se"]
    assert paired["se"] < 0.5 * math.hypot(se_a, se_b)
    assert paired["ci_low"] > 0      # a real improvement is seen as one


def test_spec_validation_and_manifest_defaults():
    assert IntervalSpec.from_config(None) == IntervalSpec()
    assert IntervalSpec.from_config({"level": 0.8, "seed": 4}).resamples == 2000
    for bad in ({"method": "jackknife"}, {"level": 1.0}, {"resamples": 1}):
        with pytest.raises(ValueError):
            IntervalSpec.from_config(bad)
