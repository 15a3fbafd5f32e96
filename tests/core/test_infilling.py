"""Local edits (HumanEval infilling): the four benchmarks load from any path, pinned, sliced per
benchmark; a candidate's program is the code before the gap + its completion + the code after;
samples in human-eval-infilling's shape import as they are; graded in the real sandbox."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from passgate.core.candidates.samples import import_samples
from passgate.core.errors import ConfigError
from passgate.core.model import PostprocessSpec
from passgate.core.tasks.infilling import canonical_middle
from passgate.core.kinds.sets import load_task_set
from tests.core.enginekit import outcomes, run

INFILLING = Path(__file__).resolve().parents[3] / "shared" / "datasets" / "infilling"
BENCHMARKS = {"single-line": ("HumanEval-SingleLineInfilling.jsonl.gz", 1033),
              "multi-line": ("HumanEval-MultiLineInfilling.jsonl.gz", 5815),
              "random-span": ("HumanEval-RandomSpanInfilling.jsonl.gz", 1640),
              "random-span-light": ("HumanEval-RandomSpanInfillingLight.jsonl.gz", 164)}
RECORD = {"task_id": "toy/0", "entry_point": "double", "suffix": "\n",
          "prompt": 'def double(x):\n    """Twice x.\n    >>> double(2)\n    4\n    """\n    return ',
          "canonical_solution": "2 * x", "test": "def check(candidate):\n    assert candidate(3) == 6\n"}


def write_lines(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


@pytest.mark.parametrize("benchmark", list(BENCHMARKS))
def test_each_benchmark_loads_from_any_path_as_one_slice(benchmark, tmp_path):
    name, count = BENCHMARKS[benchmark]
    copy = tmp_path / "elsewhere" / name
    copy.parent.mkdir()
    shutil.copyfile(INFILLING / name, copy)
    ts = load_task_set("humaneval-infilling", copy)
    assert (len(ts.tasks), ts.set_id, ts.revision) == (count, "humaneval-infilling", "88062ff")
    assert {t.slice for t in ts.tasks} == {benchmark}
    task = ts.tasks[0]
    middle = canonical_middle(task)
    assert task.reference_solution == task.prompt + middle + task.infill_suffix
    assert task.completion_style == "infill" and "check(candidate)" in task.protected_tests


def test_a_file_that_is_not_a_known_release_is_pinned_by_its_sha256(tmp_path):
    ts = load_task_set("humaneval-infilling", write_lines(tmp_path / "own.jsonl", [RECORD]))
    assert ts.revision == f"sha256:{ts.sha256[:12]}" and ts.tasks[0].slice == "infilling"
    assert load_task_set("humaneval-infilling", write_lines(tmp_path / "own.jsonl", [RECORD]),
                         slice="edits").tasks[0].slice == "edits"


def test_the_public_suite_is_the_docstring_examples_only_when_the_code_before_the_gap_holds_them(tmp_path):
    seen = load_task_set("humaneval-infilling", write_lines(tmp_path / "a.jsonl", [RECORD])).tasks[0]
    assert "('doctest', 'double(2)\\n', '4\\n')" in seen.public_tests
    cut = {**RECORD, "prompt": 'def double(x):\n    """Twice x.\n    >>> dou',
           "canonical_solution": "ble(2)\n    4\n    \"\"\"\n    return 2 * x"}
    hidden = load_task_set("humaneval-infilling", write_lines(tmp_path / "b.jsonl", [cut])).tasks[0]
    assert hidden.public_tests == "" and hidden.protected_tests
    assert "double(2)" in seen.public_suffix and hidden.public_suffix == ""   # what the grader runs


def test_the_docstring_examples_are_graded_as_the_public_suite():
    from tests.local_worker import grade
    task = load_task_set("humaneval-infilling", INFILLING / BENCHMARKS["single-line"][0],
                         task_ids=["SingleLineInfilling/HumanEval/0/L0"]).tasks[0]
    right = grade(task, task.reference_solution)
    wrong = grade(task, task.prompt + "    return True\n" + task.infill_suffix)
    assert right.public and right.public.status == "passed" and right.passed
    assert wrong.public and wrong.public.status != "passed"


