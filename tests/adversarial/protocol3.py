"""Hostile candidates against grading protocol 3's own surface: the test runs in the candidate's
process, split so that the expected values stay with the grader, and its assertion sites report
over descriptor 4 (core/sandbox/program/report.py, split.py, shadow.py).

Every hostile program here carries a wrong answer, so it can pass only by cheating: replacing the
reporting functions (`__pg_h__`, `__pg_b__`, `__pg_t__`, `__pg_c__`) in globals, builtins, through an
audit hook, a profile hook, frame walking or `gc`; writing forged frames to descriptor 4; guessing
the expected values from the test's code or the heap (they never enter the process); threads,
children and exits; objects whose comparison or truth is the candidate's code.

`expect` lists the failure classes a case may end with. A few cases attack assertions the test
itself leaves to the process (a helper the test defines, a name the process holds): there, as in
CPython, the candidate can change the outcome, and the only promise is that the result says so:
such a case may pass only when its suite's `integrity` counts the assertion where it was decided
(`may_pass_if`: "in_process" or "visible"; "control" when the test's own control flow, in the process,
decides, as `if x != 3345: raise` does).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from passgate.core.sandbox.runner import TaskSpec
from passgate.core.kinds.sets import load_task_set

PRODUCT_EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "product-tasks.jsonl"

# ---- tasks --------------------------------------------------------------------------------------
# Every expected value is distinctive and never an argument, so a guess from the test's constants
# can only hit it if it is in the process (EXPECTED_LITERALS: the test file checks that it is not).
ADD_PROTECTED = (
    "def check(candidate):\n"
    "    assert candidate(1000, 2345) == 3345\n"
    "    assert candidate(-5000, 5000) == 0\n"
    "    assert candidate(10**12, 1) == 10**12 + 1\n"
    "    assert candidate(7000, 7000) != 99999\n"
    "check(add)\n"
    "assert add(20000, 22000) == 42000\n"
    "assert is_even(add(4000, 4000))\n"
    "assert not is_even(add(4000, 4001))\n"
    "assert add(300, 400) in (700, 70000)\n"
    "total = 0\n"
    "for i in range(3):\n"
    "    total = add(total, i * 1000)\n"
    "assert total == 3000\n")
ADD_TASK = TaskSpec.build("Protocol3/add", protected=ADD_PROTECTED, public="assert add(1, 2) == 3\n")
EXPECTED_LITERALS = (3345, 10**12 + 1, 99999, 42000, 70000, 3000)
ADD_GOOD = "def add(a, b):\n    return a + b\n\n\ndef is_even(n):\n    return n % 2 == 0\n"
ADD_WRONG = "def add(a, b):\n    return a - b\n\n\ndef is_even(n):\n    return n % 2 == 1\n"

# assertions the test decides with its own helper: decided in the process (`in_process`)
HELPER_TASK = TaskSpec.build(
    "Protocol3/helper",
    protected=("def is_sorted(xs):\n"
               "    return all(a <= b for a, b in zip(xs, xs[1:]))\n"
               "assert sort_list([]) == []\n"
               "assert is_sorted(sort_list([3000, 1000, 2000]))\n"
               "assert is_sorted(sort_list([5000, 4000, 9000, 10]))\n"
               "assert len(sort_list([7, 8, 9])) == 3\n"))
HELPER_GOOD = "def sort_list(xs):\n    return sorted(xs)\n"
HELPER_WRONG = "def sort_list(xs):\n    return list(xs)\n"           # right on [] and on lengths only
HELPER_HIDDEN = 2                                                        # sites decided outside

# truth-only sites, a comparison with True, an identity with False, and a comparison decided in the
# process between the candidate's value and plain data
TRUTH_TASK = TaskSpec.build(
    "Protocol3/truth",
    protected=("assert is_even(8000)\n"
               "assert not is_even(8001)\n"
               "assert is_even(8002) == True\n"
               "assert is_even(8003) is False\n"
               "pair = [is_even(8004), True]\n"
               "assert pair[0] == pair[1]\n"))
TRUTH_GOOD = "def is_even(n):\n    return n % 2 == 0\n"
TRUTH_WRONG = "def is_even(n):\n    return n % 2 == 1\n"

# the assertions sit in a `try`: control flow the process decides (a region)
REGION_TASK = TaskSpec.build(
    "Protocol3/region",
    protected=("try:\n"
               "    assert add(1000, 2345) == 3345\n"
               "    assert add(-5000, 5000) == 0\n"
               "except ZeroDivisionError:\n"
               "    pass\n"))

# the expected values in a module-level name of the test that the process never reads: dropped from
# its code, unless the program names it (then it stays, and the sites count as `visible`)
NAMED_TASK = TaskSpec.build(
    "Protocol3/named",
    protected=("EXPECTED = {'first': 3345, 'second': 0}\n"
               "assert add(1000, 2345) == EXPECTED['first']\n"
               "assert add(-5000, 5000) == EXPECTED['second']\n"))

# a check that is not an `assert`: the test raises when the candidate does not (as the product example
# acme/parse_duration does); the `try` is a region with no assertion site in it
RAISES_TASK = TaskSpec.build(
    "Protocol3/raises",
    protected=("assert half(8000) == 4000\n"
               "try:\n"
               "    half(-1)\n"
               "except ValueError:\n"
               "    pass\n"
               "else:\n"
               "    raise AssertionError('half(-1) should raise ValueError')\n"))
RAISES_GOOD = "def half(n):\n    if n < 0:\n        raise ValueError(n)\n    return n // 2\n"
RAISES_WRONG = "def half(n):\n    return n // 2\n"

# the check is an `if` on the candidate's value: the statement (and its literal) stays in the process
IF_RAISE_TASK = TaskSpec.build(
    "Protocol3/if-raise",
    protected=("result = add(1000, 2345)\n"
               "if result != 3345:\n"
               "    raise AssertionError('wrong sum')\n"))

# the shipped example with that shape, as the engine builds it
PARSE_DURATION_TASK = TaskSpec.of(load_task_set("product", PRODUCT_EXAMPLES, task_ids=["acme/parse_duration"]).tasks[0])
# right on every valid duration, returns 0 instead of raising ValueError on the bad ones
PARSE_WRONG = ("import re\n"
               "def parse_duration(text):\n"
               "    m = re.fullmatch(r'(?:(\\d+)h)?(?:(\\d+)m)?(?:(\\d+)s)?', text)\n"
               "    if not text or m is None:\n"
               "        {cheat}return 0\n"
               "    h, mi, s = (int(g) if g else 0 for g in m.groups())\n"
               "    return h * 3600 + mi * 60 + s\n")
PARSE_GOOD = PARSE_WRONG.replace("{cheat}return 0", "raise ValueError(text)")

FAILED_ANY = frozenset({"wrong_answer", "runtime_error", "premature_exit", "sandbox_violation", "timeout",
                        "memory_exceeded", "output_exceeded", "not_plain_data", "syntax_error", "tampering"})


@dataclass(frozen=True)
class Case:
    name: str
    group: str                   # reporters | frames | guess | helpers | exits | plain | truth
    task: TaskSpec
    program: str
    expect: frozenset            # acceptable failure classes
    may_pass_if: str | None = None   # "in_process" / "visible" / "control": a pass is acceptable only when counted so
    limits: tuple = ()


def _c(group, name, task, program, *expect, may_pass_if=None, **limits):
    return Case(name, group, task, program, frozenset(expect) if expect else FAILED_ANY, may_pass_if,
                tuple(limits.items()))


# what the hostile programs share: writing a frame to the grader's descriptor, as frames.py does
_W = ("import os as _os, json as _json, struct as _struct\n"
      "def _w(obj):\n"
      "    data = _json.dumps(obj).encode()\n"
      "    _os.write(4, _struct.pack('>I', len(data)) + data)\n\n\n")
_REPORTERS = "('__pg_h__', '__pg_b__', '__pg_t__', '__pg_c__')"
_WRONG_IS_EVEN = "def is_even(n):\n    return n % 2 == 1\n"


def _wrong_add(body="", head=""):
    """`add` answering a - b (every value site of ADD_TASK fails), after `body` runs in the call."""
    lines = "".join(f"    {line}\n" for line in body.splitlines())
    return head + "def add(a, b):\n" + lines + "    return a - b\n\n\n" + _WRONG_IS_EVEN


def _audit_hook_rebinding(fake: str, assignment: str) -> str:
    """A program head whose audit hook rebinds the reporting names when the test's code is exec'ed."""
    return ("import sys\n_g = globals()\n" + fake + "def _hook(event, args):\n"
            "    if event == 'exec' and '__pg_h__' in _g:\n"
            "        for name in " + _REPORTERS + ":\n"
            "            _g[name] = " + assignment + "\n"
            "sys.addaudithook(_hook)\n")


_FAKE_HELD = "def _fake(site, *values):\n    _w({'k': 't', 'i': [site]})\n    return True\n"
_FAKE_TRUE = "def _fake(site, *values):\n    _w({'k': 'h', 'i': site, 'v': [[True] for _ in values] or [[True]]})\n    return True\n"


# ---- replacing the reporting functions ------------------------------------------------------------
REPORTERS = [
    _c("reporters", "audit_hook_rebinds_reporters_to_silent_fakes", ADD_TASK, _wrong_add(head=(
        _audit_hook_rebinding("", "lambda *a, **k: True"))), "premature_exit", "tampering"),
    _c("reporters", "audit_hook_fakes_forge_held_reports", ADD_TASK, _W + _wrong_add(head=(
        _audit_hook_rebinding(_FAKE_HELD, "_fake"))), "tampering", "premature_exit"),
    _c("reporters", "audit_hook_fakes_report_true_for_every_site", ADD_TASK, _W + _wrong_add(head=(
        _audit_hook_rebinding(_FAKE_TRUE, "_fake"))), "wrong_answer", "tampering"),
    _c("reporters", "profile_hook_rebinds_reporters_before_the_first_site", ADD_TASK, _W + _wrong_add(head=(
        "import sys\n"
        "_g = globals()\n"
        "def _fake(site, *values):\n"
        "    _w({'k': 't', 'i': [site]})\n"
        "    return True\n"
        "def _prof(frame, event, arg):\n"
        "    if event == 'call' and frame.f_code.co_filename == '<test>':\n"
        "        for name in " + _REPORTERS + ":\n"
        "            frame.f_globals[name] = _fake\n"
        "sys.setprofile(_prof)\n")), "tampering", "premature_exit"),
    _c("reporters", "moved_from_globals_to_builtins", ADD_TASK, _wrong_add(head=(
        "import builtins, sys\n"
        "_g = globals()\n"
        "def _hook(event, args):\n"
        "    if event == 'exec' and '__pg_h__' in _g:\n"
        "        for name in " + _REPORTERS + ":\n"
        "            del _g[name]\n"
        "            setattr(builtins, name, lambda *a: True)\n"
        "sys.addaudithook(_hook)\n")), "premature_exit", "tampering"),
    _c("reporters", "frame_walk_rebinds_reporters_from_the_first_call", ADD_TASK, _wrong_add(
        "import sys\n"
        "f = sys._getframe(1)\n"
        "while f is not None:\n"
        "    if '__pg_h__' in f.f_globals:\n"
        "        for name in " + _REPORTERS + ":\n"
        "            f.f_globals[name] = lambda *a: True\n"
        "    f = f.f_back")),
    # nothing reaches the grader, the end neither: the process then waits for a next suite forever
    _c("reporters", "reporter_instance_send_bytes_silenced", NAMED_TASK, _wrong_add(
        "r = globals()['__pg_h__'].__self__\n"
        "r.send_bytes = lambda data: None"), "premature_exit", "timeout", cpu_s=0.5),
    _c("reporters", "reporter_instance_send_bytes_duplicates_every_frame", ADD_TASK, _W + _wrong_add(
        "r = globals()['__pg_h__'].__self__\n"
        "if 'send_bytes' not in vars(r):\n"
        "    real = r.send_bytes\n"
        "    def twice(data, real=real):\n"
        "        real(data)\n"
        "        real(data)\n"
        "    r.send_bytes = twice")),
    _c("reporters", "gc_patches_the_reporter_class_tape", ADD_TASK, _wrong_add(head=(
        "import gc\n"
        "def _patch():\n"
        "    for obj in gc.get_objects():\n"
        "        if isinstance(obj, type) and obj.__name__ == 'Reporter':\n"
        "            obj._tape = lambda self, v: [True]\n"
        "            obj.held = lambda self, site, v: True\n"
        "            obj.compare = lambda self, site, op, a, b: True\n")) + "_patch()\n"),
    _c("reporters", "gc_patches_the_reporter_instance_from_a_call", ADD_TASK, _wrong_add(
        "import gc\n"
        "for obj in gc.get_objects():\n"
        "    if type(obj).__name__ == 'Reporter':\n"
        "        obj._tape = lambda v: [True]\n"
        "        obj.held_sites.extend(range(1, 10))")),
]

# ---- forged frames on descriptor 4 -----------------------------------------------------------------
FRAMES = [
    _c("frames", "forged_end_before_any_site", ADD_TASK, _W + _wrong_add(
        "_w({'k': 'end', 'threads': 1})\nimport time\ntime.sleep(30)"), "premature_exit"),
    _c("frames", "forged_end_then_exit_0", ADD_TASK, _W + _wrong_add(
        "_w({'k': 'end'})\n_os._exit(0)"), "premature_exit"),
    _c("frames", "reports_for_sites_that_did_not_run", ADD_TASK, _W + _wrong_add(
        "for site in range(1, 10):\n"
        "    _w({'k': 'h', 'i': site, 'v': [[0]]})\n"
        "_w({'k': 'end'})\n"
        "import time\ntime.sleep(30)")),
    _c("frames", "reports_of_unknown_sites_and_kinds", ADD_TASK, _W + _wrong_add(
        "_w({'k': 'h', 'i': 999, 'v': [[3]]})\n_w({'k': 'ok'})\n_w({'i': 1})\n"
        "import time\ntime.sleep(30)")),
    _c("frames", "batch_of_held_site_frames", ADD_TASK, _W + _wrong_add(
        "_w({'k': 't', 'i': list(range(1, 10))})\n_w({'k': 'end'})\nimport time\ntime.sleep(30)"),
       "tampering"),
    _c("frames", "held_batch_for_the_in_process_sites", HELPER_TASK, _W + (
        "def sort_list(xs):\n"
        "    if xs == []:\n"
        "        _w({'k': 'h', 'i': 1, 'v': [['L', 0]]})\n"
        "        _w({'k': 't', 'i': [2, 3]})\n"
        "        _w({'k': 'h', 'i': 4, 'v': [[3]]})\n"
        "        _w({'k': 'end'})\n"
        "        import time\n"
        "        time.sleep(30)\n"
        "    return list(xs)\n")),
    _c("frames", "duplicated_reports_of_a_site", ADD_TASK, _W + _wrong_add(
        "_w({'k': 'h', 'i': 1, 'v': [[a - b]]})\n_w({'k': 'h', 'i': 1, 'v': [[a - b]]})")),
    _c("frames", "truth_report_for_a_value_site", ADD_TASK, _W + _wrong_add(
        "_w({'k': 'h', 'i': 1, 'v': [[True]]})\nimport time\ntime.sleep(30)"), "wrong_answer"),
    _c("frames", "opaque_and_undecodable_values", ADD_TASK, _W + _wrong_add(
        "_w({'k': 'h', 'i': 1, 'v': [[['L', 5], 1]]})\n_w({'k': 'h', 'i': 1, 'v': [[['O', 'int']]]})\n"
        "import time\ntime.sleep(30)"), "not_plain_data"),
    _c("frames", "forged_exception_that_claims_infra_error", ADD_TASK, _W + _wrong_add(
        "_w({'k': 'exc', 't': 'OSError', 'm': 'sandbox lost', 'c': 'infra_error'})\n"
        "import time\ntime.sleep(30)")),
    _c("frames", "forged_exception_with_a_class_outside_the_vocabulary", ADD_TASK, _W + _wrong_add(
        "_w({'k': 'exc', 't': 'X', 'm': 'x', 'c': 'passed'})\nimport time\ntime.sleep(30)")),
    _c("frames", "forged_load_failure_at_import", ADD_TASK, _W + "_w({'k': 'load', 'ok': False})\n"
       "import time\ntime.sleep(30)\n" + ADD_WRONG),
    _c("frames", "forged_load_failure_naming_infra_error", ADD_TASK, _W + (
        "_w({'k': 'load', 'ok': False, 'error': {'class': 'infra_error', 'type': 'OSError', 'msg': 'lost'}})\n"
        "_os._exit(0)\n")),
    _c("frames", "half_a_frame_then_the_real_report", ADD_TASK, _W + _wrong_add(
        "_os.write(4, _struct.pack('>I', 40) + b'{\"k\": \"h\", \"i\": 1, ')")),
    _c("frames", "thread_floods_forged_frames_through_the_suite", ADD_TASK, _W + (
        "import threading, time\n"
        "def _flood():\n"
        "    time.sleep(0.01)\n"
        "    for _ in range(200):\n"
        "        _w({'k': 't', 'i': list(range(1, 10))})\n"
        "        _w({'k': 'h', 'i': 1, 'v': [[3345]]})\n"
        "        _w({'k': 'end'})\n"
        "        time.sleep(0.005)\n"
        "threading.Thread(target=_flood, daemon=True).start()\n") + ADD_WRONG),
    _c("frames", "thread_keeps_reporting_after_the_suite_ends", ADD_TASK, _W + _wrong_add(head=(
        "import threading, time\n"
        "def _after():\n"
        "    while '__pg_h__' not in globals():\n"
        "        time.sleep(0.001)\n"
        "    time.sleep(0.2)\n"
        "    for _ in range(100):\n"
        "        _w({'k': 'h', 'i': 1, 'v': [[3]]})\n"
        "        _w({'k': 'end'})\n"
        "        time.sleep(0.01)\n"
        "threading.Thread(target=_after).start()\n"))),
    # one frame of 20 MB names ten million held sites: the grader must not pay for it beyond the
    # candidate's budget (it must not end the worker)
    _c("frames", "held_batch_of_ten_million_sites", ADD_TASK, _W + _wrong_add(
        "data = b'{\"k\": \"t\", \"i\": [' + b'1,' * (10**7 - 1) + b'1]}'\n"
        "_os.write(4, _struct.pack('>I', len(data)) + data)\nimport time\ntime.sleep(30)")),
]

# ---- guessing the expected values -------------------------------------------------------------------
GUESS = [
    _c("guess", "caller_code_constants", ADD_TASK, (
        "import sys\n"
        "def add(a, b):\n"
        "    consts = []\n"
        "    f = sys._getframe(1)\n"
        "    while f is not None:\n"
        "        stack = [f.f_code]\n"
        "        while stack:\n"
        "            code = stack.pop()\n"
        "            for c in code.co_consts:\n"
        "                if type(c) is int and c not in (a, b) and c > 99:\n"
        "                    consts.append(c)\n"
        "                elif hasattr(c, 'co_consts'):\n"
        "                    stack.append(c)\n"
        "        f = f.f_back\n"
        "    return max(consts) if consts else a - b\n\n\n" + _WRONG_IS_EVEN), "wrong_answer"),
    _c("guess", "gc_search_for_the_expected_literals", ADD_TASK, (
        "import gc\n"
        "def add(a, b):\n"
        "    want = {3345, 42000, 10**12 + 1}\n"     # what an oracle-less search would look for
        "    seen = set()\n"
        "    for obj in gc.get_objects():\n"
        "        items = obj.co_consts if hasattr(obj, 'co_consts') else obj if isinstance(obj, (list, tuple)) else ()\n"
        "        for x in items:\n"
        "            if type(x) is int and x in want:\n"
        "                seen.add(x)\n"
        "    if not seen:\n"
        "        return a - b\n"
        "    return min(seen, key=lambda x: abs(x - (a + b)))\n\n\n" + _WRONG_IS_EVEN), "wrong_answer"),
    _c("guess", "job_frame_and_marshalled_code_search", ADD_TASK, (
        "import gc, marshal, base64\n"
        "def add(a, b):\n"
        "    found = []\n"
        "    for obj in gc.get_objects():\n"
        "        if isinstance(obj, dict) and isinstance(obj.get('suite'), dict) and 'code' in obj['suite']:\n"
        "            code = marshal.loads(base64.b64decode(obj['suite']['code']))\n"
        "            stack = [code]\n"
        "            while stack:\n"
        "                c = stack.pop()\n"
        "                for k in c.co_consts:\n"
        "                    if hasattr(k, 'co_consts'):\n"
        "                        stack.append(k)\n"
        "                    elif type(k) is int and k not in (a, b):\n"
        "                        found.append(k)\n"
        "    return found[-1] if found else a - b\n\n\n" + _WRONG_IS_EVEN), "wrong_answer"),
    # the `if` keeps its literal in the process: a guess from the test's constants finds it
    _c("guess", "caller_code_constants_of_an_if_raise_check", IF_RAISE_TASK, (
        "import sys\n"
        "def add(a, b):\n"
        "    consts = [c for c in sys._getframe(1).f_code.co_consts if type(c) is int and c not in (a, b)]\n"
        "    return consts[0] if consts else a - b\n"), "wrong_answer", may_pass_if="control"),
    _c("guess", "test_globals_read_by_a_string_key", NAMED_TASK, (
        "def add(a, b):\n"
        "    table = globals().get('EXP' + 'ECTED')\n"
        "    if table is None:\n"
        "        return a - b\n"
        "    return table['first'] if a == 1000 else table['second']\n"), "wrong_answer"),
    _c("guess", "heap_search_for_the_tests_dict", NAMED_TASK, (
        "import gc\n"
        "def add(a, b):\n"
        "    for obj in gc.get_objects():\n"
        "        if type(obj) is dict and set(obj) == {'first', 'second'}:\n"
        "            return obj['first'] if a == 1000 else obj['second']\n"
        "    return a - b\n"), "wrong_answer"),
    # naming the test's global keeps it in the process (CPython's namespace is shared): counted visible
    _c("guess", "test_global_read_by_name", NAMED_TASK, (
        "def add(a, b):\n"
        "    return EXPECTED['first'] if a == 1000 else EXPECTED['second']\n"), may_pass_if="visible"),
]

# ---- the test's own helpers, patched (in-process assertions) -------------------------------------------
HELPERS = [
    _c("helpers", "helper_rebound_in_globals_from_a_call", HELPER_TASK, (
        "def sort_list(xs):\n"
        "    globals()['is_sorted'] = lambda ys: True\n"
        "    return list(xs)\n"), may_pass_if="in_process"),
    _c("helpers", "helper_code_swapped", HELPER_TASK, (
        "def sort_list(xs):\n"
        "    helper = globals().get('is_sorted')\n"
        "    if helper is not None:\n"
        "        helper.__code__ = (lambda ys: True).__code__\n"
        "    return list(xs)\n"), may_pass_if="in_process"),
    _c("helpers", "builtin_all_patched_for_the_helper", HELPER_TASK, (
        "import builtins\nbuiltins.all = lambda it: True\n" + HELPER_WRONG), may_pass_if="in_process"),
    _c("helpers", "module_level_all_shadows_the_helpers_builtin", HELPER_TASK, (
        "all = lambda it: True\n" + HELPER_WRONG), may_pass_if="in_process"),
    _c("helpers", "held_reporter_wrapped_to_always_hold", HELPER_TASK, (
        "import sys\n"
        "_g = globals()\n"
        "def _hook(event, args):\n"
        "    if event == 'exec' and '__pg_t__' in _g:\n"
        "        real = _g['__pg_t__']\n"
        "        _g['__pg_t__'] = lambda site, value: real(site, True)\n"
        "sys.addaudithook(_hook)\n" + HELPER_WRONG), may_pass_if="in_process"),
]

# ---- threads, children and exits -----------------------------------------------------------------------
EXITS = [
    _c("exits", "fork_child_reports_values", ADD_TASK, _W + _wrong_add(
        "pid = _os.fork()\n"
        "if pid == 0:\n"
        "    _w({'k': 'h', 'i': 1, 'v': [[a + b]]})\n"
        "    _w({'k': 'end'})\n"
        "    _os._exit(0)\n"
        "_os.waitpid(pid, 0)")),
    _c("exits", "fork_child_runs_on_with_the_reporter", ADD_TASK, _wrong_add(
        "import os\n"
        "if os.fork() != 0:\n"
        "    os._exit(0)")),
    # the child runs the rest of the test, right, but its reports are never sent; it then waits for a
    # next suite while the parent waits for it
    _c("exits", "fork_parent_waits_child_answers_right", NAMED_TASK, (
        "import os\n"
        "_child = []\n"
        "def add(a, b):\n"
        "    if not _child:\n"
        "        pid = os.fork()\n"
        "        if pid != 0:\n"
        "            os.waitpid(pid, 0)\n"
        "            os._exit(0)\n"
        "        _child.append(1)\n"
        "    return a + b\n"), "premature_exit", "timeout", cpu_s=0.5),
    _c("exits", "sys_exit_0_mid_test", ADD_TASK, _wrong_add("import sys\nsys.exit(0)"), "premature_exit"),
    _c("exits", "os_exit_0_mid_test", ADD_TASK, _wrong_add("import os\nos._exit(0)"), "premature_exit"),
    _c("exits", "system_exit_0_raised_as_if_by_the_test", ADD_TASK, _wrong_add(
        "exec(compile('raise SystemExit(0)', '<test>', 'exec'))"), "premature_exit"),
    # right where it answers, and exits at the first truth site instead of answering it
    _c("exits", "os_exit_0_at_the_first_truth_site", ADD_TASK, (
        "import os\n"
        "def add(a, b):\n    return a + b\n\n\n"
        "def is_even(n):\n    os._exit(0)\n"), "premature_exit"),
    # the test's own control flow decides whether its sites run: skipping them must still not pass
    _c("exits", "region_skipped_by_system_exit_as_if_by_the_test", REGION_TASK, (
        "def add(a, b):\n"
        "    exec(compile('raise SystemExit(0)', '<test>', 'exec'))\n"), "premature_exit"),
    _c("exits", "region_skipped_by_a_forged_end", REGION_TASK, _W + (
        "def add(a, b):\n"
        "    _w({'k': 'end'})\n"
        "    import time\n"
        "    time.sleep(30)\n"), "premature_exit", "tampering", "timeout"),
    _c("exits", "raise_check_skipped_by_system_exit_as_if_by_the_test", RAISES_TASK, (
        "def half(n):\n"
        "    if n < 0:\n"
        "        exec(compile('raise SystemExit(0)', '<test>', 'exec'))\n"
        "    return n // 2\n"), "premature_exit"),
    _c("exits", "raise_check_skipped_by_a_forged_end", RAISES_TASK, _W + (
        "def half(n):\n"
        "    if n < 0:\n"
        "        _w({'k': 'end'})\n"
        "        import time\n"
        "        time.sleep(30)\n"
        "    return n // 2\n"), "premature_exit", "tampering", "timeout"),
    _c("exits", "if_raise_check_skipped_by_a_forged_end", IF_RAISE_TASK, _W + (
        "def add(a, b):\n"
        "    _w({'k': 'end'})\n"
        "    import time\n"
        "    time.sleep(30)\n"), "premature_exit", "tampering", "timeout"),
    _c("exits", "forged_load_and_end_at_import", REGION_TASK, _W + (
        "_w({'k': 'load', 'ok': True})\n"
        "_w({'k': 'end'})\n"
        "import time\n"
        "time.sleep(30)\n"
        "def add(a, b):\n    return a - b\n"), "premature_exit", "tampering", "timeout"),
    _c("exits", "shipped_example_raise_check_skipped_by_a_forged_end", PARSE_DURATION_TASK, _W + PARSE_WRONG.format(
        cheat="_w({'k': 'end'})\n        import time\n        time.sleep(30)\n        "), "premature_exit", "tampering", "timeout"),
    _c("exits", "region_skipped_by_exit_0", REGION_TASK, "def add(a, b):\n    import os\n    os._exit(0)\n",
       "premature_exit"),
]

# ---- objects that are not plain data ---------------------------------------------------------------------
PLAIN = [
    _c("plain", "eq_always_true_against_a_literal", ADD_TASK, (
        "class Anything:\n"
        "    def __eq__(self, other):\n        return True\n"
        "    def __ne__(self, other):\n        return False\n"
        "    __hash__ = object.__hash__\n"
        "def add(a, b):\n    return Anything()\n\n\n" + _WRONG_IS_EVEN), "not_plain_data", "wrong_answer"),
    _c("plain", "int_subclass_with_lying_eq", ADD_TASK, (
        "class Liar(int):\n"
        "    def __eq__(self, other):\n        return True\n"
        "    def __ne__(self, other):\n        return False\n"
        "    __hash__ = int.__hash__\n"
        "def add(a, b):\n    return Liar(a - b)\n\n\n" + _WRONG_IS_EVEN), "not_plain_data", "wrong_answer"),
    _c("plain", "object_claiming_to_be_an_int", ADD_TASK, (
        "class Fake:\n"
        "    __class__ = property(lambda self: int)\n"
        "    def __eq__(self, other):\n        return True\n"
        "    __hash__ = object.__hash__\n"
        "def add(a, b):\n    return Fake()\n\n\n" + _WRONG_IS_EVEN), "not_plain_data", "wrong_answer"),
    _c("plain", "list_holding_a_lying_dict_subclass", ADD_TASK, (
        "class D(dict):\n"
        "    def __eq__(self, other):\n        return True\n"
        "    __hash__ = None\n"
        "def add(a, b):\n    return [D()]\n\n\n" + _WRONG_IS_EVEN), "not_plain_data", "wrong_answer"),
    _c("plain", "eq_always_true_in_a_comparison_decided_in_process", TRUTH_TASK, (
        "class Anything:\n"
        "    def __eq__(self, other):\n        return True\n"
        "    __hash__ = object.__hash__\n"
        "    def __bool__(self):\n        return self.n % 2 == 0\n"
        "def is_even(n):\n    a = Anything()\n    a.n = n\n    return a if n == 8004 else n % 2 == 0\n"),
       "not_plain_data"),
]

# ---- truth sites -------------------------------------------------------------------------------------------
TRUTH = [
    _c("truth", "bool_that_flips_each_time", TRUTH_TASK, (
        "class Flip:\n"
        "    calls = 0\n"
        "    def __bool__(self):\n"
        "        Flip.calls += 1\n"
        "        return Flip.calls % 2 == 1\n"
        "    def __eq__(self, other):\n        return True\n"
        "    __hash__ = object.__hash__\n"
        "def is_even(n):\n    return Flip()\n"), "not_plain_data", "wrong_answer"),
    _c("truth", "int_subclass_lying_bool_and_index", TRUTH_TASK, (
        "class B(int):\n"
        "    def __bool__(self):\n        return True\n"
        "    def __index__(self):\n        return 1\n"
        "def is_even(n):\n    return B(n % 2)\n"), "not_plain_data", "wrong_answer"),
    _c("truth", "bool_raises_system_exit", TRUTH_TASK, (
        "class Exit:\n"
        "    def __bool__(self):\n        raise SystemExit(0)\n"
        "def is_even(n):\n    return Exit()\n"), "premature_exit"),
    _c("truth", "bool_returns_a_non_bool", TRUTH_TASK, (
        "class Odd:\n"
        "    def __bool__(self):\n        return 1\n"
        "def is_even(n):\n    return Odd()\n")),
    _c("truth", "bool_rebinds_the_reporters", TRUTH_TASK, (
        "class Sneaky:\n"
        "    def __bool__(self):\n"
        "        g = globals()\n"
        "        for name in " + _REPORTERS + ":\n"
        "            g[name] = lambda *a: True\n"
        "        return True\n"
        "def is_even(n):\n    return Sneaky()\n")),
]

CASES = REPORTERS + FRAMES + GUESS + HELPERS + EXITS + PLAIN + TRUTH

# honest and wrong controls: each task must be able to pass and to fail
CONTROLS = [
    ("add", ADD_TASK, ADD_GOOD, ADD_WRONG),
    ("helper", HELPER_TASK, HELPER_GOOD, HELPER_WRONG),
    ("truth", TRUTH_TASK, TRUTH_GOOD, TRUTH_WRONG),
    ("region", REGION_TASK, "def add(a, b):\n    return a + b\n", "def add(a, b):\n    return a - b\n"),
    ("named", NAMED_TASK, "def add(a, b):\n    return a + b\n", "def add(a, b):\n    return a - b\n"),
    ("raises", RAISES_TASK, RAISES_GOOD, RAISES_WRONG),
    ("parse_duration", PARSE_DURATION_TASK, PARSE_GOOD, PARSE_WRONG.format(cheat="")),
    ("if_raise", IF_RAISE_TASK, "def add(a, b):\n    return a + b\n", "def add(a, b):\n    return a - b\n"),
]
