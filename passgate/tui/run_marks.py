"""What the runs list marks on each run beside its status: the verdict, a relaxation waiting for a
reviewer's sign-off, and a record that was altered (which outranks everything else).

A verdict reads the whole run, so marks are kept between refreshes and recomputed only for a run
whose status, decided count or sign-offs changed (`RunMark.fingerprint`).
"""

from __future__ import annotations

from dataclasses import dataclass

from passgate.core.errors import PassgateError

from .optional import optional
from .records import RunRow


@dataclass(frozen=True)
class RunMark:
    """A run's verdict as the list shows it."""

    fingerprint: tuple
    verdict: str = ""              # release | canary | blocked | "" (not judged: the run is not completed)
    waiting: int = 0               # relaxations waiting for a sign-off by someone other than the operator
    altered: str = ""              # the first altered row, in words ("" when the record verifies)
    error: str = ""                # why the run could not be judged

    @property
    def label(self) -> str:
        """The verdict column: ALTERED first, then the verdict and what it waits for."""
        if self.altered:
            return "ALTERED"
        if self.error:
            return f"error: {self.error}"
        if not self.verdict:
            return "—"
        return f"{self.verdict}: sign-off" if self.waiting else self.verdict


def fingerprint(row: RunRow) -> tuple:
    return row.status, row.decided, row.signoffs


def mark_runs(store, rows: list[RunRow], known: dict[str, RunMark]) -> dict[str, RunMark]:
    """A mark for every run, reusing `known` marks whose run has not changed since."""
    marks = {}
    for row in rows:
        old = known.get(row.run_id)
        marks[row.run_id] = old if old is not None and old.fingerprint == fingerprint(row) else _mark(store, row)
    return marks


def _mark(store, row: RunRow) -> RunMark:
    key = fingerprint(row)
    if row.status != "completed":
        # not judged until it completes; a running run's record is still being written
        return RunMark(key, altered="" if row.status in ("created", "running") else _altered(store, row.run_id))
    evaluate = optional("passgate.core.gate", "evaluate")
    if evaluate is None:
        return RunMark(key, altered=_altered(store, row.run_id))
    try:
        v = evaluate(store, row.run_id)
    except PassgateError as exc:        # shown in the column; `v` on the run shows the sentence
        return RunMark(key, error=exc.title, altered=_altered(store, row.run_id))
    intact = next((c for c in v.conditions if c.name == "records_intact"), None)
    altered = _altered(store, row.run_id) if intact is not None and intact.level == "invalid" else ""
    return RunMark(key, verdict=v.consequence, waiting=sum(b.status == "unsigned" for b in v.boundaries),
                   altered=altered)


def _altered(store, run_id: str) -> str:
    from passgate.core.record.verify import verify_run
    check = verify_run(store, run_id)
    return check.problems[0] if check.problems else ""
