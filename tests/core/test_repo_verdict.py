"""Verdicts of repository patches from the grader's stream (core/run/repo_verdict.py)."""

from passgate.core.run.repo_verdict import judge_patch, judge_suite, missing_modules, protected_tamper

IDS = ["t.py::a", "t.py::b", "t.py::c"]
MODULES = {"pkg", "pytest"}


def suite(tests, *, finished=True, **extra):
    return {"status": "ran", "tests": {k: {"outcome": v, "text": ""} for k, v in tests.items()},
            "finished": finished, "duplicates": [], "collect_errors": [], "log_tail": "", **extra}


def test_all_expected_passing_passes_whatever_the_exit_code():
    v = judge_suite(suite(dict.fromkeys(IDS, "passed"), process_exit=1), IDS, known_modules=MODULES)
    assert (v.status, v.failure_class) == ("passed", None)


def test_early_exit_fails_the_rest_even_with_exit_code_zero():
    v = judge_suite(suite({"t.py::a": "passed"}, finished=False, process_exit=0), IDS, known_modules=MODULES)
    assert v.failure_class == "premature_exit"
    assert v.outcomes == {"t.py::a": "passed", "t.py::b": "not_run", "t.py::c": "not_run"}


def test_renamed_test_is_missing_and_extra():
    v = judge_suite(suite({"t.py::a": "passed", "t.py::b": "passed", "t.py::c_renamed": "passed"}), IDS,
                    known_modules=MODULES)
    assert v.failure_class == "tampering" and "not expected" in v.detail
    v = judge_suite(suite({"t.py::a": "passed", "t.py::b": "passed"}), IDS, known_modules=MODULES)
    assert v.failure_class == "tests_missing"


def test_reported_twice_is_tampering():
    s = suite(dict.fromkeys(IDS, "passed"))
    s["duplicates"] = ["t.py::a"]
    assert judge_suite(s, IDS, known_modules=MODULES).failure_class == "tampering"


def test_unlisted_package_is_named():
    s = suite({}, collect_errors=[{"id": "t.py", "text": "ModuleNotFoundError: No module named 'requests'"}])
    assert missing_modules(s) == ["requests"]
    v = judge_suite(s, IDS, known_modules=MODULES)
    assert v.failure_class == "unlisted_package" and "requests" in v.detail
    s = suite({}, collect_errors=[{"id": "t.py", "text": "No module named 'pkg.sub'"}])
    assert judge_suite(s, IDS, known_modules=MODULES).failure_class == "tests_missing"


def test_skips_pass_only_where_the_reference_skipped():
    s = suite({"t.py::a": "skipped", "t.py::b": "passed", "t.py::c": "passed"})
    assert judge_suite(s, IDS, known_modules=MODULES).failure_class == "test_failed"
    assert judge_suite(s, IDS, known_modules=MODULES, reference={"t.py::a": "skipped"}).status == "passed"


def test_protected_file_changed_during_the_run():
    assert protected_tamper({"expected": {"t.py": "h"}, "before": {"t.py": "h"}, "after": {"t.py": "h"}}) == []
    assert protected_tamper({"expected": {"t.py": "h"}, "before": {"t.py": "h"}, "after": {"t.py": None}}) == \
        ["t.py was removed during the protected run"]


def test_patch_order_apply_build_tamper_protected_secret():
    passing = {"applied": True, "build": {"status": "passed"}, "public": suite({}),
               "protected": suite(dict.fromkeys(IDS, "passed"))}
    kw = dict(expected_public=[], expected_protected=IDS, known_modules=MODULES)
    assert judge_patch(passing, {}, **kw).passed
    assert judge_patch({**passing, "applied": False, "apply_error": "x: hunk 1"}, {}, **kw).failure_class == "patch_failed"
    assert judge_patch({**passing, "build": {"status": "failed", "exit": 1}}, {}, **kw).failure_class == "build_failed"
    secret = {"secrets": [{"path": "x.py", "line": 3, "types": ["GitHub Token"]}]}
    assert judge_patch(passing, secret, **kw).failure_class == "secret_introduced"
    hashes = {"expected": {"t.py": "h"}, "before": {"t.py": "h"}, "after": {"t.py": "other"}}
    assert judge_patch({**passing, "protected_hashes": hashes}, {}, **kw).failure_class == "tampering"


def _grader(lost_for: set[str]):
    """The sealing decision alone: a grade call that loses its sandbox for the named patches."""
    from passgate.core.sandbox.runner import WorkerLost
    calls = []

    def grade(patch):
        calls.append(patch)
        if patch in lost_for:
            raise WorkerLost(f"the worker closed its output ({patch})")
        return {"tests": []}
    return grade, calls


def test_a_patch_that_takes_its_sandbox_down_while_the_reference_runs_is_counted():
    from passgate.core.run.repo import RepoGrading
    grade, calls = _grader({"bad"})
    result = RepoGrading._sealed(grade, "bad", "ref")
    assert "crash" in result and "lost" not in result and calls == ["bad", "bad", "ref"]


def test_only_a_lost_reference_makes_the_loss_the_evaluators():
    from passgate.core.run.repo import RepoGrading
    grade, _calls = _grader({"bad", "ref"})
    assert "lost" in RepoGrading._sealed(grade, "bad", "ref")
    grade, calls = _grader(set())
    assert RepoGrading._sealed(grade, "ok", "ref") == {"tests": []} and calls == ["ok"]


def test_a_sandbox_that_never_started_is_never_the_patchs_loss():
    from passgate.core.run.repo import NotStarted, RepoGrading
    calls = []

    def grade(patch):
        calls.append(patch)
        if patch == "bad":
            raise NotStarted("every slot of every accepted Ray node is in use or gone")
        return {"tests": []}
    result = RepoGrading._sealed(grade, "bad", "ref")
    assert result == {"lost": "no sandbox could be started for the patch: every slot of every accepted Ray node "
                              "is in use or gone"} and calls == ["bad"]