def test_helpers_beside_the_entry_point_are_the_tests_setup_never_the_entry_point():
    ts = load_task_set("humaneval-infilling", INFILLING / BENCHMARKS["single-line"][0],
                       task_ids=["SingleLineInfilling/HumanEval/38/L0"])
    setup = ts.tasks[0].test_setup
    assert "def encode_cyclic" in setup and "def decode_cyclic" not in setup


@pytest.mark.parametrize("field, value, words", [
    ("suffix", None, "missing required field"),
    ("canonical_solution", 7, "must be str"),
    ("canonical_solution", "2 *", "is not Python"),
    ("entry_point", "triple", "defines no function 'triple'"),
])
def test_bad_records_name_file_line_and_field(tmp_path, field, value, words):
    bad = {**RECORD}
    if value is None:
        del bad[field]
    else:
        bad[field] = value
    path = write_lines(tmp_path / "bad.jsonl", [RECORD, bad])
    with pytest.raises(ConfigError) as caught:
        load_task_set("humaneval-infilling", path)
    assert (caught.value.path, caught.value.line, caught.value.field) == (str(path), 2, field)
    assert words in str(caught.value)


def test_samples_in_the_infilling_shape_import_as_they_are_between_before_and_after():
    ts = load_task_set("humaneval-infilling", INFILLING / "example_problem.jsonl")
    result = import_samples(INFILLING / "example_samples.jsonl", {t.task_id: t for t in ts.tasks},
                            postprocess=PostprocessSpec(style="body"))
    assert result.format == "human-eval" and len(result.candidates) == 10 and not result.rejected
    for cand in result.candidates:
        assert cand.program == "def return1():\n" + cand.raw_text + "1"
        assert cand.completion_style == "infill" and cand.latency_ms is None and cand.first_token_ms is None


def test_latency_comes_from_a_samples_file_only_where_it_records_it(tmp_path):
    ts = load_task_set("humaneval-infilling", INFILLING / "example_problem.jsonl")
    tasks = {t.task_id: t for t in ts.tasks}
    rows = [{"task_id": "test/0", "completion": "    return ", "latency_ms": 120.5, "first_token_ms": 40,
             "completion_tokens": 3},
            {"task_id": "test/0", "completion": "  return "}]
    cands = import_samples(write_lines(tmp_path / "timed.jsonl", rows), tasks,
                           postprocess=PostprocessSpec()).candidates
    assert [(c.latency_ms, c.first_token_ms, c.completion_tokens) for c in cands] == [(120.5, 40.0, 3),
                                                                                     (None, None, None)]
    for bad, field in (({"latency_ms": -1}, "latency_ms"), ({"completion_tokens": 2.5}, "completion_tokens"),
                       ({"latency_ms": 10, "first_token_ms": 11}, "first_token_ms")):
        path = write_lines(tmp_path / "bad.jsonl", [rows[1], {**rows[1], **bad}])
        with pytest.raises(ConfigError) as caught:
            import_samples(path, tasks, postprocess=PostprocessSpec())
        assert (caught.value.line, caught.value.field) == (2, field)


# ------------------------------------------------------------------------- in the real sandbox
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.docker
def test_the_example_samples_get_the_reference_harness_verdicts(tmp_path):
    store, run_id = run(tmp_path, EXAMPLES / "infilling-example-samples.yaml")
    got = {i: (o["outcome"], o["failure_class"]) for (_, i), o in outcomes(store, run_id).items()}
    assert got == {0: ("failed", "syntax_error"), 1: ("failed", "wrong_answer"), 2: ("failed", "syntax_error"),
                   3: ("failed", "wrong_answer"), 4: ("failed", "wrong_answer"), 5: ("failed", "wrong_answer"),
                   6: ("passed", None), 7: ("passed", None), 8: ("passed", None), 9: ("passed", None)}
    selfcheck = json.loads(store.run(run_id)["selfcheck_json"])
    assert (selfcheck["references"], selfcheck["passed"]) == (1, 1)
