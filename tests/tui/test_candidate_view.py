"""The failures screen's output for a candidate that failed a public suite made of the prompt's
docstring examples: the runner's own line (`raise AssertionError("docstring example ...")`, the
`eval` of an example) is not the failing line; the example is, with its expected value."""

from __future__ import annotations

import json

from passgate.core.tasks.doctests import Example, public_suite_code
from passgate.tui.candidate_view import failing_line_numbers, failing_lines

ONE = [Example("doctest", "sort_numbers('three one five')\n", "'one three five'\n")]
THREE = ONE + [Example("doctest", "sort_numbers('two')\n", "'two'\n"),
               Example("value", "sort_numbers('')", "''")]


def line_of(code: str, text: str) -> int:
    return next(n for n, line in enumerate(code.splitlines(), 1) if text in line)


def attempt(code: str, runner_line: str, returned: str = "'1 3 5'") -> dict:
    line = line_of(code, runner_line)
    where = {"line": line, "source": code.splitlines()[line - 1].strip(), "returned": returned}
    return {"evidence_json": json.dumps({"protocol": 2, "public": where})}


def test_a_one_example_suite_names_the_example_and_its_expected_value():
    code = public_suite_code("HumanEval/19", ONE)
    task = {"public_tests": code}
    last = attempt(code, 'raise AssertionError("docstring example')
    lines = dict(failing_lines(last, task))
    assert lines["Failing example (public tests)"] == \
        f"line {line_of(code, 'sort_numbers(')}: sort_numbers('three one five')"
    assert lines["Expected (public tests)"] == "'one three five'"
    assert lines["Returned (public tests)"] == "'1 3 5'"
    assert not any("raise AssertionError" in text for text in lines.values())
    assert failing_line_numbers(last, task) == {"public": line_of(code, "sort_numbers(")}


def test_an_example_that_raised_in_the_runners_eval_is_not_cited_by_the_runners_line():
    code = public_suite_code("HumanEval/19", THREE)
    task = {"public_tests": code}
    last = attempt(code, "value = eval(code, scope)", returned="")
    lines = dict(failing_lines(last, task))
    assert "eval(code, scope)" not in " ".join(lines.values())
    assert "one of the prompt's 3 docstring examples" in lines["Failing example (public tests)"]
    assert failing_line_numbers(last, task) == {}             # no line of the runner is marked as the failure


def test_a_line_of_the_tests_themselves_is_still_the_failing_line():
    code = "def check(candidate):\n    assert candidate(2) == 4\n\ncheck(f)\n"
    last = {"evidence_json": json.dumps({"public": {"line": 2, "source": "assert candidate(2) == 4",
                                                    "returned": "5"}})}
    lines = dict(failing_lines(last, {"public_tests": code}))
    assert lines["Failing line (public tests)"] == "line 2: assert candidate(2) == 4"
    assert lines["Expected (public tests)"] == "4"
    assert failing_line_numbers(last, {"public_tests": code}) == {"public": 2}
