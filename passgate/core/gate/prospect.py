"""What the gate will say about a run before it runs: the verdict on the best record the manifest
allows (every candidate passes, nothing flaky, no timeouts, every check passes), under a policy.

The wizard shows it at Scoring and Review, so nobody launches a run that no result could release
without being told: what blocks it whatever it measures, what it needs after the run (a sign-off
by someone other than the operator), and which offered policy it could be gated under instead.
The verdict itself (`verdict.py`) decides; this module only builds the projected facts.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from .. import kinds
from ..manifest import Manifest, resolve_path
from .facts import CheckFact, Counts, DeclaredRelaxation, GateFacts, Score, SecurityFacts, SignoffFact, SliceFact
from .policy import Policy, load_policy
from .relaxations import BLOCKING, boundary_states
from .verdict import Verdict, verdict
from .vocab import evidence_rank

SECOND_REVIEWER = "a second reviewer"


@dataclass(frozen=True)
class TaskStats:
    """The manifest's tasks as the gate counts them: per slice, and how many have protected tests."""

    slices: tuple[SliceFact, ...]
    with_protected: int

    @property
    def tasks(self) -> int:
        return sum(s.tasks for s in self.slices)


@dataclass(frozen=True)
class Prospect:
    """A policy's verdict on the best record this run can write."""

    policy: str
    description: str
    at_launch: Verdict               # before anyone signs off
    at_best: Verdict                 # once a reviewer other than the operator has approved every relaxation
    signoffs: tuple[str, ...]        # the relaxation keys that need that sign-off

    @property
    def best(self) -> str:
        return self.at_best.consequence

    blockers: tuple[str, ...] = ()   # what keeps even the best record from a release under this policy


def task_stats(manifest: Manifest, manifest_path: str | Path | None = None) -> TaskStats:
    """Load the manifest's task sets (no pins checked: the run checks them) and count them as the gate does."""
    from passgate.core.kinds.sets import load_task_set
    slices, protected = [], 0
    for spec in manifest.tasks.sets:
        path = resolve_path(manifest_path, spec.path)
        ts = load_task_set(spec.kind, str(path) if path else None, slice=spec.slice,
                           task_ids=list(spec.task_ids) if spec.task_ids else None, split=spec.split,
                           exposure=spec.exposure)
        held = not kinds.get(spec.kind).public and spec.exposure == "holdout"
        slices.append(SliceFact(spec.slice or spec.kind, ts.set_id, spec.kind, "holdout" if held else "exposed",
                                len(ts.tasks)))
        protected += sum(1 for t in ts.tasks if (t.protected_tests or "").strip())
    return TaskStats(tuple(slices), protected)


def project(manifest: Manifest, stats: TaskStats, policy: Policy, operator: str) -> Prospect:
    """The verdicts under `policy` on the best record this manifest can produce."""
    facts = _best_record(manifest, stats, operator, policy.name)
    first = verdict(facts, policy)
    waiting = tuple(s.key for s in boundary_states(facts, policy) if s.status == "unsigned")
    approved = tuple(SignoffFact(key, SECOND_REVIEWER, "approved", "projected", "") for key in waiting)
    best = verdict(replace(facts, signoffs=approved), policy)
    return Prospect(policy.name, " ".join(policy.description.split()), first, best, waiting, _blockers(best, policy))


def _blockers(v: Verdict, policy: Policy) -> tuple[str, ...]:
    """Boundaries the policy does not allow, the risk cap, and each evidence condition the best record
    still falls short on, in words that say it is a projection."""
    out = [b.sentence.replace("the run used", "this run uses") for b in v.boundaries if b.status in BLOCKING]
    out += [r for r in v.reasons if r.startswith("Risk is")]
    wanted = policy.consequence.release.min_evidence
    for c in v.conditions:
        if evidence_rank(c.level) < evidence_rank(wanted):
            out.append(f"{c.name.replace('_', ' ')} is {c.level} even at best: {c.measured} "
                       f"(a release needs {wanted}: {c.threshold})")
    return tuple(out)


def prospects(manifest: Manifest, stats: TaskStats, policies: list[str], operator: str) -> list[Prospect]:
    """One prospect per policy, the manifest's own first."""
    names = [manifest.gate.policy] + [p for p in policies if p != manifest.gate.policy]
    return [project(manifest, stats, load_policy(name), operator) for name in names]


def _best_record(m: Manifest, stats: TaskStats, operator: str, policy: str) -> GateFacts:
    ex = m.execution
    n = stats.tasks
    checks = (CheckFact("network_none", True, "network mode none", "network", "preflight"),
              CheckFact("no_host_mounts", True, "mounts: none", "mounts", "preflight"))
    probe = (CheckFact("only_loopback_interface", True, "interfaces: lo", "network", "probe"),)
    return GateFacts(
        run_id="(not run yet)", status="completed", operator=operator, manifest_id="(frozen at review)",
        manifest_policy=m.gate.policy, candidate_source=m.candidates.source, runtime=ex.runtime, image=ex.image,
        image_digest=ex.image_digest or "pinned", pinned_digest=ex.image_digest or "pinned",
        probe=probe, preflight=checks, selfcheck={"ran": True, "references": n, "passed": n, "failed": []},
        fidelity={"checked": n, "agreed": n, "disagreements": []}, crosscheck=ex.crosscheck,
        declared=tuple(DeclaredRelaxation(r.boundary, r.setting, r.justification) for r in m.gate.relaxations),
        packages=tuple(ex.packages), base_image_digest=ex.base_image_digest or "",
        rerun_policy=ex.reruns.policy, rerun_count=ex.reruns.count, slices=stats.slices, tasks=n,
        tasks_with_protected=stats.with_protected, counts=Counts(candidates=n, passed=n),
        score=Score(pass_at_1=1.0, ci_low=1.0, ci_high=1.0, level=m.scoring.interval.level, tasks=n),
        security=SecurityFacts(scanned=m.scoring.security.scan, passing=n))
