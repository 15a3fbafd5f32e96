"""Placement must not change a verdict: one task file through the real engine and sandbox with one
worker and with two, and with its tasks in two orders, gives every candidate the same verdict.

The tasks are made to leak if anything outlives a candidate in a long-lived worker: one test
changes the process's state (`time.time` patched, the decimal context's precision, `random`'s
seed, `os.environ`, the recursion limit) and another reads it; one test registers a type with a
`collections.abc` ABC (a statement the grader runs on its own side, where the expected values
are) and another asks that ABC about the type. Each task has an honest and a wrong candidate,
and one candidate changes the same state when it loads.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from passgate.core.kinds.sets import file_sha256
from tests.core.enginekit import make_manifest, outcomes, run, write_samples

_RNG = random.Random(424242)
_R1, _R2 = _RNG.random(), _RNG.random()

SET_STATE = ("import decimal, os, random, sys, time\n"
             "time.time = lambda: 1000.0\n"
             "decimal.getcontext().prec = 5\n"
             "random.seed(424242)\n"
             "os.environ['PG_PLACEMENT'] = 'set'\n"
             "sys.setrecursionlimit(120)\n"
             f"assert snapshot() == (1000.0, 5, {_R1!r}, 'set', 120)\n"
             "assert str(decimal.Decimal(1) / decimal.Decimal(7)) == '0.14286'\n")
READ_STATE = ("s = snapshot()\n"
              "assert s[0] > 1600000000\n"
              "assert s[1] == 28\n"
              f"assert s[2] not in ({_R1!r}, {_R2!r})\n"
              "assert s[3] is None\n"
              "assert s[4] != 120\n")
SNAPSHOT = ("import decimal, os, random, sys, time\n"
            "def snapshot():\n"
            "    return (time.time(), decimal.getcontext().prec, random.random(), os.environ.get('PG_PLACEMENT'),\n"
            "            sys.getrecursionlimit())\n")
# state taken when the program loads, before the test changes it
SNAPSHOT_AT_LOAD = ("import decimal, os, random, sys, time\n"
                    "_T, _P = time.time, decimal.getcontext().prec\n"
                    "def snapshot():\n"
                    "    return (_T(), _P, random.random(), os.environ.get('PG_PLACEMENT'), sys.getrecursionlimit())\n")
# changes every piece of state itself when it loads (a wrong answer for the reader's test)
SNAPSHOT_SETS_STATE = ("import decimal, os, random, sys, time\n"
                       "time.time = lambda: 1000.0\n"
                       "decimal.getcontext().prec = 5\n"
                       "random.seed(424242)\n"
                       "os.environ['PG_PLACEMENT'] = 'set'\n"
                       "sys.setrecursionlimit(120)\n"
                       "import collections.abc\n"
                       "collections.abc.Sequence.register(frozenset)\n" + SNAPSHOT)

REGISTER = ("import collections.abc\n"
            "collections.abc.Sequence.register(frozenset)\n"
            "assert as_frozen([1, 2]) == frozenset({1, 2})\n")
ASK_REGISTRY = ("import collections.abc\n"
                "assert not isinstance(as_frozen([1, 2]), collections.abc.Sequence)\n"
                "assert as_frozen([3]) == frozenset({3})\n")
AS_FROZEN = "def as_frozen(xs):\n    return frozenset(xs)\n"
AS_TUPLE = "def as_frozen(xs):\n    return tuple(xs)\n"

TASKS = [
    ("placement/set-state", "snapshot", SET_STATE),
    ("placement/register-abc", "as_frozen", REGISTER),
    ("placement/read-state", "snapshot", READ_STATE),
    ("placement/ask-abc", "as_frozen", ASK_REGISTRY),
]
# (task, program, the verdict it must get wherever it runs)
CANDIDATES = [
    ("placement/set-state", SNAPSHOT, "passed"),
    ("placement/set-state", SNAPSHOT_AT_LOAD, "wrong_answer"),
    ("placement/set-state", SNAPSHOT_SETS_STATE, "passed"),
    ("placement/register-abc", AS_FROZEN, "passed"),
    ("placement/register-abc", AS_TUPLE, "wrong_answer"),
    ("placement/read-state", SNAPSHOT, "passed"),
    ("placement/read-state", SNAPSHOT_AT_LOAD, "passed"),
    ("placement/read-state", SNAPSHOT_SETS_STATE, "wrong_answer"),
    ("placement/ask-abc", AS_FROZEN, "passed"),
    ("placement/ask-abc", AS_TUPLE, "wrong_answer"),
]


def _task_file(path: Path, order: list[int]) -> Path:
    lines = []
    for i in order:
        task_id, entry, tests = TASKS[i]
        lines.append(json.dumps({"task_id": task_id, "prompt": f"# write {entry}\n", "entry_point": entry,
                                 "protected_tests": tests, "completion_style": "full"}))
    path.write_text("\n".join(lines) + "\n")
    return path


def _verdicts(tmp: Path, image_digest: str, name: str, order: list[int], workers: int) -> tuple[dict, list]:
    tasks = _task_file(tmp / f"{name}.jsonl", order)
    # candidates are graded in the order they were imported: the samples follow the task order (each
    # task's candidates keep their order, so their indices)
    rows = [(t, p) for i in order for t, p, _ in CANDIDATES if t == TASKS[i][0]]
    samples = write_samples(tmp / f"{name}-samples.jsonl", rows)
    manifest = make_manifest(tmp, image_digest, [], samples, name=name, execution={"workers": workers},
                             tasks={"sets": [{"kind": "product", "path": str(tasks), "sha256": file_sha256(tasks)}]})
    store, run_id = run(tmp, manifest, db_name=f"{name}.db")
    out = outcomes(store, run_id)
    started = [(e["started_at"], e["task_id"]) for e in store.rows("executions", run_id)]
    return {key: (o["outcome"], o["failure_class"]) for key, o in out.items()}, started


@pytest.fixture(scope="module")
def placements(tmp_path_factory, image_digest):
    """The same task file graded four times: one worker and two, its tasks forward and backward."""
    tmp = tmp_path_factory.mktemp("placement")
    runs = {}
    for workers in (1, 2):
        for label, order in (("forward", [0, 1, 2, 3]), ("backward", [3, 2, 1, 0])):
            runs[(workers, label)] = _verdicts(tmp, image_digest, f"w{workers}-{label}", order, workers)
    return runs


def _moved(runs, tasks):
    """{(task, index): {placement: verdict}} for every candidate of `tasks` whose verdict is not the one
    it must get, wherever it ran."""
    index, wrong = {}, {}
    for task_id, _program, verdict in CANDIDATES:
        i = index[task_id] = index.get(task_id, -1) + 1
        if task_id not in tasks:
            continue
        for placement, (verdicts, _started) in runs.items():
            outcome, cls = verdicts[(task_id, i)]
            said = "passed" if outcome == "passed" else cls
            if said != verdict:
                wrong.setdefault((task_id, i), {})[placement] = said
    return wrong


def test_the_two_orders_really_differ(placements):
    """One worker grades the candidates in the order they were imported, which follows the task file."""
    assert min(placements[(1, "forward")][1])[1] == "placement/set-state"
    assert min(placements[(1, "backward")][1])[1] == "placement/ask-abc"


def test_process_state_a_test_changes_never_reaches_another_candidate(placements):
    """time.time, the decimal context, random's seed, os.environ and the recursion limit, changed by
    one task's test (or by a candidate when it loads), are the process's: the next candidate is fresh."""
    moved = _moved(placements, {"placement/set-state", "placement/read-state"})
    assert not moved, f"verdicts that moved with placement: {moved}"


def test_grader_state_a_test_changes_never_reaches_another_candidate(placements):
    """A test's static statement runs in the grader, which outlives the candidate: registering a type
    with an ABC there must not change how a later task's assertion is decided."""
    moved = _moved(placements, {"placement/register-abc", "placement/ask-abc"})
    assert not moved, f"verdicts that moved with placement: {moved}"
