"""Splitting the datasets' tests: how many split, and that what is split keeps every expected value
out of the harness (the text that goes into the candidate's process and files)."""

import re

import pytest

from passgate.core.languages.datasets import MULTIPLE_LANGS, load_multipl_e
from passgate.core.languages.registry import SPECS
from passgate.core.languages.spec import Integrity
from passgate.core.languages.spec import TestInput as Input
from tests.languages.measure import DATASETS, HUMANEVAL_X_FILE, humaneval_x

# measured on the shared datasets; a splitter change that loses tasks fails here
HUMANEVAL_X_OUTSIDE = {"js": 157, "cpp": 156, "java": 160, "go": 158, "rs": 154}
MULTIPLE_OUTSIDE = {"js": 161, "ts": 159, "cpp": 158, "java": 158, "go": 154, "rs": 156, "sh": 158}


def _outside(spec, tests):
    return [(t, s) for t in tests if (s := spec.split(t)).integrity is Integrity.OUTSIDE]


@pytest.mark.parametrize("lang", sorted(HUMANEVAL_X_FILE))
def test_humaneval_x_hidden_tests_split(lang):
    tests = [task.hidden for task in humaneval_x(lang)]
    assert len(_outside(SPECS[lang], tests)) >= HUMANEVAL_X_OUTSIDE[lang]


@pytest.mark.parametrize("lang", sorted(MULTIPLE_OUTSIDE))
def test_multipl_e_tests_split(lang):
    tasks = load_multipl_e(DATASETS / "multipl-e" / f"humaneval-{lang}.jsonl")
    assert len(_outside(SPECS[lang], [t.tests for t in tasks])) >= MULTIPLE_OUTSIDE[lang]


def test_all_eighteen_multipl_e_files_load():
    counts = {lang: len(load_multipl_e(DATASETS / "multipl-e" / f"humaneval-{lang}.jsonl")) for lang in MULTIPLE_LANGS}
    assert len(counts) == 18 and min(counts.values()) >= 154


def _all_outside():
    for lang, spec in SPECS.items():
        tests = [task.hidden for task in humaneval_x(lang)] if lang in HUMANEVAL_X_FILE else []
        path = DATASETS / "multipl-e" / f"humaneval-{lang}.jsonl"
        tests += [t.tests for t in load_multipl_e(path)] if path.exists() else []
        yield lang, _outside(spec, tests)


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def test_no_assertion_and_no_distinctive_expected_string_is_left_in_a_harness():
    for lang, pairs in _all_outside():
        for test, split in pairs:
            harness = _squash(split.harness)
            original_rest = _squash(test.test)
            for site in split.sites:
                if not (site.compare.rule == "truthy" and site.expected is True):   # `assert(f(x))`: all call
                    assert _squash(site.source) not in harness, (lang, test.task_id, site.source)
                expected = site.expected
                if isinstance(expected, str) and len(expected) >= 6:
                    # an expected string may appear as an input elsewhere in the test; only one that
                    # appears nowhere else must be absent from the harness
                    if original_rest.count(_squash(expected)) == 1:
                        assert _squash(expected) not in harness, (lang, test.task_id, expected)


def test_a_javascript_console_assert_becomes_a_report_of_its_call():
    test = Input("t", "", "const t = () => {\n  console.assert(JSON.stringify(f([1, 2])) === JSON.stringify([2, 1]))\n"
                               "  console.assert(Math.abs(g(3) - 2.0 / 3.0) < 1e-6)\n}\nt()\n", dataset="humaneval-x")
    split = SPECS["js"].split(test)
    assert "__pg.report(0, f([1, 2]))" in split.harness and "__pg.report(1, g(3))" in split.harness
    assert [s.expected for s in split.sites] == [[2, 1], pytest.approx(2 / 3)]
    assert [s.compare.rule for s in split.sites] == ["js_json", "approx"]


def test_a_loop_around_an_assertion_keeps_the_test_in_process():
    test = Input("t", "", "for (let i = 0; i < 3; i++) {\n  console.assert(f(i) === 1)\n}\n", dataset="humaneval-x")
    split = SPECS["js"].split(test)
    assert split.integrity is Integrity.IN_PROCESS and "loop" in split.reason


def test_language_images_share_the_python_sandboxs_debian_suite():
    from passgate.core.languages.toolchain import SUITE
    from passgate.core.sandbox.image import SUITE as sandbox_suite
    assert SUITE == sandbox_suite
