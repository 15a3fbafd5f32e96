"""Boundary states: the run and its policy compared with the secure default, boundary by boundary.

For each boundary there are four settings: the secure default, what the policy allows, what the
manifest declares in `gate.relaxations`, and what the run used (from its record). The boundary
is relaxed when the most relaxed of them is past the secure default. A relaxation is acceptable
only when the policy allows it, it is justified, and a reviewer other than the run's operator
has signed it off; the sign-off names the exact terms (`key`) it approves.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from passgate.core.record.times import utc_time

from .facts import GateFacts, SignoffFact
from .policy import Policy
from .vocab import BOUNDARIES, BOUNDARY_LABELS, RISK, SECURE_DEFAULT, SETTINGS, rank

# status words, in the order a reader should worry about them
STATUSES = ("exceeds_policy", "unverified", "refused", "unsigned", "unjustified", "signed", "secure")
BLOCKING = ("exceeds_policy", "unverified", "refused", "unsigned", "unjustified")


@dataclass(frozen=True)
class BoundaryState:
    boundary: str
    secure: str
    policy: str
    declared: str                 # manifest gate.relaxations setting ("" when not declared)
    used: str                     # what the run used ("" when the record does not show it)
    saw: str                      # what the record shows, in words
    effective: str                # the most relaxed of policy, declared and used
    terms: tuple[str, ...]        # allow-list the relaxation approves
    relaxed: bool
    risk: str
    justification: str
    justified_by: str             # manifest | policy | ""
    status: str                   # one of STATUSES
    key: str                      # what a sign-off approves: boundary=setting[terms]
    signoff: SignoffFact | None
    sentence: str
    note: str = ""

    def as_dict(self) -> dict:
        return asdict(self)


def relaxation_key(boundary: str, setting: str, terms: tuple[str, ...] = ()) -> str:
    return f"{boundary}={setting}" + (f"[{','.join(terms)}]" if terms else "")


def same_person(a: str, b: str) -> bool:
    return " ".join(a.split()).casefold() == " ".join(b.split()).casefold()


def boundary_states(facts: GateFacts, policy: Policy) -> list[BoundaryState]:
    declared = {d.boundary: d for d in facts.declared}
    return [_state(b, facts, policy, declared.get(b)) for b in BOUNDARIES]


def unknown_declarations(facts: GateFacts) -> list[str]:
    """Sentences for manifest relaxations that name no boundary passgate knows."""
    return [f"The manifest declares a relaxation of {d.boundary!r}, which is not a boundary passgate knows "
            f"({', '.join(BOUNDARIES)})." for d in facts.declared if d.boundary not in SETTINGS]


def _state(b: str, facts: GateFacts, policy: Policy, declared) -> BoundaryState:
    section = policy.boundaries.get(b)
    allowed = section.setting
    used, saw = used_setting(b, facts, policy)
    wanted = declared.setting if declared else ""
    candidates = [s for s in (allowed, wanted, used) if s]
    effective = max(candidates, key=lambda s: rank(b, s))
    terms = tuple(getattr(section, "allowlist", ())) if effective == allowed and rank(b, allowed) > 0 else ()
    relaxed = rank(b, effective) > 0
    risk = RISK.get((b, effective), "critical")
    justification, by = "", ""
    if declared and declared.justification.strip():
        justification, by = declared.justification.strip(), "manifest"
    elif section.justification.strip():
        justification, by = " ".join(section.justification.split()), "policy"
    key = relaxation_key(b, effective, terms)
    signoff, refusal, by_operator = _signoffs(facts, key)
    beyond = _beyond_policy(b, facts, policy, wanted, used)
    if beyond:
        status, sentence = "exceeds_policy", beyond
    elif not used:
        status, sentence = "unverified", f"{BOUNDARY_LABELS[b].capitalize()}: the record does not show what the run used ({saw})."
    elif not relaxed:
        status, sentence = "secure", f"{BOUNDARY_LABELS[b].capitalize()}: {effective} (secure default); {saw}."
    elif not justification:
        status, sentence = "unjustified", f"{_relaxed_words(b, effective, terms)} carries no justification."
    elif refusal is not None:
        status = "refused"
        sentence = (f"{_relaxed_words(b, effective, terms)} was refused by {refusal.reviewer} at {utc_time(refusal.at)}: "
                    f"\"{refusal.statement}\".")
    elif signoff is not None:
        status = "signed"
        sentence = (f"{_relaxed_words(b, effective, terms)} is justified ({by}: \"{justification}\") and signed off by "
                    f"{signoff.reviewer} at {utc_time(signoff.at)}: \"{signoff.statement}\".")
    else:
        status = "unsigned"
        extra = " (a sign-off by the operator does not count)" if by_operator else ""
        sentence = (f"{_relaxed_words(b, effective, terms)} has no sign-off from a reviewer other than the operator "
                    f"({facts.operator or 'unknown'}){extra}; sign it with `passgate signoff {facts.run_id} "
                    f"--boundary {b}{_policy_flag(facts, policy)}`.")
    return BoundaryState(b, SECURE_DEFAULT[b], allowed, wanted, used, saw, effective, terms, relaxed, risk,
                         justification, by, status, key, signoff or refusal, sentence, _note(b, allowed, used))


def _policy_flag(facts: GateFacts, policy: Policy) -> str:
    """The --policy option a sign-off needs when the gate runs under another policy than the manifest's."""
    if policy.name == facts.manifest_policy:
        return ""
    from .policy import policies_dir
    shipped = policy.source and str(policy.source) == str(policies_dir() / f"{policy.name}.yaml")
    return f" --policy {policy.name if shipped or not policy.source else policy.source}"


