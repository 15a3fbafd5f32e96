"""When is a candidate decided? A pure function of its attempts and the manifest's policies.

Infra failures are retried and never counted against the model; a timeout is re-run alone
before it is final; the rerun policy asks for more attempts; attempts that disagree make the
candidate `flaky`, which never counts as a pass.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass


@dataclass(frozen=True)
class Attempt:
    status: str                 # ok | infra_error
    purpose: str
    public_status: str          # passed | failed | not_run
    protected_status: str
    failure_class: str | None
    detail: str = ""
    cpu_s: float = 0.0
    wall_s: float = 0.0
    oom_killed: bool = False

    @classmethod
    def from_row(cls, row: dict) -> "Attempt":
        return cls(status=row["status"], purpose=row["purpose"], public_status=row["public_status"] or "not_run",
                   protected_status=row["protected_status"] or "not_run", failure_class=row["failure_class"],
                   detail=row.get("detail") or "", cpu_s=row.get("cpu_s") or 0.0, wall_s=row.get("wall_s") or 0.0,
                   oom_killed="OOM-killed" in (row.get("detail") or ""))


@dataclass(frozen=True)
class Policy:
    rerun_policy: str = "none"  # none | failures | all
    rerun_count: int = 2
    infra_retries: int = 2
    recheck_timeouts: bool = True


@dataclass(frozen=True)
class Need:
    purpose: str                # infra_retry | timeout_recheck | rerun


@dataclass(frozen=True)
class Final:
    outcome: str                # passed | failed | flaky | infra_error
    failure_class: str | None
    public_passed: int | None
    protected_passed: int
    attempts: int
    cpu_s: float
    wall_s: float
    reason: str = ""


def decide(attempts: list[Attempt], policy: Policy) -> Need | Final | None:
    """Next step for one candidate; None when it has never been attempted."""
    if not attempts:
        return None
    model = [a for a in attempts if a.status == "ok"]
    infra = [a for a in attempts if a.status != "ok"]
    if not model:
        if sum(a.oom_killed for a in infra) >= 2:
            last = infra[-1]
            return Final("failed", "memory_exceeded", None, 0, len(attempts), last.cpu_s, last.wall_s,
                         "the candidate got its sandbox killed for memory twice")
        if len(infra) <= policy.infra_retries:
            return Need("infra_retry")
        return Final("infra_error", "infra_error", None, 0, len(attempts), 0.0, 0.0,
                     f"evaluator failed {len(infra)} times: {infra[-1].detail[:200]}")
    lost = attempts[-1].status != "ok"
    if lost and len(infra) <= policy.infra_retries:
        # a rerun or recheck was lost to the evaluator: try it again; a lost recheck is retried as a
        # recheck, so it still runs alone and still stands in for the timeout it re-checks
        return Need("timeout_recheck" if attempts[-1].purpose == "timeout_recheck" else "infra_retry")

    effective = _effective(model)
    if needs_recheck(model, policy):
        need: Need | None = Need("timeout_recheck")
    else:
        wanted = 1
        if policy.rerun_policy == "all" or (policy.rerun_policy == "failures"
                                            and effective[0].protected_status != "passed"):
            wanted = policy.rerun_count
        need = Need("rerun") if len(effective) < wanted else None
    if need is None:
        return _final(effective, len(attempts), model)
    if lost:   # the policy asks for an attempt the evaluator could not complete in its retries
        return Final("infra_error", "infra_error", None, 0, len(attempts), 0.0, 0.0,
                     f"the {need.purpose.replace('_', ' ')} failed {len(infra)} times in the evaluator: "
                     f"{infra[-1].detail[:200]}")
    return need


def needs_recheck(model: list[Attempt], policy: Policy) -> bool:
    """A timeout is re-run alone once, the first time one is the candidate's latest verdict."""
    return (policy.recheck_timeouts and bool(model) and _effective(model)[-1].failure_class == "timeout"
            and not any(a.purpose == "timeout_recheck" for a in model))


def recheck_would_follow(attempts: list[Attempt], purpose: str, policy: Policy) -> bool:
    """Would a timeout in this next attempt be re-run alone? Then that recheck replaces the whole
    attempt, and the attempt need not spend a second budget on its public suite."""
    return (policy.recheck_timeouts and purpose != "timeout_recheck"
            and not any(a.purpose == "timeout_recheck" and a.status == "ok" for a in attempts))


def _effective(model: list[Attempt]) -> list[Attempt]:
    """Model attempts, with a timeout replaced by the recheck that was run for it alone."""
    out: list[Attempt] = []
    for a in model:
        if a.purpose == "timeout_recheck" and out and out[-1].failure_class == "timeout":
            out[-1] = a
        else:
            out.append(a)
    return out


def _final(effective: list[Attempt], n_attempts: int, model: list[Attempt]) -> Final:
    last = effective[-1]
    protected = [a.protected_status == "passed" for a in effective]
    public_states = {a.public_status for a in effective}
    public_passed = None if "not_run" in public_states else int(public_states == {"passed"})
    rechecked = any(a.purpose == "timeout_recheck" for a in model)
    note = ""
    if rechecked:
        note = ("timed out again when run alone" if last.failure_class == "timeout"
                else "timed out, then decided by a run alone")
    if all(protected):
        return Final("passed", None, public_passed, 1, n_attempts, last.cpu_s, last.wall_s, note)
    classes = [a.failure_class for a in effective if a.protected_status != "passed" and a.failure_class]
    cls = Counter(classes).most_common(1)[0][0] if classes else "wrong_answer"
    if any(protected):
        return Final("flaky", cls, 0 if public_passed is None else public_passed, 0, n_attempts, last.cpu_s,
                     last.wall_s, f"{sum(protected)}/{len(protected)} attempts passed")
    return Final("failed", cls, public_passed, 0, n_attempts, last.cpu_s, last.wall_s, note)
