"""Comparisons the grader applies on the test's behalf, by name, in a split test's skeletons.
Standard library only."""

import re


def doctest_match(want, got):
    """doctest.OutputChecker with default flags: exact text, True/False for 1/0, <BLANKLINE>."""
    if type(got) is not str:
        return False
    if got == want or (got, want) in (("True\n", "1\n"), ("False\n", "0\n")):
        return True
    want = re.sub(r"(?m)^<BLANKLINE>\s*?$", "", want)
    got = re.sub(r"(?m)^[^\S\n]+$", "", got)
    return got == want


# the names a test may call in an assertion the grader decides (never evaluated in the process)
GRADER_FUNCTIONS = {"__pg_doctest__": doctest_match}