def _relaxed_words(b: str, setting: str, terms: tuple[str, ...]) -> str:
    listed = f" ({', '.join(terms)})" if terms else ""
    return f"The {BOUNDARY_LABELS[b]} relaxation to {setting}{listed}"


def _note(b: str, allowed: str, used: str) -> str:
    if used and rank(b, allowed) > rank(b, used):
        if b == "network":
            return (f"the policy allows {allowed} but the runner implements network none only: this run's evidence "
                    "was measured with no network, so candidates that need the allowed hosts failed here")
        if b == "dependencies":
            return (f"the policy allows {allowed} but the runner provides the pinned image only: this run measured "
                    "candidates without the allowed packages")
        return f"the policy allows {allowed}; this run used {used}"
    return ""


def _signoffs(facts: GateFacts, key: str):
    """(latest approval, latest refusal, any sign-off by the operator) for this key."""
    latest: dict[str, SignoffFact] = {}
    by_operator = False
    for s in facts.signoffs:
        if s.boundary != key or not s.reviewer.strip():
            continue
        if same_person(s.reviewer, facts.operator):
            by_operator = True
            continue
        latest[" ".join(s.reviewer.split()).casefold()] = s
    refusals = [s for s in latest.values() if s.decision != "approved"]
    approvals = [s for s in latest.values() if s.decision == "approved"]
    return (approvals[-1] if approvals else None), (refusals[-1] if refusals else None), by_operator


def _beyond_policy(b: str, facts: GateFacts, policy: Policy, wanted: str, used: str) -> str:
    allowed = policy.setting(b)
    label = BOUNDARY_LABELS[b].capitalize()
    if used and rank(b, used) > rank(b, allowed):
        return f"{label}: the run used {used}, which policy {policy.name} does not allow (it allows {allowed})."
    if wanted and rank(b, wanted) > rank(b, allowed):
        return f"{label}: the manifest declares {wanted}, which policy {policy.name} does not allow (it allows {allowed})."
    if b == "dependencies" and facts.packages and not pinned_allowlist_image(facts):
        outside = [p for p in facts.packages if not _package_allowed(p, policy.boundaries.dependencies.allowlist)]
        if outside:
            return (f"{label}: the manifest declares packages {', '.join(outside)}, which policy {policy.name}'s "
                    f"allow-list does not contain ({', '.join(policy.boundaries.dependencies.allowlist) or 'empty'}).")
    return ""


