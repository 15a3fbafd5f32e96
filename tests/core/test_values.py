"""Digests of answers too large to cross: equal values give equal digests whichever path the
walk takes, unequal ones never collide by construction, and a huge value is refused at once."""

import collections
import itertools

import pytest

from passgate.core.sandbox.program.values import TooLarge, digest, encode

EQUAL = [
    ([1, 2, 3], [1.0, 2.0, 3.0]),
    ([1, True, 0], [1, 1, False]),
    ([("a", "b"), ("c",)], [("a", "b"), ("c",)]),
    (collections.deque([1, 2]), collections.deque([1.0, 2])),
    ([["a", 1], ["b"]], [["a", 1.0], ["b"]]),
    ([10 ** 30, -5], [10 ** 30, -5.0]),
]
UNEQUAL = [
    (["a", "b"], ["ab"]),
    (["", ""], [""]),
    ([], [""]),
    (["a\0b", "c"], ["a", "b\0c"]),
    ([("a", "b"), ("c",)], [("a",), ("b", "c")]),
    ([[]], [[""]]),
    (["1"], [1]),
    ([1, 2], [1, 2, 0]),
    ([[1]], [["1"]]),
    (["a", "b"], [["a", "b"]]),
    ([-1], [1]),
    ([("a", "b")], [["a", "b"]]),
    (["x"] * 5, collections.deque(["x"] * 5)),
    ([1, 2], (1, 2)),
    ([("a",), ["b"]], [("a",), ("b",)]),
]


@pytest.mark.parametrize("left,right", EQUAL)
def test_values_python_calls_equal_have_one_digest(left, right):
    assert left == right
    assert digest(left) == digest(right)


@pytest.mark.parametrize("left,right", UNEQUAL)
def test_unequal_values_have_different_digests(left, right):
    assert digest(left) != digest(right)


def test_a_string_block_reads_the_same_from_strings_made_apart():
    built = ["".join(["ab", "c"]) for _ in range(3000)]
    assert digest(built) == digest(["abc"] * 3000)


def test_a_value_far_past_the_limit_is_refused_before_the_walk():
    rows = [tuple(range(i, i + 50)) for i in range(2000)]
    with pytest.raises(TooLarge):
        encode(rows, max_nodes=50_000)
    shared = (1, 2, 3) * 20
    assert len(encode([shared] * 2000, max_nodes=50_000)) == 2000 + 1 + 60


def test_rows_of_strings_digest_alike_as_lists_or_tuples():
    rows = list(itertools.combinations_with_replacement(["Dog", "Cat", "Bird"], 12))
    rows = rows * 40
    assert digest(rows) == digest([tuple(list(r)) for r in rows])
    assert digest(rows) != digest([list(r) for r in rows])
