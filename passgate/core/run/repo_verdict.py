"""A repository patch's verdict from what the grader saw: pure, so every rule has a unit test.

The grader's stream is the only source of test outcomes; the pytest process's exit code decides
nothing. Expected ids come from the task (protected) and from the reference run (public): an id
never reported fails, an id nobody asked for is tampering, and a stream that stops before the
session's end is a premature exit whatever the process returned.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

PASSING = ("passed", "xfailed")
_MISSING_MODULE = re.compile(r"No module named '([A-Za-z0-9_.]+)'")


@dataclass
class SuiteVerdict:
    status: str                          # passed | failed | not_run
    failure_class: str | None = None
    detail: str = ""
    outcomes: dict = field(default_factory=dict)   # test id -> outcome (incl. missing / not_run)
    tamper: list = field(default_factory=list)


def missing_modules(suite: dict) -> list[str]:
    texts = [t.get("text", "") for t in (suite.get("tests") or {}).values()]
    texts += [e.get("text", "") for e in suite.get("collect_errors") or []]
    texts.append(suite.get("log_tail") or "")
    return sorted({m.group(1).split(".")[0] for text in texts for m in _MISSING_MODULE.finditer(text)})


def judge_suite(suite: dict, expected: list[str], *, known_modules: set[str],
                reference: dict | None = None) -> SuiteVerdict:
    """One suite against its expected ids. `reference`: the reference run's outcomes (a test it skipped
    may be skipped here too)."""
    if suite.get("status") != "ran":
        return SuiteVerdict("not_run", detail="not run")
    tests = suite.get("tests") or {}
    tamper = [f"{len(suite['duplicates'])} test(s) reported twice"] if suite.get("duplicates") else []
    extra = sorted(set(tests) - set(expected))
    if extra:
        tamper.append(f"{len(extra)} test id(s) not expected: {', '.join(extra[:3])}")
    if suite.get("garbled"):
        tamper.append(f"{suite['garbled']} unreadable line(s) on the report pipe")
    outcomes, failed, missing = {}, [], []
    for test_id in expected:
        got = (tests.get(test_id) or {}).get("outcome")
        allowed = PASSING + (("skipped",) if (reference or {}).get(test_id) == "skipped" else ())
        if got is None:
            outcomes[test_id] = "not_run" if not suite.get("finished") else "missing"
            missing.append(test_id)
        else:
            outcomes[test_id] = got
            if got not in allowed:
                failed.append(test_id)
    return _suite_class(suite, outcomes, failed, missing, tamper, known_modules)


def _suite_class(suite, outcomes, failed, missing, tamper, known_modules) -> SuiteVerdict:
    unknown = [m for m in missing_modules(suite) if m not in known_modules]
    total = len(outcomes)
    if tamper:
        return SuiteVerdict("failed", "tampering", "; ".join(tamper), outcomes, tamper)
    if unknown and (failed or missing):
        return SuiteVerdict("failed", "unlisted_package", f"imports {', '.join(unknown)}: not in the repository "
                            "or the package allowlist", outcomes)
    if suite.get("timed_out") and (failed or missing):
        return SuiteVerdict("failed", "timeout", f"{len(missing)} of {total} tests unfinished at the limit", outcomes)
    if missing and not suite.get("finished"):
        return SuiteVerdict("failed", "premature_exit", f"the test process ended before the session finished: "
                            f"{len(missing)} of {total} expected tests never reported", outcomes)
    if failed:
        first = failed[0]
        text = ((suite.get("tests") or {}).get(first) or {}).get("text", "").strip().splitlines()
        return SuiteVerdict("failed", "test_failed", f"{len(failed)} of {total} failed; first {first}: "
                            f"{(text[-1] if text else '')[:200]}", outcomes)
    if missing:
        return SuiteVerdict("failed", "tests_missing", f"{len(missing)} of {total} expected tests never reported "
                            f"(first {missing[0]})", outcomes)
    return SuiteVerdict("passed", None, f"{total} tests passed", outcomes)


def protected_tamper(hashes: dict | None) -> list[str]:
    """Protected files must hash the same before the run, after it, and as pinned by the task."""
    if not hashes:
        return []
    out = []
    for path, want in (hashes.get("expected") or {}).items():
        before, after = hashes["before"].get(path), hashes["after"].get(path)
        if before != want:
            out.append(f"{path} differed from its pin when copied in")
        elif after != want:
            out.append(f"{path} was {'removed' if after is None else 'changed'} during the protected run")
    return out


@dataclass
class PatchVerdict:
    failure_class: str | None
    detail: str
    public: SuiteVerdict
    protected: SuiteVerdict
    tamper: list

    @property
    def passed(self) -> bool:
        return self.failure_class is None


def judge_patch(result: dict, scan: dict, *, expected_public: list[str], expected_protected: list[str],
                known_modules: set[str], reference_public: dict | None = None,
                reference_protected: dict | None = None) -> PatchVerdict:
    """The headline: apply, build, tampering, the protected suite, then secrets on added lines.
    `reference_*`: the reference run's outcomes per id (what it skipped may be skipped here too)."""
    public = judge_suite(result.get("public") or {}, expected_public, known_modules=known_modules,
                         reference=reference_public)
    protected = judge_suite(result.get("protected") or {}, expected_protected, known_modules=known_modules,
                            reference=reference_protected)
    tamper = protected_tamper(result.get("protected_hashes")) + protected.tamper + public.tamper
    if not result.get("applied"):
        return PatchVerdict("patch_failed", result.get("apply_error") or scan.get("parse_error") or "does not apply",
                            public, protected, tamper)
    build = result.get("build") or {}
    if build.get("status") != "passed":
        kind = "timeout" if build.get("status") == "timeout" else "build_failed"
        return PatchVerdict(kind, f"build {build.get('status')} (exit {build.get('exit')})", public, protected, tamper)
    if tamper:
        return PatchVerdict("tampering", "; ".join(tamper)[:500], public, protected, tamper)
    if protected.failure_class:
        return PatchVerdict(protected.failure_class, protected.detail, public, protected, tamper)
    if scan.get("secrets"):
        kinds = sorted({k for s in scan["secrets"] for k in s["types"]})
        return PatchVerdict("secret_introduced", f"{len(scan['secrets'])} added line(s) hold a secret "
                            f"({', '.join(kinds)})", public, protected, tamper)
    return PatchVerdict(None, protected.detail, public, protected, tamper)
