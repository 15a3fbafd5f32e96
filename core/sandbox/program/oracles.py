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


def _unbound(*args):
    raise RuntimeError("this comparison belongs to a task the grader has not loaded")


# the names a test may call in an assertion the grader decides (never evaluated in the process);
# `__pg_evalplus__` and `__pg_keep__` are bound per task (EvalPlusOracle)
GRADER_FUNCTIONS = {"__pg_doctest__": doctest_match, "__pg_evalplus__": _unbound, "__pg_keep__": _unbound}


class EvalPlusOracle:
    """An EvalPlus task's comparison, with its inputs and the outputs of its canonical solution.

    The comparison itself is the task's (`runner`: EvalPlus's check_output and special oracles, as the
    task set gives it); the expected outputs are what the canonical solution returned in a process of
    its own (`keep` collects them there)."""

    def __init__(self, oracle):
        self.spec, self.reference = oracle["spec"], oracle["reference"]
        self.expected_suite = oracle["expected_suite"]
        namespace = {"_PG_TASK": self.spec}
        exec(compile(oracle["runner"], "<evalplus oracle>", "exec"), namespace)
        self.matches = namespace["_pg_matches"]
        import json
        self.inputs = {g: json.loads(text, object_hook=namespace["_pg_decode"]) for g, text in oracle["inputs"].items()}
        self.expected = None          # group -> list of outputs, once computed
        self.failure = None           # why they could not be computed

    def keep(self, group, index, value):
        self.collecting.setdefault(group, {})[index] = value
        return True

    def decide(self, group, index, value):
        return self.matches(self.inputs[group][index], value, self.expected[group][index])

    def functions(self):
        return {"__pg_evalplus__": self.decide, "__pg_keep__": self.keep}
