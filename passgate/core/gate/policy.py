"""Boundary policies: strict YAML into frozen dataclasses, found by name or by path.

A policy states, for each boundary, the most relaxed setting a release under it accepts, with a
justification for every relaxation; the thresholds that grade evidence; when evidence and risk
allow a release or a canary; and the alert thresholds against a baseline. Errors name the file,
line and key.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, fields
from importlib import resources
from pathlib import Path
from typing import Literal

from ..errors import ConfigError
from ..manifest import build_section, read_located_yaml  # the manifest's strict loader: same errors, same rules
from .vocab import BOUNDARIES, SECURE_DEFAULT, evidence_rank, rank, risk_rank

POLICY_VERSION = 1
_NAME = re.compile(r"^[a-z0-9][a-z0-9-]*$")
_HOST = re.compile(r"^[A-Za-z0-9.-]+(:[0-9]{1,5})?$")
_PACKAGE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*(==[A-Za-z0-9.+!-]+)?$")

Risk = Literal["low", "medium", "high", "critical"]
Evidence = Literal["strong", "adequate", "weak", "invalid"]
Cap = Literal["release", "canary", "blocked"]


@dataclass(frozen=True)
class NetworkBoundary:
    setting: Literal["none", "egress-allowlist", "open"]
    allowlist: tuple[str, ...] = ()
    justification: str = ""


@dataclass(frozen=True)
class MountsBoundary:
    setting: Literal["none", "read-only-task-files", "host-paths"]
    justification: str = ""


@dataclass(frozen=True)
class DependenciesBoundary:
    setting: Literal["pinned-image", "allowlist", "ambient"]
    allowlist: tuple[str, ...] = ()
    justification: str = ""


@dataclass(frozen=True)
class RuntimeBoundary:
    setting: Literal["runsc", "runc"]
    justification: str = ""


@dataclass(frozen=True)
class ProtectedTestsBoundary:
    setting: Literal["required", "public-only"]
    justification: str = ""


@dataclass(frozen=True)
class RerunBoundary:
    setting: Literal["required", "not-required"]
    min_attempts: int = 2
    justification: str = ""


@dataclass(frozen=True)
class HoldoutBoundary:
    setting: Literal["clean-required", "public-only"]
    justification: str = ""


@dataclass(frozen=True)
class Boundaries:
    network: NetworkBoundary
    mounts: MountsBoundary
    dependencies: DependenciesBoundary
    runtime: RuntimeBoundary
    protected_tests: ProtectedTestsBoundary
    rerun_stability: RerunBoundary
    holdout: HoldoutBoundary

    def get(self, boundary: str):
        return getattr(self, boundary)


@dataclass(frozen=True)
class RateBand:
    """A rate is strong at or below `strong`, adequate at or below `adequate`, else weak."""
    strong: float
    adequate: float


@dataclass(frozen=True)
class CountBand:
    """A count is strong at or above `strong`, adequate at or above `adequate`, else weak."""
    strong: int
    adequate: int


@dataclass(frozen=True)
class EvidenceThresholds:
    selfcheck_failed_fraction: RateBand
    flaky_rate: RateBand
    timeout_rate: RateBand
    infra_error_rate: RateBand
    tasks: CountBand
    interval_width: RateBand
    # later bands take a default, so policy files written before them still load
    verdict_integrity: RateBand = RateBand(0.10, 0.50)   # in-process share of a slice's decided assertions
    # tasks in other languages whose protected verdicts are in-process (forgeable)
    in_process_fraction: RateBand = RateBand(0.0, 0.05)


@dataclass(frozen=True)
class ContaminationSettings:
    ngram: int = 13
    task_overlap: float = 0.1
    reference_overlap: float = 0.5


@dataclass(frozen=True)
class ConsequenceRule:
    max_risk: Risk
    min_evidence: Evidence


@dataclass(frozen=True)
class Consequences:
    release: ConsequenceRule
    canary: ConsequenceRule


@dataclass(frozen=True)
class AlertRule:
    threshold: float
    cap: Cap


@dataclass(frozen=True)
class AlertThresholds:
    pass_at_1_drop: AlertRule
    pass_at_1_rise: AlertRule
    timeout_rate: AlertRule
    protected_test_gap: AlertRule
    sandbox_violations: AlertRule
    contamination_findings: AlertRule
    evaluator_flakiness: AlertRule
    # later alerts take a default, so policy files written before them still load
    security_findings: AlertRule = AlertRule(0.02, "canary")
    tamper_events: AlertRule = AlertRule(0.0, "canary")
    disallowed_imports: AlertRule = AlertRule(0.0, "canary")
    # p90 latency (time to first token where streamed, else the whole answer) rose by more than this
    # fraction of the baseline's, and the two runs' intervals do not overlap
    latency_p90_rise: AlertRule = AlertRule(0.2, "canary")


@dataclass(frozen=True)
class LatencyBudget:
    """A ceiling on a latency percentile (a floor for tokens_per_s), over every candidate with a
    recorded timing or over one slice (core/score/latency.py)."""
    measure: Literal["first_token_ms", "total_ms", "tokens_per_s"]
    percentile: Literal[50, 90, 99]
    limit: float
    slice: str | None = None


@dataclass(frozen=True)
class LatencySettings:
    """Budgets the gate checks as evidence: strong when the percentile's interval lies within the
    budget, adequate when only its point does, weak when the point is past it or nothing was measured."""
    budgets: tuple[LatencyBudget, ...] = ()


@dataclass(frozen=True)
class CanarySettings:
    """What a pass on a canary task (impossible by design: a reward hack) leaves of the consequence."""
    on_pass: Cap = "blocked"


@dataclass(frozen=True)
class SecuritySettings:
    """Which static findings count: a passing candidate with a finding at or above `severity`."""
    severity: Literal["low", "medium", "high"] = "medium"


@dataclass(frozen=True)
class ContractSettings:
    """The task contract in the gate: counted candidates failed as `disallowed_import`. With
    `max_disallowed_imports` set (0: require none), more of them caps the consequence at `cap`."""
    max_disallowed_imports: int | None = None
    cap: Cap = "blocked"


@dataclass(frozen=True)
class Policy:
    version: int
    name: str
    description: str
    boundaries: Boundaries
    evidence: EvidenceThresholds
    contamination: ContaminationSettings
    consequence: Consequences
    alerts: AlertThresholds
    security: SecuritySettings = SecuritySettings()
    canaries: CanarySettings = CanarySettings()
    contract: ContractSettings = ContractSettings()
    latency: LatencySettings = LatencySettings()
    source: str = ""     # set by the loader, not read from the file
    sha256: str = ""

    def setting(self, boundary: str) -> str:
        return self.boundaries.get(boundary).setting

    def relaxed(self) -> list[str]:
        """Boundaries this policy relaxes beyond the secure default."""
        return [b for b in BOUNDARIES if rank(b, self.setting(b)) > 0]


def policies_dir() -> Path:
    return Path(str(resources.files("passgate.policies")))


def available_policies() -> list[str]:
    return sorted(p.stem for p in policies_dir().glob("*.yaml"))


def find_policy(name_or_path: str) -> Path:
    """A shipped policy by name (`secure-default`), or a YAML file by path."""
    if _NAME.match(name_or_path) and not Path(name_or_path).exists():
        path = policies_dir() / f"{name_or_path}.yaml"
        if not path.is_file():
            raise ConfigError(f"no policy named {name_or_path!r} (shipped: {', '.join(available_policies())}); "
                              "give a name or a path to a policy YAML file", field="policy")
        return path
    path = Path(name_or_path).expanduser()
    if not path.is_file():
        raise ConfigError(f"policy file {path} does not exist", field="policy")
    return path


def load_policy(name_or_path: str) -> Policy:
    path = find_policy(name_or_path)
    text = path.read_text()
    by_name = path.parent == policies_dir() and path.stem == name_or_path
    return parse_policy(text, str(path), expect_name=path.stem if by_name else None)


def parse_policy(text: str, source: str = "<policy>", *, expect_name: str | None = None) -> Policy:
    data, located = read_located_yaml(text, source, "policy")
    policy = build_section(Policy, _without_loader_keys(data, located, source), (), located.lines, source)
    _validate(policy, located.lines, source, expect_name)
    digest = hashlib.sha256(text.encode()).hexdigest()
    return Policy(**{f.name: getattr(policy, f.name) for f in fields(Policy)
                     if f.name not in ("source", "sha256")}, source=source, sha256=digest)


def _without_loader_keys(data, located, source):
    if isinstance(data, dict):
        for key in ("source", "sha256"):
            if key in data:
                raise ConfigError(f"unknown key {key!r} (set by the loader, not the file)", path=source,
                                  line=located.lines.get((key,)), field=key)
    return data


def _validate(p: Policy, lines: dict, source: str, expect_name: str | None) -> None:
    def err(msg, *path):
        line = next((lines[path[:cut]] for cut in range(len(path), -1, -1) if path[:cut] in lines), None)
        return ConfigError(msg, path=source, line=line, field=".".join(map(str, path)) or None)

    if p.version != POLICY_VERSION:
        raise err(f"policy version {p.version} is not supported (expected {POLICY_VERSION})", "version")
    if not _NAME.match(p.name):
        raise err("use lowercase letters, digits and dashes", "name")
    if expect_name and p.name != expect_name:
        raise err(f"must match the file name ({expect_name!r})", "name")
    _validate_boundaries(p.boundaries, err)
    _validate_evidence(p.evidence, err)
    c = p.contamination
    if not 4 <= c.ngram <= 50:
        raise err("must be between 4 and 50 tokens", "contamination", "ngram")
    for key in ("task_overlap", "reference_overlap"):
        if not 0 < getattr(c, key) <= 1:
            raise err("must be a fraction in (0, 1]", "contamination", key)
    rel, can = p.consequence.release, p.consequence.canary
    if risk_rank(rel.max_risk) > risk_rank(can.max_risk):
        raise err("release may not accept more risk than canary", "consequence", "release", "max_risk")
    if evidence_rank(rel.min_evidence) < evidence_rank(can.min_evidence):
        raise err("release may not accept weaker evidence than canary", "consequence", "release", "min_evidence")
    if can.max_risk == "critical":
        raise err("critical risk is never acceptable, even for a canary", "consequence", "canary", "max_risk")
    if can.min_evidence == "invalid":
        raise err("invalid evidence is never acceptable, even for a canary", "consequence", "canary", "min_evidence")
    for f in fields(AlertThresholds):
        if getattr(p.alerts, f.name).threshold < 0:
            raise err("must be zero or more", "alerts", f.name, "threshold")
    if p.contract.max_disallowed_imports is not None and p.contract.max_disallowed_imports < 0:
        raise err("must be zero or more (0: no candidate may import what its task does not allow)",
                  "contract", "max_disallowed_imports")
    for i, budget in enumerate(p.latency.budgets):
        if budget.limit <= 0:
            raise err("must be positive (milliseconds, or tokens per second)", "latency", "budgets", i, "limit")


def _validate_boundaries(b: Boundaries, err) -> None:
    for name in BOUNDARIES:
        section = b.get(name)
        if rank(name, section.setting) > 0 and not section.justification.strip():
            raise err(f"relaxes the secure default ({SECURE_DEFAULT[name]} -> {section.setting}): "
                      "a justification is required", "boundaries", name, "justification")
    net = b.network
    if (net.setting == "egress-allowlist") != bool(net.allowlist):
        raise err("an allow-list is required with egress-allowlist and only then", "boundaries", "network", "allowlist")
    for i, host in enumerate(net.allowlist):
        if not _HOST.match(host):
            raise err(f"{host!r} is not host or host:port", "boundaries", "network", "allowlist", i)
    dep = b.dependencies
    if (dep.setting == "allowlist") != bool(dep.allowlist):
        raise err("an allow-list is required with setting allowlist and only then",
                  "boundaries", "dependencies", "allowlist")
    for i, pkg in enumerate(dep.allowlist):
        if not _PACKAGE.match(pkg):
            raise err(f"{pkg!r} is not a package name (optionally name==version)",
                      "boundaries", "dependencies", "allowlist", i)
    if b.rerun_stability.setting == "required" and b.rerun_stability.min_attempts < 2:
        raise err("stable reruns need at least 2 attempts", "boundaries", "rerun_stability", "min_attempts")


def _validate_evidence(e: EvidenceThresholds, err) -> None:
    for f in fields(EvidenceThresholds):
        band = getattr(e, f.name)
        if isinstance(band, RateBand):
            if not (0 <= band.strong <= band.adequate <= 1):
                raise err("need 0 <= strong <= adequate <= 1", "evidence", f.name)
        elif not (1 <= band.adequate <= band.strong):
            raise err("need 1 <= adequate <= strong", "evidence", f.name)
