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
# (Java/44, 53 and 151 check more than their `correct` list; Go/33 and 37 compare with a test helper)
HUMANEVAL_X_OUTSIDE = {"js": 157, "cpp": 156, "java": 157, "go": 156, "rs": 154}
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


def _task(lang: str, task_id: str):
    return next(task for task in humaneval_x(lang) if task.hidden.task_id == task_id)


@pytest.mark.parametrize("task_id, word", [("Java/44", "if"), ("Java/53", "if"), ("Java/151", "assert")])
def test_a_java_test_that_checks_more_than_its_correct_list_stays_in_process(task_id, word):
    # 44 and 53 throw from a loop after the list, 151 ends with `assert s.doubleTheDifference(lst) == odd_sum`:
    # split on the listed sites alone, a candidate wrong only there would pass
    split = SPECS["java"].split(_task("java", task_id).hidden)
    assert split.integrity is Integrity.IN_PROCESS and not split.sites
    assert f"`{word}` outside them" in split.reason


def _java_main(body: str) -> str:
    return ("public class Main {\n    public static void main(String[] args) {\n        Solution s = new Solution();\n"
            "        List<Boolean> correct = Arrays.asList(\n                s.f(1) == 2,\n"
            "                Objects.equals(s.g(\"a\"), \"b\")\n        );\n" + body + "    }\n}\n")


@pytest.mark.parametrize("body, outside", [
    ("        if (correct.contains(false)) {\n            throw new AssertionError();\n        }\n", True),
    ("        if (correct.contains(false)) throw new AssertionError();\n", True),
    ("        if (correct.contains(false)) {\n            throw new AssertionError();\n        }\n"
     "        int r = s.f(3);\n", False),                                   # the function called outside a site
    ("        if (correct.contains(false) || correct.isEmpty()) throw new AssertionError();\n", False),
    ("        if (correct.contains(false)) throw new AssertionError();\n        System.exit(s.f(0) == 1 ? 0 : 1);\n",
     False),
    ("        if (correct.contains(false)) throw new AssertionError();\n"
     "        for (int i = 0; i < 3; i++) { assert s.f(i) == i + 1; }\n", False),
])
def test_a_java_correct_list_splits_only_when_nothing_else_checks(body, outside):
    split = SPECS["java"].split(Input("t", "", _java_main(body), dataset="humaneval-x"))
    assert (split.integrity is Integrity.OUTSIDE) is outside, split.reason
    if outside:
        assert [s.expected for s in split.sites] == [2, "b"]


def test_a_multipl_e_java_assert_without_parentheses_keeps_the_test_in_process():
    test = ("    }\n    public static void main(String[] args) {\n    assert(f((1)) == (2));\n"
            "    assert f((2)) == (3);\n    }\n\n}\n")
    split = SPECS["java"].split(Input("t", "", test, dataset="multipl-e"))
    assert split.integrity is Integrity.IN_PROCESS and "`assert` outside them" in split.reason


@pytest.mark.parametrize("suite", ["hidden", "public"])
@pytest.mark.parametrize("task_id", ["Go/33", "Go/37"])
def test_a_go_comparison_through_a_test_helper_never_reports_the_helper(task_id, suite):
    # `assert.Equal(true, same([]int{1, 2, 3}, SortThird(...)))`: reporting `same(...)` would put the
    # expected slice in the candidate's process; `same` is also a prefix check, not equality, so the
    # test stays in-process rather than being split as an equality of SortThird's value
    split = SPECS["go"].split(getattr(_task("go", task_id), suite))
    assert split.integrity is Integrity.IN_PROCESS and not split.sites
    assert "`same`, a helper the test defines" in split.reason


HELPER_CALLS = {
    "go": ("humaneval-x", "func TestF(t *testing.T) {\n    assert := assert.New(t)\n"
                          "    check := func(a []int, b []int) bool { return true }\n"
                          "    alias := check\n    assert.Equal(true, alias([]int{1}, F([]int{1})))\n}\n"),
    "js": ("humaneval-x", "const same = (a, b) => a.length === b.length\nconsole.assert(same([1, 2], f([2, 1])))\n"),
    "cpp": ("humaneval-x", "bool same(vector<int> a, vector<int> b) { return a == b; }\nint main() {\n"
                           "    assert (same({1, 2}, f({2, 1})));\n}\n"),
    "rs": ("multipl-e", "fn main() {\n    let same = |a: Vec<i32>, b: Vec<i32>| a == b;\n"
                        "    assert!(same(vec![1], f(vec![1])));\n}\n"),
}


@pytest.mark.parametrize("language", sorted(HELPER_CALLS))
def test_a_helper_the_test_defines_is_never_the_reported_call(language):
    dataset, test = HELPER_CALLS[language]
    split = SPECS[language].split(Input("t", "", test, dataset=dataset))
    assert split.integrity is Integrity.IN_PROCESS and "a helper the test defines" in split.reason


def test_multipl_e_s_candidate_alias_names_the_function_under_test_and_still_splits():
    rs_ok = "fn main() {\n    let candidate = f;\n    assert_eq!(candidate(vec![1]), vec![1]);\n}\n"
    assert SPECS["rs"].split(Input("t", "", rs_ok, dataset="multipl-e")).integrity is Integrity.OUTSIDE


def test_language_images_share_the_python_sandboxs_debian_suite():
    from passgate.core.languages.toolchain import SUITE
    from passgate.core.sandbox.image import SUITE as sandbox_suite
    assert SUITE == sandbox_suite