def pinned_allowlist_image(facts: GateFacts) -> bool:
    """Packages that are as fixed as the base image: each `name==version --hash=sha256:...`, in the image
    whose digest the manifest pins and the run used, derived from a pinned base. Still no network."""
    import re
    pinned = all(re.fullmatch(r"[A-Za-z0-9._-]+==\S+\s+--hash=sha256:[0-9a-f]{64}", p.strip()) for p in facts.packages)
    same_image = bool(facts.pinned_digest) and facts.pinned_digest == facts.image_digest
    return pinned and same_image and bool(facts.base_image_digest)


def _package_allowed(package: str, allowlist: tuple[str, ...]) -> bool:
    name, _, version = package.partition("==")
    for entry in allowlist:
        a_name, _, a_version = entry.partition("==")
        if a_name.lower().replace("_", "-") == name.lower().replace("_", "-") and (
                not version or not a_version or version == a_version):
            return True
    return False


def used_setting(b: str, facts: GateFacts, policy: Policy) -> tuple[str, str]:
    """What the run used for a boundary, and what in the record shows it ("" when nothing does)."""
    checks = [c for c in facts.probe + facts.preflight if c.boundary == b]
    if b in ("network", "mounts"):
        if not checks:
            return "", "no boundary checks recorded"
        bad = [c for c in checks if not c.ok]
        if bad:
            return ("open" if b == "network" else "host-paths"), "; ".join(f"{c.name}: {c.saw}" for c in bad)
        main = next((c for c in checks if c.name in ("network_none", "no_host_mounts")), checks[0])
        return SECURE_DEFAULT[b], f"{len(checks)} checks passed ({main.saw})"
    if b == "dependencies":
        if facts.packages and pinned_allowlist_image(facts):
            names = ", ".join(p.split()[0] for p in facts.packages)
            return "pinned-image", (f"pinned allowlist image {facts.image_digest[:19]} ({names}, each pinned by hash) "
                                    f"on the pinned base {facts.base_image_digest[:19]}, no network")
        if facts.packages:
            return "allowlist", f"the manifest declares packages {', '.join(facts.packages)} (not all pinned by hash " \
                                "in a pinned image)"
        return "pinned-image", f"pinned base image {facts.image_digest[:19] or 'unknown'} only"
    if b == "runtime":
        if not facts.runtime:
            return "", "no runtime recorded"
        return facts.runtime, f"containers ran under {facts.runtime}"
    if b == "protected_tests":
        if not facts.tasks:
            return "", "no tasks recorded"
        missing = facts.tasks - facts.tasks_with_protected
        if missing:
            return "public-only", f"{missing} of {facts.tasks} tasks have no protected tests"
        return "required", f"all {facts.tasks} tasks have protected tests"
    if b == "rerun_stability":
        need = policy.boundaries.rerun_stability.min_attempts if policy.setting(b) == "required" else 2
        ok = facts.rerun_policy in ("failures", "all") and facts.rerun_count >= need
        from .evidence import rerun_words
        saw = (f"execution.reruns: {rerun_words(facts.rerun_policy, facts.rerun_count)} (needs failures or all, "
               f"at least {need} attempts)")
        return ("required" if ok else "not-required"), saw
    if b == "holdout":
        if not facts.slices:
            return "", "no task slices recorded"
        held = [s.name for s in facts.slices if s.exposure == "holdout"]
        if held:
            return "clean-required", f"holdout slices: {', '.join(held)}"
        return "public-only", "every slice is a public benchmark (exposed): " + ", ".join(s.name for s in facts.slices)
    raise KeyError(b)
