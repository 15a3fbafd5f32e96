"""A report the host grader cannot judge is the candidate's failure, never the evaluator's.

The report channel carries the candidate's bytes. Whatever those bytes make the grader raise (a tag
with the wrong body, nesting past the recursion limit, an integer past any float) must end as a
failure class that counts in pass@k: an exception here would reach the dispatcher as a lost
worker and end `infra_error`, which leaves the score.
"""

import pytest

from passgate.core.languages.compare import Compare
from passgate.core.languages.spec import Integrity, Site, SplitTest
from passgate.core.languages.verdict import grade

EQ = SplitTest(Integrity.OUTSIDE, "harness", (Site(0, 1, "f(1) == 2", 2, Compare("eq")),))
APPROX = SplitTest(Integrity.OUTSIDE, "harness", (Site(0, 1, "abs(f(1) - 2.5) < 1e-6", 2.5, Compare("approx", 1e-6)),))
LOOSE = SplitTest(Integrity.OUTSIDE, "harness", (Site(0, 1, "f(1) == 2", 2, Compare("js_loose")),))


def report(value: str) -> bytes:
    return f'{{"s":0,"v":{value}}}\n{{"end":1}}\n'.encode()


UNJUDGEABLE = {
    "float tag with a list body": (EQ, '{"f":[1]}'),
    "tuple tag with a number body": (EQ, '{"t":5}'),
    "map tag with three-element entries": (EQ, '{"m":[[1,2,3]]}'),
    "set tag with a number body": (EQ, '{"set":7}'),
    "object tag with a number body": (EQ, '{"o":3}'),
    "big tag that is not an integer": (EQ, '{"big":"12x"}'),
    "nesting past the recursion limit": (EQ, "[" * 5000 + "]" * 5000),
    "tagged nesting past the recursion limit": (EQ, '{"t":[' * 3000 + "1" + "]}" * 3000),
    "an integer past any float, at a tolerance": (APPROX, '{"big":"' + "9" * 400 + '"}'),
    "an integer past any float, loosely equal": (LOOSE, '{"big":"' + "9" * 400 + '"}'),
    "a record that is a list": (EQ, "1}]"),
}


@pytest.mark.parametrize("name", sorted(UNJUDGEABLE))
def test_a_report_the_grader_cannot_judge_fails_the_candidate(name):
    split, value = UNJUDGEABLE[name]
    verdict = grade(split, report(value), exit_status=0)
    assert not verdict.passed
    assert verdict.failure in ("bad_report", "wrong_answer")


def test_a_report_line_that_is_not_an_object_fails():
    for line in (b"[0, 2]\n", b"7\n", b'"s"\n'):
        verdict = grade(EQ, line + b'{"end":1}\n', exit_status=0)
        assert not verdict.passed and verdict.failure == "bad_report"


def test_an_unreadable_end_marker_is_no_end_marker():
    for end in (b"[" * 5000 + b"]" * 5000, b'{"end":[1]}'):
        verdict = grade(EQ, b'{"s":0,"v":2}\n' + end + b"\n", exit_status=0)
        assert not verdict.passed and verdict.failure == "bad_report"
