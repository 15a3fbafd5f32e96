"""The grader's decision from what a harness reported: every site, in order, each matching its
expected value under its comparison, then the end marker. Nothing the candidate's process printed
or its exit status can add a pass; a missing, extra, malformed or wrong report fails."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .compare import matches
from .spec import Integrity, SplitTest
from .values import WireError, decode, parse_line, show


@dataclass(frozen=True)
class Verdict:
    passed: bool
    failure: str = ""           # failure class when not passed
    detail: str = ""
    site: int | None = None     # index of the failing site
    integrity: Integrity = Integrity.OUTSIDE


def grade_outside(split: SplitTest, report: bytes, *, exit_status: int | None) -> Verdict:
    """Decide an OUTSIDE split from the report channel's bytes."""
    lines = [ln for ln in report.split(b"\n") if ln.strip()]
    sites = split.sites
    for k, site in enumerate(sites):
        if k >= len(lines):
            why = "the harness ended early" if exit_status is not None else "the run was cut short"
            return Verdict(False, "missing_report", f"no report for assertion {k + 1} of {len(sites)} "
                           f"(line {site.line}: {site.source}); {why}, exit status {exit_status}", k)
        try:
            failed = _judge_site(k, site, lines[k])
        except (RecursionError, OverflowError) as exc:
            # a value an honest harness can report but no comparison can take (nested past the
            # recursion limit, an integer past any float at a tolerance): the answer is wrong
            return Verdict(False, "wrong_answer", f"line {site.line}: {site.source}: the reported value cannot "
                           f"be compared ({type(exc).__name__})", k)
        except Exception as exc:  # noqa: BLE001 - the report is the candidate's bytes: whatever else
            # they make the grader raise (a tag with the wrong body) is the candidate's failure,
            # never the evaluator's
            return Verdict(False, "bad_report", f"report {k + 1} cannot be judged "
                           f"({type(exc).__name__}: {str(exc)[:120]})", k)
        if failed is not None:
            return failed
    return _check_end(lines, len(sites), exit_status)


def _judge_site(k: int, site, line: bytes) -> Verdict | None:
    """The failure of site `k` from its report line, or None when it matches."""
    try:
        record = parse_line(line)
        if not isinstance(record, dict) or record.get("s") != k or "v" not in record:
            return Verdict(False, "bad_report", f"report {k + 1} is not assertion {k + 1}: {line[:80]!r}", k)
        actual = decode(record["v"])
    except WireError as exc:
        return Verdict(False, "bad_report", str(exc), k)
    if matches(actual, site.expected, site.compare):
        return None
    return Verdict(False, "wrong_answer", f"line {site.line}: {site.source}: got {_shown(actual)}, "
                   f"expected {show(site.expected)} ({site.compare.describe()})", k)


def _shown(value) -> str:
    try:
        return show(value)
    except Exception:  # noqa: BLE001 - a value too deep to print is still a wrong answer
        return "a value too deep to show"


def _check_end(lines: list[bytes], n_sites: int, exit_status: int | None) -> Verdict:
    rest = lines[n_sites:]
    try:
        ended = len(rest) == 1 and parse_line(rest[0]) == {"end": n_sites}
    except Exception:  # noqa: BLE001 - the candidate's bytes; anything unreadable is no end marker
        ended = False
    if not ended:
        what = "no end marker" if not rest else f"unexpected report after the last assertion: {rest[0][:80]!r}"
        return Verdict(False, "missing_report" if not rest else "bad_report", what)
    if exit_status != 0:
        # the harness finished; a non-zero status after it is the candidate's own failure (an exception
        # at exit, a signal), which the original program would also have shown
        return Verdict(False, "runtime_error", f"every assertion matched but the program exited {exit_status}")
    return Verdict(True)


def grade_in_process(exit_status: int | None, output_tail: str = "") -> Verdict:
    """The original program's own verdict: its exit status (forgeable; recorded as such)."""
    if exit_status == 0:
        return Verdict(True, integrity=Integrity.IN_PROCESS)
    return Verdict(False, "test_failed", f"exit status {exit_status}: {output_tail[-300:]}",
                   integrity=Integrity.IN_PROCESS)


_LOCATED = re.compile(r"^\S+?:\d+(:\d+)?:\s")


def first_compile_error(output: str) -> str:
    """The compiler's first error line: one that says `error`, else the first `file:line:` message
    (Go's), else the first line that is not a `#` package header."""
    lines = [ln.strip() for ln in output.splitlines() if ln.strip()]
    for wanted in (lambda ln: "error" in ln.lower(), lambda ln: _LOCATED.match(ln), lambda ln: not ln.startswith("#")):
        found = next((ln for ln in lines if wanted(ln)), None)
        if found:
            return found[:300]
    return ""


def grade(split: SplitTest, report: bytes, *, exit_status: int | None, output_tail: str = "") -> Verdict:
    if split.integrity is Integrity.OUTSIDE:
        return grade_outside(split, report, exit_status=exit_status)
    return grade_in_process(exit_status, output_tail)
