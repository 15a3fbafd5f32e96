"""Task kinds in other languages (humaneval-x, multipl-e) in the manifest and the task loaders, and the
samples files of both datasets imported as they are: no sandbox."""

from __future__ import annotations

import gzip
import json

import pytest

from passgate.core.candidates.language_samples import import_language_samples, language_postprocess
from passgate.core.errors import ConfigError
from passgate.core.languages.job import texts_of
from passgate.core.model import LanguageJob
from passgate.core.languages.names import TITLES
from passgate.core.languages.registry import SPECS
from passgate.core.manifest import PostprocessContract, parse_manifest
from passgate.core.model import PostprocessSpec
from passgate.core.sandbox.runner import TaskSpec
from passgate.core.tasks.io import path_sha256
from passgate.core.kinds.sets import load_task_set
from tests.conftest import DATASETS

HX = DATASETS / "humaneval-x"
ME = DATASETS / "multipl-e"


def manifest_text(sets: str) -> str:
    return f"version: 1\nname: t\ntasks:\n  sets:\n{sets}\ncandidates:\n  source: reference\n"


def test_a_humaneval_x_set_names_its_language_and_carries_the_dataset_s_suites_and_references():
    ts = load_task_set("humaneval-x", HX / "cpp" / "humaneval_cpp.jsonl.gz", language="c++", task_ids=["CPP/0"])
    task = ts.tasks[0]
    assert (ts.set_id, ts.revision, task.slice) == ("humaneval-x-cpp", "codegeex-2838420", "humaneval-x-cpp")
    assert task.tags == ("language:cpp", "dataset:humaneval-x", "integrity:outside")
    assert task.protected_tests.lstrip().startswith("#undef NDEBUG") and task.public_tests
    assert task.reference_solution.rstrip().endswith("}")
    job = task.language
    assert (job.language, job.dataset) == ("cpp", "humaneval-x") and task.test_setup == ""
    assert LanguageJob.from_json(job.to_json()) == job and LanguageJob.is_header(job.to_json())


def test_the_rust_prompt_a_model_continues_ends_with_the_signature_from_the_declaration():
    task = load_task_set("humaneval-x", HX / "rust" / "humaneval_rust.jsonl.gz", language="rs",
                         task_ids=["Rust/0"]).tasks[0]
    assert task.prompt.rstrip().endswith("fn has_close_elements(numbers:Vec<f32>, threshold: f32) -> bool{")
    assert not task.public_tests                    # HumanEval-X's Rust file has no example tests


def test_a_go_set_pins_the_vendored_testify_its_own_programs_need():
    job = load_task_set("humaneval-x", HX / "go" / "humaneval_go.jsonl.gz", language="go",
                        task_ids=["Go/32"]).tasks[0].language
    assert job.support_sha256 == {"vendor.tar.gz": "46dcd59eb54c4eb2ee36e9dbd64be55628e3e19b1a8e87c3b1f74700a81ccfd5"}


def test_a_multipl_e_set_takes_its_language_from_the_file_and_has_no_reference():
    ts = load_task_set("multipl-e", ME / "humaneval-ts.jsonl")
    task = ts.tasks[0]
    assert (ts.set_id, ts.revision, len(ts.tasks)) == ("multipl-e-ts", "sandboxfusion-469de08", 159)
    assert task.task_id == "ts/HumanEval_0_has_close_elements" and task.entry_point == "has_close_elements"
    assert not task.reference_solution and not task.public_tests
    assert any("no reference solutions" in n for n in ts.notes)
    assert task.language.stop_tokens == ("\nfunction ", "\n/*", "\n//", "\nclass")


def test_a_multipl_e_set_whose_language_disagrees_with_its_file_is_refused():
    with pytest.raises(ConfigError, match="holds MultiPL-E ts tasks"):
        load_task_set("multipl-e", ME / "humaneval-ts.jsonl", language="js")


def test_a_humaneval_x_file_of_another_language_is_refused():
    with pytest.raises(ConfigError, match="is not a JavaScript task"):
        load_task_set("humaneval-x", HX / "cpp" / "humaneval_cpp.jsonl.gz", language="js")


@pytest.mark.parametrize("language, missing", [("lua", "luaunit"), ("jl", "julia"), ("swift", "Swift compiler")])
def test_a_language_without_a_debian_toolchain_is_refused_with_what_is_missing(language, missing):
    with pytest.raises(ConfigError, match=missing):
        load_task_set("multipl-e", ME / f"humaneval-{language}.jsonl")


