"""What a run still needs before the gate releases it, as a list a release engineer can work down.

Each need names what to do (`action`) and what it is about (`boundary`, `condition` or `alert`),
so the command line can print the command and the console the keys; the words stay the gate's.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from .alerts import Alert
from .evidence import Condition
from .policy import Policy
from .relaxations import BoundaryState
from .vocab import SECURE_DEFAULT, evidence_rank, risk_rank

# what a boundary in each blocking status needs, in words
_BOUNDARY_NEEDS = {
    "unsigned": "a sign-off of {key} by a reviewer other than the operator ({operator})",
    "refused": "{key} was refused: a run without the relaxation, or a reviewer's approval after the refusal",
    "unjustified": "a justification of {key} in the manifest's gate.relaxations, then a reviewer's sign-off",
    "exceeds_policy": "{boundary} within what policy {policy} allows ({allowed}): a new run, or another policy",
    "unverified": "evidence of what the run used for {boundary}: the record does not show it ({saw})",
}


@dataclass(frozen=True)
class Need:
    what: str
    action: str                   # signoff | manifest | rerun | evidence | alert
    subject: str = ""             # the boundary, condition or alert it is about

    def as_dict(self) -> dict:
        return asdict(self)


def release_needs(states: list[BoundaryState], policy: Policy, operator: str, risk: str,
                  conditions: list[Condition], alerts: list[Alert]) -> list[Need]:
    """Every change that stands between this run and a release, most blocking first."""
    needs = [_boundary_need(s, policy, operator) for s in states if s.status in _BOUNDARY_NEEDS]
    rel = policy.consequence.release
    if risk_rank(risk) > risk_rank(rel.max_risk):
        for s in states:
            if s.relaxed and risk_rank(s.risk) > risk_rank(rel.max_risk):
                needs.append(Need(f"risk at most {rel.max_risk}: {s.boundary} is {s.effective} ({s.risk} risk); "
                                  f"a run at {SECURE_DEFAULT[s.boundary]}", "rerun", s.boundary))
    for c in conditions:
        if evidence_rank(c.level) < evidence_rank(rel.min_evidence):
            needs.append(Need(f"{c.name} at least {rel.min_evidence} (now {c.level}: {c.measured}; "
                              f"thresholds: {c.threshold})", "evidence", c.name))
    for a in alerts:
        if a.raised and a.cap != "release":
            needs.append(Need(f"alert {a.name} cleared: {a.sentence}", "alert", a.name))
    return needs


def _boundary_need(s: BoundaryState, policy: Policy, operator: str) -> Need:
    what = _BOUNDARY_NEEDS[s.status].format(key=s.key, boundary=s.boundary, operator=operator or "unknown",
                                            policy=policy.name, allowed=s.policy, saw=s.saw)
    action = {"unsigned": "signoff", "refused": "rerun", "unjustified": "manifest"}.get(s.status, "rerun")
    return Need(what, action, s.boundary)
