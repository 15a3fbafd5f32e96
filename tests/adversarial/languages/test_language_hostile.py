"""Every hostile candidate of every language fails, and none ends as an evaluator error: each runs
through the product's language runner (core/languages/runner.py), in the language's pinned image
under gVisor, with the engine's limits."""

from __future__ import annotations

import importlib

import pytest

from passgate.core.languages.runner import LanguageImage, LanguageRunner
from passgate.core.languages.registry import spec_for
from passgate.core.sandbox.runner import EvalRequest, TaskSpec, WorkerLost, limits_for
from passgate.core.kinds.sets import load_task_set
from tests.conftest import DATASETS, sandbox_limits
from tests.languages.images import language_image

pytestmark = pytest.mark.docker

CORPORA = {"js": "javascript", "cpp": "cpp", "java": "java", "go": "golang", "rs": "rust", "sh": "shell"}
HUMANEVAL_X = {"js": "js", "cpp": "cpp", "java": "java", "go": "go", "rs": "rust"}
# the engine's limits, with a container large enough for the compilers (scratch for their output)
LIMITS = sandbox_limits(cpu_s=2.0, wall_factor=3.0, memory_mb=1024, container_memory_mb=2048, scratch_mb=512,
                        nproc=32)
COMPILE_CPU_S = 15.0


def _cases():
    for lang, module in CORPORA.items():
        corpus = importlib.import_module(f"tests.adversarial.languages.{module}")
        for case in corpus.CASES:
            yield pytest.param(lang, case, id=f"{lang}-{case.name}")


def hostile_tasks(lang: str, task_ids: set[str]) -> dict:
    """The tasks the cases answer: HumanEval-X's, or MultiPL-E's where the dataset has no such language (Bash)."""
    if lang in HUMANEVAL_X:
        folder = HUMANEVAL_X[lang]
        ts = load_task_set("humaneval-x", DATASETS / "humaneval-x" / folder / f"humaneval_{folder}.jsonl.gz",
                           language=lang, task_ids=sorted(task_ids))
        return {t.task_id: t for t in ts.tasks}
    ts = load_task_set("multipl-e", DATASETS / "multipl-e" / f"humaneval-{lang}.jsonl")
    return {t.task_id.split("/", 1)[1]: t for t in ts.tasks}


@pytest.fixture(scope="module")
def workers(docker_client):
    opened = {}

    def worker_for(lang: str):
        if lang in opened and opened[lang][1].worn():    # as the engine does: a fresh sandbox for the next one
            opened[lang][1].close()
            opened[lang] = (opened[lang][0], opened[lang][0].new_worker())
        if lang not in opened:
            digest = language_image(docker_client, lang)
            runner = LanguageRunner(images=[LanguageImage(lang, spec_for(lang).toolchain.tag, digest)],
                                    runtime="runsc", limits=LIMITS, compile_cpu_s=COMPILE_CPU_S,
                                    run_label="pytest-hostile", client=docker_client)
            runner.check()
            opened[lang] = (runner, runner.new_worker())
        return opened[lang][1]
    yield worker_for
    for runner, _worker in opened.values():
        runner.close()


@pytest.fixture(scope="module")
def tasks():
    found = {}
    for lang, module in CORPORA.items():
        ids = {case.task_id for case in importlib.import_module(f"tests.adversarial.languages.{module}").CASES}
        found[lang] = hostile_tasks(lang, ids)
    return found


@pytest.mark.parametrize("lang, case", list(_cases()))
def test_hostile_candidate_fails_and_is_not_an_infra_error(lang, case, workers, tasks):
    task = tasks[lang][case.task_id]
    assert "integrity:outside" in task.tags
    limits = limits_for(LIMITS, 2.0)
    request = EvalRequest(task=TaskSpec.of(task), program=case.completion, limits=limits, timeout_s=300)
    try:
        result = workers(lang).evaluate(request)
    except WorkerLost as exc:             # the sandbox itself gave way: an evaluator error, never allowed
        pytest.fail(f"{case.name} took the sandbox down: {exc}")
    assert not result.passed, f"{case.name} passed"
    assert result.protected.failure_class not in (None, "infra_error"), result.protected