def test_every_multipl_e_file_loads_or_is_refused_with_a_reason():
    graded, refused = [], []
    for path in sorted(ME.glob("humaneval-*.jsonl")):
        try:
            graded.append(load_task_set("multipl-e", path).set_id)
        except ConfigError as exc:
            refused.append((path.name, str(exc)))
    assert len(graded) == 15 and {name for name, _ in refused} == {
        "humaneval-jl.jsonl", "humaneval-lua.jsonl", "humaneval-swift.jsonl"}
    assert all("cannot be graded here" in why for _, why in refused)


def test_the_manifest_needs_a_language_for_humaneval_x_and_keeps_python_and_other_languages_apart():
    with pytest.raises(ConfigError, match="needs `language:`"):
        parse_manifest(manifest_text("    - {kind: humaneval-x, path: x.jsonl.gz}"))
    with pytest.raises(ConfigError, match="applies to humaneval-x and multipl-e"):
        parse_manifest(manifest_text("    - {kind: humaneval, language: js}"))
    with pytest.raises(ConfigError, match="not both"):
        parse_manifest(manifest_text("    - {kind: humaneval}\n    - {kind: multipl-e, path: m.jsonl}"))
    m = parse_manifest(manifest_text("    - {kind: humaneval-x, language: js, path: x.jsonl.gz}"))
    assert m.tasks.sets[0].language == "js"


def test_a_language_set_has_no_import_contract():
    with pytest.raises(ConfigError, match="allowed_imports applies to Python task sets"):
        parse_manifest(manifest_text("    - {kind: humaneval-x, language: js, path: x.jsonl.gz, allowed_imports: any}"))


def test_a_language_manifest_takes_no_python_packages():
    text = manifest_text("    - {kind: multipl-e, path: m.jsonl}") + \
        "execution:\n  packages: ['numpy==1.26.4 --hash=sha256:" + "0" * 64 + "']\n"
    with pytest.raises(ConfigError, match="execution.packages adds Python packages"):
        parse_manifest(text)


def test_the_worker_s_task_spec_carries_the_language_header_and_both_suites():
    task = load_task_set("humaneval-x", HX / "js" / "humaneval_js.jsonl.gz", language="js",
                         task_ids=["JavaScript/0"]).tasks[0]
    texts = texts_of(TaskSpec.of(task))
    assert (texts.task_id, texts.header) == ("JavaScript/0", task.language.to_json())
    assert (texts.protected, texts.public) == (task.protected_tests, task.public_tests)
    assert LanguageJob.from_json(texts.header).language == "js"


def test_the_new_keys_leave_an_older_manifest_s_id_unchanged():
    text = manifest_text("    - {kind: humaneval}")
    canonical = parse_manifest(text).canonical()
    assert "language" not in canonical["tasks"]["sets"][0]
    assert "language_images" not in canonical["execution"] and "compile_cpu_s" not in canonical["execution"]["limits"]


def test_every_graded_language_has_a_display_name():
    assert set(SPECS) <= set(TITLES) and all(TITLES[name] == spec.title for name, spec in SPECS.items())


# ---------------------------------------------------------------------------- samples
@pytest.fixture(scope="module")
def js_tasks():
    ts = load_task_set("humaneval-x", HX / "js" / "humaneval_js.jsonl.gz", language="js",
                       task_ids=["JavaScript/0", "JavaScript/1"])
    return {t.task_id: t for t in ts.tasks}


@pytest.fixture(scope="module")
def ts_tasks():
    return {t.task_id: t for t in load_task_set("multipl-e", ME / "humaneval-ts.jsonl").tasks}


def test_codegeex_samples_import_as_they_are(tmp_path, js_tasks):
    path = tmp_path / "samples.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in [
        {"task_id": "JavaScript/0", "prompt": "...", "generation": "  return true;\n}\n"},
        {"task_id": "JavaScript/0", "generation": "  return false;\n}\n"},
        {"task_id": "JavaScript/9", "generation": "x"}]) + "\n")
    result = import_language_samples(path, js_tasks, fmt="auto", postprocess=PostprocessContract())
    assert result.format == "humaneval-x"
    assert [(c.task_id, c.candidate_index, c.program) for c in result.candidates] == [
        ("JavaScript/0", 0, "  return true;\n}\n"), ("JavaScript/0", 1, "  return false;\n}\n")]
    assert "not in the task set" in result.rejected[0]["reason"]


