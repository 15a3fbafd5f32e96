"""The grader's decision: every site in order with a matching value, then the end marker."""

from passgate.core.languages.compare import Compare
from passgate.core.languages.spec import Integrity, Site, SplitTest
from passgate.core.languages.verdict import grade

SPLIT = SplitTest(Integrity.OUTSIDE, "harness", (Site(0, 1, "a", 2, Compare("eq")), Site(1, 2, "b", "x", Compare("eq"))))


def lines(*records: str) -> bytes:
    return "".join(r + "\n" for r in records).encode()


def test_every_site_matching_then_the_end_passes():
    assert grade(SPLIT, lines('{"s":0,"v":2}', '{"s":1,"v":"x"}', '{"end":2}'), exit_status=0).passed


def test_a_wrong_value_fails_naming_the_line():
    v = grade(SPLIT, lines('{"s":0,"v":3}', '{"s":1,"v":"x"}', '{"end":2}'), exit_status=0)
    assert not v.passed and v.failure == "wrong_answer" and "line 1" in v.detail


def test_an_early_exit_fails_even_with_status_zero():
    v = grade(SPLIT, lines('{"s":0,"v":2}'), exit_status=0)
    assert not v.passed and v.failure == "missing_report"


def test_no_end_marker_fails():
    assert not grade(SPLIT, lines('{"s":0,"v":2}', '{"s":1,"v":"x"}'), exit_status=0).passed


def test_reports_after_the_end_fail():
    v = grade(SPLIT, lines('{"s":0,"v":2}', '{"s":1,"v":"x"}', '{"end":2}', '{"end":2}'), exit_status=0)
    assert not v.passed and v.failure == "bad_report"


def test_reports_out_of_order_fail():
    assert not grade(SPLIT, lines('{"s":1,"v":"x"}', '{"s":0,"v":2}', '{"end":2}'), exit_status=0).passed


def test_a_malformed_line_fails_and_does_not_raise():
    assert not grade(SPLIT, b'{"s":0,"v":\n\xff\xfe\n', exit_status=0).passed


def test_a_nonzero_exit_after_the_end_fails():
    v = grade(SPLIT, lines('{"s":0,"v":2}', '{"s":1,"v":"x"}', '{"end":2}'), exit_status=1)
    assert not v.passed and v.failure == "runtime_error"


def test_in_process_tests_are_decided_by_exit_status_and_say_so():
    v = grade(SplitTest(Integrity.IN_PROCESS, "t", (), "why"), b"", exit_status=0)
    assert v.passed and v.integrity is Integrity.IN_PROCESS


def test_the_first_compile_error_is_the_compilers_first_error_line():
    from passgate.core.languages.verdict import first_compile_error
    assert first_compile_error("# pg\n./main.go:12:5: undefined: os\n") == "./main.go:12:5: undefined: os"
    assert first_compile_error("main.cpp: In function 'int f()':\nmain.cpp:3:1: error: x\n") == "main.cpp:3:1: error: x"
