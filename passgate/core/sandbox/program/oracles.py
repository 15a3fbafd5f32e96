"""Comparisons the grader applies on the test's behalf, by name, in a split test's skeletons.
Standard library only."""

import os
import pickle
import re
import resource
import select
import time


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

    def compute(self, budget_s, uid=None):
        """The expected outputs, as EvalPlus computes them: the canonical solution (trusted dataset
        code) on every input, in a child of the grader, before any candidate of the task runs. A
        reference that fails or outlasts `budget_s` leaves `failure` set (the task's evaluator cannot
        judge it: each candidate is recorded as the evaluator's failure, never as the candidate's)."""
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            _reference_child(self, w, budget_s, uid)
        os.close(w)
        data, error = _read_all(r, time.monotonic() + budget_s + 5)
        os.close(r)
        _end_child(pid)
        if error is None:
            try:
                self.expected = pickle.loads(data)
            except Exception as exc:
                error = "its outputs could not be read back (%s)" % type(exc).__name__
        if error is not None or type(self.expected) is not dict:
            self.expected = None
            self.failure = "the canonical solution did not give the expected outputs: %s" % (error or "no answer")

    def decide(self, group, index, value):
        return self.matches(self.inputs[group][index], value, self.expected[group][index])

    def functions(self):
        return {"__pg_evalplus__": self.decide, "__pg_keep__": self.keep}


def _reference_child(oracle, fd, budget_s, uid):
    """Body of the child computing the reference outputs: never returns."""
    code = 1
    try:
        cpu = int(budget_s) + 1
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
        if uid is not None:
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
        oracle.collecting = {}
        namespace = {"__name__": "__reference__"}
        exec(compile(oracle.reference, "<reference>", "exec"), namespace)
        namespace.update(oracle.functions())
        exec(compile(oracle.expected_suite, "<reference test>", "exec"), namespace)
        expected = {g: [v[i] for i in range(len(v))] for g, v in oracle.collecting.items()}
        data = pickle.dumps(expected, protocol=pickle.HIGHEST_PROTOCOL)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        code = 0
    except BaseException as exc:
        try:
            os.write(fd, b"!" + ("%s: %s" % (type(exc).__name__, exc)).encode("utf-8", "replace")[:300])
        except BaseException:
            pass
    finally:
        os._exit(code)


def _read_all(fd, deadline):
    """(pickled bytes, None) or (None, why)."""
    chunks = []
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return None, "no answer within its time budget"
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            continue
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            break
        chunks.append(chunk)
    data = b"".join(chunks)
    if not data:
        return None, "it ended without an answer"
    if data[:1] == b"!":
        return None, data[1:].decode("utf-8", "replace")
    return data, None


def _end_child(pid):
    try:
        os.kill(pid, 9)
    except OSError:
        pass
    try:
        os.waitpid(pid, 0)
    except OSError:
        pass
