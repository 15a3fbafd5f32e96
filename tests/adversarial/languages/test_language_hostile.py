"""Every hostile candidate of every language fails under the split harness, and none ends as an
evaluator error: it runs in the language's image under gVisor through the validation driver."""

from __future__ import annotations

import importlib

import pytest

from passgate.core.languages.registry import spec_for
from passgate.core.languages.spec import Integrity
from passgate.core.languages.verdict import grade
from tests.languages.driver import LanguageSandbox, Limits
from passgate.core.languages.datasets import load_multipl_e
from tests.languages.measure import DATASETS, HUMANEVAL_X_FILE, humaneval_x, limits_for

pytestmark = pytest.mark.docker

CORPORA = {"js": "javascript", "cpp": "cpp", "java": "java", "go": "golang", "rs": "rust", "sh": "shell"}


def _cases():
    for lang, module in CORPORA.items():
        corpus = importlib.import_module(f"tests.adversarial.languages.{module}")
        for case in corpus.CASES:
            yield pytest.param(lang, case, id=f"{lang}-{case.name}")


@pytest.fixture(scope="module")
def sandboxes():
    opened = {}
    yield opened
    for box in opened.values():
        box.close()


def hostile_tests() -> dict:
    """Each language's tests by task id: HumanEval-X's hidden tests, or MultiPL-E's where it has none (Bash)."""
    found = {}
    for lang in CORPORA:
        if lang in HUMANEVAL_X_FILE:
            found[lang] = {t.task_id: t.hidden for t in humaneval_x(lang)}
        else:
            found[lang] = {t.task_id: t.tests for t in load_multipl_e(DATASETS / "multipl-e" / f"humaneval-{lang}.jsonl")}
    return found


@pytest.fixture(scope="module")
def tasks():
    return hostile_tests()


@pytest.mark.parametrize("lang, case", list(_cases()))
def test_hostile_candidate_fails_and_is_not_an_infra_error(lang, case, sandboxes, tasks):
    spec = spec_for(lang)
    if lang not in sandboxes:
        base = limits_for(lang)
        sandboxes[lang] = LanguageSandbox(spec.toolchain.tag, limits=Limits(
            compile_wall_s=20, run_wall_s=5, cpu_s=10, file_kb=base.file_kb, nproc=base.nproc,
            address_space_kb=base.address_space_kb))
    test = tasks[lang][case.task_id]
    split = spec.split(test)
    assert split.integrity is Integrity.OUTSIDE, split.reason
    ex = sandboxes[lang].execute(spec.program(test, case.completion, split))   # InfraError fails the test
    if ex.compile_status not in (None, 0):
        return                                                                          # a compile error fails
    verdict = grade(split, ex.report, exit_status=None if ex.timed_out else ex.run_status)
    assert not verdict.passed, f"{case.name} passed: report {ex.report[:300]!r}"
