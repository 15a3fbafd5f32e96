"""When is a candidate decided? A pure function of its attempts and the manifest's policies.

Infra failures are retried and never counted against the model; a timeout is re-run alone
before it is final; the rerun policy asks for more attempts; attempts that disagree make the
candidate `flaky`, which never counts as a pass.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, replace


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
    probe_passed: bool | None = None    # a lost sandbox: did a known-good probe then pass in a fresh one?
    timeout_confirmed: bool = False     # the host saw the suite use its whole CPU budget in real CPU

    @classmethod
    def from_row(cls, row: dict) -> "Attempt":
        evidence = json.loads(row.get("evidence_json") or "{}")
        probe = evidence.get("probe") if row["status"] != "ok" else None
        return cls(status=row["status"], purpose=row["purpose"], public_status=row["public_status"] or "not_run",
                   protected_status=row["protected_status"] or "not_run", failure_class=row["failure_class"],
                   detail=row.get("detail") or "", cpu_s=row.get("cpu_s") or 0.0, wall_s=row.get("wall_s") or 0.0,
                   oom_killed="OOM-killed" in (row.get("detail") or ""),
                   probe_passed=None if probe is None else probe == "passed",
                   timeout_confirmed=bool(evidence.get("timeout_confirmed")))


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
    lost = _trailing_lost(attempts)
    if lost:
        if sum(a.oom_killed for a in lost) >= 2:
            last = lost[-1]
            return Final("failed", "memory_exceeded", None, 0, len(attempts), last.cpu_s, last.wall_s,
                         "the candidate got its sandbox killed for memory twice")
        if sum(bool(a.probe_passed) for a in lost) >= 2:
            return Final("failed", "sandbox_crash", None, 0, len(attempts), 0.0, 0.0,
                         "the candidate took its sandbox down twice, and each time a known-good probe then "
                         f"passed in a fresh sandbox: {lost[-1].detail[:200]}")
        if len(lost) <= policy.infra_retries:
            # try again; a lost recheck is retried as a recheck, so it still runs alone and still
            # stands in for the timeout it re-checks
            return Need("timeout_recheck" if lost[-1].purpose == "timeout_recheck" else "infra_retry")
        if not model:
            return Final("infra_error", "infra_error", None, 0, len(attempts), 0.0, 0.0,
                         f"evaluator failed {len(lost)} times: {lost[-1].detail[:200]}")

    effective = _effective(model)
    need = _needed(model, effective, policy)
    if need is None:
        return _final(effective, len(attempts), model)
    if not lost:
        return need
    # the policy asks for an attempt the evaluator could not complete within its retries
    note = (f"the {need.purpose.replace('_', ' ')} was lost to the evaluator {len(lost)} times: "
            f"{lost[-1].detail[:200]}")
    if all(a.protected_status == "passed" for a in effective):      # a pass that could not be confirmed
        return Final("infra_error", "infra_error", None, 0, len(attempts), 0.0, 0.0, note)
    final = _final(effective, len(attempts), model)                 # a failure stands without it
    return replace(final, reason=f"{final.reason}; {note}" if final.reason else note)


def _trailing_lost(attempts: list[Attempt]) -> list[Attempt]:
    """Attempts lost to the evaluator since the last completed one: the tries of one needed attempt,
    which get their own retry budget."""
    out: list[Attempt] = []
    for a in reversed(attempts):
        if a.status == "ok":
            break
        out.append(a)
    return out[::-1]


def _needed(model: list[Attempt], effective: list[Attempt], policy: Policy) -> Need | None:
    if needs_recheck(model, policy):
        return Need("timeout_recheck")
    wanted = 1
    if policy.rerun_policy == "all" or (policy.rerun_policy == "failures" and effective[0].protected_status != "passed"):
        wanted = policy.rerun_count
    return Need("rerun") if len(effective) < wanted else None


def needs_recheck(model: list[Attempt], policy: Policy) -> bool:
    """A timeout is re-run alone once, the first time one is the candidate's latest verdict, unless the
    host already saw it use its whole budget in real CPU (then no contention made it time out)."""
    if not (policy.recheck_timeouts and model):
        return False
    last = _effective(model)[-1]
    return (last.failure_class == "timeout" and not last.timeout_confirmed
            and not any(a.purpose == "timeout_recheck" for a in model))


def recheck_would_follow(attempts: list[Attempt], purpose: str, policy: Policy) -> bool:
    """Would a timeout in this next attempt be re-run alone? Then that recheck replaces the whole
    attempt, and the attempt need not spend a second budget on its public suite."""
    timeout = Attempt(status="ok", purpose=purpose, public_status="not_run", protected_status="failed",
                      failure_class="timeout")      # the worst case: one the host could not confirm
    return needs_recheck([a for a in attempts if a.status == "ok"] + [timeout], policy)


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