def test_multipl_e_completions_import_from_a_directory_with_counts(tmp_path, ts_tasks):
    task = ts_tasks["ts/HumanEval_0_has_close_elements"]
    record = {"name": "HumanEval_0_has_close_elements", "language": "ts", "prompt": task.prompt, "tests": "",
              "stop_tokens": ["\nfunction "], "completions": [{"count": 2, "text": "  return true;\n}\n"},
                                                             {"count": 1, "text": "  return false;\n}\nfunction x"}]}
    folder = tmp_path / "completions"
    folder.mkdir()
    with gzip.open(folder / "HumanEval_0_has_close_elements.json.gz", "wt") as fh:
        json.dump(record, fh, indent=1)
    (folder / "HumanEval_0_has_close_elements.results.json.gz").write_bytes(b"not read")
    result = import_language_samples(folder, ts_tasks, fmt="auto",
                                     postprocess=PostprocessContract(dataset_stop_tokens=True))
    assert result.format == "multipl-e" and result.sha256 == path_sha256(folder)
    assert [c.program for c in result.candidates] == ["  return true;\n}\n"] * 2 + ["  return false;\n}"]
    assert "stop token" in result.candidates[2].source_ref


def test_a_directory_s_pin_changes_with_any_file_in_it(tmp_path):
    (tmp_path / "a.json").write_text("{}")
    before = path_sha256(tmp_path)
    (tmp_path / "b.json").write_text("{}")
    assert path_sha256(tmp_path) != before


def test_a_chat_answer_gives_the_code_after_the_signature_from_its_fenced_block(js_tasks):
    task = js_tasks["JavaScript/0"]
    answer = ("Here you go:\n```javascript\nconst hasCloseElements = (numbers, threshold) => {\n  return true;\n}\n```"
              "\nHope it helps.")
    text, notes = language_postprocess(answer, task, PostprocessSpec(extract_fence=True))
    assert text == "  return true;\n}\n"
    assert "fenced code block extracted" in notes and "signature" in notes


def test_a_completion_that_repeats_the_prompt_keeps_only_what_follows_it(js_tasks):
    task = js_tasks["JavaScript/1"]
    text, notes = language_postprocess(task.prompt + "  return [];\n}\n", task, PostprocessSpec())
    assert text == "  return [];\n}\n" and "repeated prompt" in notes


def test_a_language_runs_generated_text_becomes_its_completion_and_a_python_runs_stays_python():
    """Generation makes a candidate's program by the grader the manifest's kinds name."""
    from passgate.core.candidates.generate import _program_maker
    from passgate.core.candidates.language_samples import language_program
    from passgate.core.candidates.samples import postprocess
    from pathlib import Path

    from passgate.core.manifest import load_manifest
    examples = Path(__file__).resolve().parents[2] / "examples"
    assert _program_maker(load_manifest(examples / "humaneval-x-canonical.yaml")[0]) is language_program
    assert _program_maker(load_manifest(examples / "humaneval-canonical.yaml")[0]) is postprocess
    task = load_task_set("humaneval-x", HX / "cpp" / "humaneval_cpp.jsonl.gz", language="c++",
                         task_ids=["CPP/0"]).tasks[0]
    body = "    return false;\n}\n"
    spec = PostprocessSpec(stop=(), extract_fence=True, style="auto")
    assert language_program(f"Here it is:\n```cpp\n{body}```\n", task, spec) == (body, body)


def test_a_language_task_reads_back_from_its_record_row_as_it_was_loaded():
    """The header is parsed once, from the row; the row holds the same text as before the type."""
    from passgate.core.errors import StoreError
    from passgate.core.run.rows import task_of, task_rows
    task = load_task_set("humaneval-x", HX / "cpp" / "humaneval_cpp.jsonl.gz", language="c++",
                         task_ids=["CPP/0"]).tasks[0]
    (row,) = task_rows([task])
    assert row["test_setup"] == row["oracle_json"] == task.language.to_json()
    again = task_of("r1", row)
    assert again.language == task.language and again.test_setup == "" and again.oracle == task.oracle
    with pytest.raises(StoreError, match="run r1, task CPP/0: test_setup"):
        task_of("r1", {**row, "test_setup": row["test_setup"].replace('"language"', '"lang"')})
