"""Every hostile candidate of every language fails under the split harness, and none ends as an
evaluator error: it runs in the language's image under gVisor through the validation driver."""

from __future__ import annotations

import importlib

import pytest

from passgate.core.languages.registry import spec_for
from passgate.core.languages.spec import Integrity
from passgate.core.languages.verdict import grade
from tests.languages.driver import LanguageSandbox, Limits
from tests.languages.measure import humaneval_x, limits_for

pytestmark = pytest.mark.docker

CORPORA = {"js": "javascript", "cpp": "cpp"}


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


@pytest.fixture(scope="module")
def tasks():
    return {lang: {t.task_id: t for t in humaneval_x(lang)} for lang in CORPORA}


@pytest.mark.parametrize("lang, case", list(_cases()))
def test_hostile_candidate_fails_and_is_not_an_infra_error(lang, case, sandboxes, tasks):
    spec = spec_for(lang)
    if lang not in sandboxes:
        base = limits_for(lang)
        sandboxes[lang] = LanguageSandbox(spec.toolchain.tag, limits=Limits(
            compile_wall_s=20, run_wall_s=5, cpu_s=10, file_kb=base.file_kb, nproc=base.nproc,
            address_space_kb=base.address_space_kb))
    task = tasks[lang][case.task_id]
    split = spec.split(task.hidden)
    assert split.integrity is Integrity.OUTSIDE, split.reason
    ex = sandboxes[lang].execute(spec.program(task.hidden, case.completion, split))   # InfraError fails the test
    if ex.compile_status not in (None, 0):
        return                                                                          # a compile error fails
    verdict = grade(split, ex.report, exit_status=None if ex.timed_out else ex.run_status)
    assert not verdict.passed, f"{case.name} passed: report {ex.report[:300]!r}"
