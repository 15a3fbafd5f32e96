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


class _Sandbox:
    """A stand-in for a repository sandbox: loses itself for the named patches."""

    def __init__(self, lost_for: set[str], calls: list[str]):
        self.lost_for, self.calls, self.container_id = lost_for, calls, "c0ffee0000000000"

    def run_job(self, job, *, timeout_s):
        from passgate.core.sandbox.runner import WorkerLost
        self.calls.append(job["patch"])
        if job["patch"] in self.lost_for:
            raise WorkerLost(f"the worker closed its output ({job['patch']})")
        return {"tests": []}

    def close(self):
        pass


def _request(attempt: int):
    from passgate.core.run.repo import PatchRequest
    return PatchRequest(job={"patch": "bad"}, reference=lambda: {"patch": "ref"}, timeout_s=60, attempt=attempt)


def _lost(probe: tuple[bool, str]):
    from passgate.core.sandbox.runner import WorkerLost
    exc = WorkerLost("the worker closed its output (bad)")
    exc.probe_passed, exc.probe_detail = probe
    return exc


def test_a_patch_that_takes_its_sandbox_down_while_the_reference_runs_is_counted():
    from passgate.core.run.repo import loss_result, reference_sound
    calls: list[str] = []
    assert reference_sound(lambda: _Sandbox(set(), calls), _request(1))[0] is False and calls == []
    probe = reference_sound(lambda: _Sandbox({"bad"}, calls), _request(2))
    assert probe[0] is True and calls == ["ref"]
    result = loss_result(_lost(probe))
    assert "crash" in result and "lost" not in result and "twice" in result["crash"]


def test_only_a_lost_reference_makes_the_loss_the_evaluators():
    from passgate.core.run.repo import loss_result, reference_sound
    probe = reference_sound(lambda: _Sandbox({"bad", "ref"}, []), _request(2))
    assert probe[0] is False
    assert "the reference patch lost its fresh sandbox too" in loss_result(_lost(probe))["lost"]


def test_a_lost_sandbox_is_tried_once_more_then_judged():
    from passgate.core.run.dispatch import Job
    from passgate.core.run.repo import retry_lost
    from passgate.core.sandbox.runner import WorkerLost
    job = Job("t", 0, "grade", 1, "bad", "sha")
    again = retry_lost(job, WorkerLost("gone"))
    assert [j.attempt for j in again] == [2]
    assert retry_lost(again[0], WorkerLost("gone")) is None and retry_lost(job, {"tests": []}) is None


def test_a_reference_sandbox_that_never_starts_is_never_the_patchs_loss():
    from passgate.core.run.repo import loss_result, reference_sound
    from passgate.core.sandbox.runner import WorkerLost

    def no_sandbox():
        raise WorkerLost("every slot of every accepted Ray node is in use or gone")
    probe = reference_sound(no_sandbox, _request(2))
    assert probe == (False, "no fresh sandbox started for the reference patch (WorkerLost: every slot of "
                            "every accepted Ray node is in use or gone)")
    assert "lost" in loss_result(_lost(probe))


def test_a_patch_sandbox_that_never_starts_stops_the_run_with_nothing_recorded():
    """No sandbox holds nothing of the patch: the run stops, to be resumed, as a run of functions does."""
    import threading
    from pathlib import Path

    import pytest

    from passgate.core.errors import EngineLost
    from passgate.core.manifest import load_manifest
    from passgate.core.run.dispatch import Job, RunContext, dispatch
    from passgate.core.run.repo import PATCHES
    from passgate.core.sandbox.runner import WorkerLost

    class GoneRunner:
        concurrency, start_timeout_s = 1, 0.0

        def new_worker(self):
            exc = WorkerLost("every slot of every accepted Ray node is in use or gone")
            exc.capacity_gone = True
            raise exc

    manifest, _ = load_manifest(Path(__file__).resolve().parents[2] / "examples" / "repo-reference.yaml")
    ctx = RunContext("r", manifest, {}, {}, {}, None, lambda _p: None, threading.Event())
    with pytest.raises(EngineLost, match="every sandbox worker stopped"):
        list(dispatch(ctx, GoneRunner(), [Job("t", 0, "grade", 1, "patch", "sha")], lambda job: job,
                      exchange=PATCHES))


def test_a_patch_lost_once_keeps_the_lost_attempt_as_an_execution(tmp_path):
    """Every attempt an outcome counts is an execution row (`passgate verify` checks it): the lost
    first sandbox is recorded as the evaluator's attempt, the second sandbox's answer as attempt 2."""
    import threading
    from pathlib import Path

    from passgate.core.candidates.inputs import load_inputs
    from passgate.core.manifest import load_manifest
    from passgate.core.record.store import Store
    from passgate.core.run.dispatch import RunContext
    from passgate.core.run.repo import RepoGrading, _job

    class OnceLostRunner:
        concurrency, start_timeout_s = 1, 0.0

        def __init__(self):
            self.calls: list[str] = []

        def new_worker(self):
            return _Sandbox({"bad"} if not self.calls else set(), self.calls)

    path = Path(__file__).resolve().parents[2] / "examples" / "repo-reference.yaml"
    manifest, _ = load_manifest(path)
    task = load_inputs(manifest, path, check_only=True).tasks[0]
    store = Store(tmp_path / "r.db")
    ctx = RunContext("r1", manifest, {task.task_id: task}, {}, {"cpu_s": 1.0}, None, lambda _p: None,
                     threading.Event())
    grading = RepoGrading(store, ctx, None)
    grading.runner = OnceLostRunner()
    ((job, reply),) = list(grading._graded([_job(task.task_id, 0, "grade", "bad")]))
    assert job.attempt == 2 and reply["container_id"] and grading.runner.calls == ["bad", "bad"]
    (lost,) = store.rows("executions", "r1")
    assert (lost["attempt"], lost["status"], lost["purpose"]) == (1, "infra_error", "grade")
    store.close()


def test_a_request_that_cannot_be_built_stops_the_run_with_its_error():
    """Building a job's request is the evaluator's code: its failure is raised in the engine's thread,
    never left as a job that no thread reports."""
    import threading
    from pathlib import Path

    from passgate.core.manifest import load_manifest
    from passgate.core.run.dispatch import Job, RunContext, dispatch
    from passgate.core.run.repo import PATCHES

    class Runner:
        concurrency, start_timeout_s = 2, 0.0

        def new_worker(self):
            return _Sandbox(set(), [])

    def request_of(job):
        if job.task_id == "broken":
            raise KeyError("snapshot_b64")
        return {"patch": job.program}

    manifest, _ = load_manifest(Path(__file__).resolve().parents[2] / "examples" / "repo-reference.yaml")
    ctx = RunContext("r", manifest, {}, {}, {}, None, lambda _p: None, threading.Event())
    jobs = [Job(t, 0, "grade", 1, "p", "sha") for t in ("a", "broken", "b")]
    raised: list[BaseException] = []

    def consume():
        try:
            list(dispatch(ctx, Runner(), jobs, request_of, exchange=PATCHES))
        except KeyError as exc:
            raised.append(exc)
    thread = threading.Thread(target=consume, daemon=True)
    thread.start()
    thread.join(60)
    ctx.cancel.set()
    assert raised and "snapshot_b64" in str(raised[0])
