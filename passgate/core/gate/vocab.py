"""The gate's fixed vocabulary: boundaries and their settings, risk, evidence and consequence levels.

Each boundary's settings are ordered from the secure default (first) to the most relaxed (last),
so "more relaxed than" is a comparison of positions. The risk of each setting is fixed here, not
in a policy file: a policy may relax a boundary, but it cannot declare a relaxation harmless.
"""

from __future__ import annotations

# boundary -> settings, secure default first
SETTINGS: dict[str, tuple[str, ...]] = {
    "network": ("none", "egress-allowlist", "open"),
    "mounts": ("none", "read-only-task-files", "host-paths"),
    "dependencies": ("pinned-image", "allowlist", "ambient"),
    "runtime": ("runsc", "runc"),
    "protected_tests": ("required", "public-only"),
    "rerun_stability": ("required", "not-required"),
    "holdout": ("clean-required", "public-only"),
}
BOUNDARIES: tuple[str, ...] = tuple(SETTINGS)
SECURE_DEFAULT: dict[str, str] = {b: s[0] for b, s in SETTINGS.items()}

RISK_LEVELS = ("low", "medium", "high", "critical")
EVIDENCE_LEVELS = ("invalid", "weak", "adequate", "strong")     # worst first
CONSEQUENCES = ("release", "canary", "blocked")                 # best first

# Risk a release accepts when a boundary is at a setting. Why each level:
RISK: dict[tuple[str, str], str] = {
    ("network", "none"): "low",
    ("network", "egress-allowlist"): "medium",     # candidates can reach named hosts: exfiltration path exists
    ("network", "open"): "high",
    ("mounts", "none"): "low",
    ("mounts", "read-only-task-files"): "low",     # candidates can read the tests they are graded on
    ("mounts", "host-paths"): "critical",          # host files, possibly source and credentials
    ("dependencies", "pinned-image"): "low",
    ("dependencies", "allowlist"): "medium",       # third-party code enters the sandbox
    ("dependencies", "ambient"): "high",
    ("runtime", "runsc"): "low",
    ("runtime", "runc"): "high",                   # the host kernel is the only boundary
    ("protected_tests", "required"): "low",
    ("protected_tests", "public-only"): "medium",  # graded on the tests the model saw: overfitting hides
    ("rerun_stability", "required"): "low",
    ("rerun_stability", "not-required"): "low",    # flakiness goes unmeasured; weighed as evidence
    ("holdout", "clean-required"): "low",
    ("holdout", "public-only"): "medium",          # exposed benchmarks: memorisation can inflate scores
}

# Why a relaxed setting carries its risk, in the verdict's words.
RISK_WHY: dict[tuple[str, str], str] = {
    ("network", "egress-allowlist"): "candidate code can reach the allow-listed hosts, an exfiltration path",
    ("network", "open"): "candidate code can reach any host",
    ("mounts", "read-only-task-files"): "candidate code can read the task files it is graded on",
    ("mounts", "host-paths"): "candidate code can reach host files, possibly source and credentials",
    ("dependencies", "allowlist"): "third-party packages run inside the sandbox",
    ("dependencies", "ambient"): "whatever the environment provides runs inside the sandbox",
    ("runtime", "runc"): "the host kernel is the only boundary between candidate code and the host",
    ("protected_tests", "public-only"): "candidates are graded on tests the model saw, which hides overfitting",
    ("rerun_stability", "not-required"): "flaky candidates can pass on one lucky attempt",
    ("holdout", "public-only"): "exposed benchmarks can reward memorisation over ability",
}

# Failed boundary checks (core/sandbox/boundary.py `Check.boundary`) and the risk they mean.
CHECK_RISK: dict[str, str] = {
    "network": "critical", "mounts": "critical", "credentials": "critical", "runtime": "critical",
    "filesystem": "high", "processes": "high", "memory": "high", "image": "high",
}

BOUNDARY_LABELS: dict[str, str] = {
    "network": "network", "mounts": "mounts", "dependencies": "dependencies", "runtime": "runtime",
    "protected_tests": "protected tests", "rerun_stability": "rerun stability", "holdout": "holdout",
}


def rank(boundary: str, setting: str) -> int:
    """Position of a setting: 0 is the secure default; unknown settings rank as the most relaxed."""
    options = SETTINGS[boundary]
    return options.index(setting) if setting in options else len(options)


def risk_rank(level: str) -> int:
    return RISK_LEVELS.index(level)


def evidence_rank(level: str) -> int:
    return EVIDENCE_LEVELS.index(level)


def worst_risk(levels) -> str:
    return max(levels, key=risk_rank, default="low")


def worst_evidence(levels) -> str:
    return min(levels, key=evidence_rank, default="strong")
