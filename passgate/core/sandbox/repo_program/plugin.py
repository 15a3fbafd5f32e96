"""passgate's pytest plugin: each test's outcome, as it happens, on a pipe to the grader.

Loaded with `-p passgate_report` while every other plugin's autoload is off. The pipe's number is
taken out of the environment before any test code runs. The grader reads this stream, never the
pytest process's exit code: a test it expected and never heard of has failed."""

import json
import os

_FD = os.environ.pop("PASSGATE_REPORT_FD", None)
_OUT = os.fdopen(int(_FD), "w", buffering=1) if _FD else None     # None: imported outside the grader
_STATE = {}


def _emit(obj):
    if _OUT is None:
        return
    _OUT.write(json.dumps(obj, separators=(",", ":")) + "\n")
    _OUT.flush()


def _text(report):
    return str(report.longrepr)[-1500:] if report.longrepr else ""


def pytest_collection_finish(session):
    _emit({"t": "collected", "ids": [item.nodeid for item in session.items]})


def pytest_collectreport(report):
    if report.failed:
        _emit({"t": "collect_error", "id": report.nodeid, "text": _text(report)})


def pytest_runtest_logreport(report):
    state = _STATE.setdefault(report.nodeid, {"outcome": "passed", "text": ""})
    xfail = hasattr(report, "wasxfail")
    if report.when == "call":
        if xfail:
            state["outcome"] = "xfailed" if report.skipped else "xpassed"
        elif report.failed:
            state.update(outcome="failed", text=_text(report))
        elif report.skipped:
            state["outcome"] = "skipped"
    elif report.failed:
        state.update(outcome="error", text=_text(report))
    elif report.skipped and report.when == "setup":
        state["outcome"] = "xfailed" if xfail else "skipped"
    if report.when == "teardown":
        _emit({"t": "test", "id": report.nodeid, **_STATE.pop(report.nodeid)})


def pytest_sessionfinish(session, exitstatus):
    _emit({"t": "finish", "exitstatus": int(exitstatus)})
