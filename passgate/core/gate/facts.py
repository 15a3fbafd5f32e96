"""GateFacts: everything the verdict needs from a run's record, as plain data.

`gather_facts` (core/gate/gather.py) fills it from the store; tests build it by hand. The verdict,
the evidence grades and the alerts read nothing else.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field


@dataclass(frozen=True)
class CheckFact:
    """One recorded boundary check (core/sandbox/boundary.py), from the self-probe or the container."""
    name: str
    ok: bool
    saw: str
    boundary: str
    source: str = "preflight"        # probe (inside the sandbox) | preflight (container configuration)


@dataclass(frozen=True)
class SignoffFact:
    boundary: str                    # relaxation key, e.g. "network=egress-allowlist[host:443]"
    reviewer: str
    decision: str                    # approved | refused
    statement: str
    at: str


@dataclass(frozen=True)
class DeclaredRelaxation:
    """A manifest's `gate.relaxations` entry."""
    boundary: str
    setting: str
    justification: str


@dataclass(frozen=True)
class SliceFact:
    name: str
    set_id: str
    kind: str                        # task-set kind; public benchmarks are always exposed
    exposure: str                    # exposed | holdout
    tasks: int


@dataclass(frozen=True)
class Finding:
    """A contamination finding for one task."""
    task_id: str
    slice: str
    exposure: str
    kind: str                        # task_in_corpus | candidate_reproduces_reference
    fraction: float                  # overlapping share of the n-grams compared
    matched: int
    compared: int
    detail: str = ""


@dataclass(frozen=True)
class Contamination:
    corpus_checked: bool = False     # tasks compared against a corpus
    corpus: str = ""                 # path and sha256 of what was read
    references_checked: bool = False # candidates compared against reference solutions
    ngram: int = 13
    findings: tuple[Finding, ...] = ()
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Counts:
    """Outcome counts of the run's candidates (core/model.py OUTCOMES)."""
    candidates: int = 0
    passed: int = 0
    failed: int = 0
    flaky: int = 0
    infra_error: int = 0
    excluded: int = 0
    timeouts: int = 0                # failed outcomes with failure_class timeout
    sandbox_violations: int = 0      # candidates with a sandbox_violation class or recorded violations
    public_graded: int = 0           # counted candidates whose task has public tests
    public_passed: int = 0
    protected_passed_of_public: int = 0  # protected passes among public_graded

    @property
    def counted(self) -> int:
        return self.passed + self.failed + self.flaky

    @property
    def executed(self) -> int:
        return self.counted + self.infra_error


@dataclass(frozen=True)
class SecurityFacts:
    """Static findings among the run's counted candidates (the `scans` rows), at the policy's severity."""
    scanned: bool = False
    severity: str = "medium"
    passing: int = 0                 # passing candidates that were scanned
    passing_with_findings: int = 0   # of them, with a finding at or above `severity`
    failing: int = 0
    failing_with_findings: int = 0

    @property
    def passing_rate(self) -> float | None:
        return self.passing_with_findings / self.passing if self.scanned and self.passing else None


@dataclass(frozen=True)
class ContractFacts:
    """The task contract among the run's counted candidates (the `contract` report section's totals)."""
    recorded: bool = False
    counted: int = 0
    disallowed_imports: int = 0      # counted candidates failed as disallowed_import
    modules: tuple[str, ...] = ()    # the modules they imported, most frequent first
    signature_changed: int = 0       # counted candidates whose entry point's signature differs (a finding)


@dataclass(frozen=True)
class CanaryFacts:
    """The run's canary tasks (impossible by design, never in pass@k) and every candidate that passed one."""
    tasks: int = 0
    candidates: int = 0              # counted candidates on canary tasks
    passes: tuple[tuple[str, int], ...] = ()   # (task_id, candidate_index) of each pass: a reward-hacking finding


@dataclass(frozen=True)
class SliceIntegrity:
    """How one slice's verdicts were decided (score/integrity.py): assertions decided outside the
    candidate's process, visible to it, or in it, summed over its counted candidates."""
    name: str
    candidates: int = 0
    outside: int = 0
    visible: int = 0
    in_process: int = 0
    process_control: int = 0         # verdicts whose test's own control flow decided which sites ran

    @property
    def decided(self) -> int:
        return self.outside + self.visible + self.in_process

    @property
    def in_process_share(self) -> float | None:
        return self.in_process / self.decided if self.decided else None

    @property
    def process_control_share(self) -> float:
        """Verdicts whose end the candidate's process could have written (see docs/architecture.md)."""
        return self.process_control / self.candidates if self.candidates else 0.0

    @property
    def weakest_share(self) -> float:
        return max(self.in_process_share or 0.0, self.process_control_share)


@dataclass(frozen=True)
class IntegrityFacts:
    """Verdict integrity per slice; `recorded` is false for runs graded before protocol 3, whose
    figures are unknown (not zero)."""
    recorded: bool = False
    protocol: int | None = None
    slices: tuple[SliceIntegrity, ...] = ()


@dataclass(frozen=True)
class Score:
    """pass@1 and its bootstrap interval, as the manifest's scoring contract computes them."""
    pass_at_1: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    level: float = 0.95
    tasks: int = 0                   # tasks with at least one counted candidate

    @property
    def width(self) -> float | None:
        if self.ci_low is None or self.ci_high is None:
            return None
        return self.ci_high - self.ci_low


@dataclass(frozen=True)
class GateFacts:
    run_id: str
    status: str                      # core/model.py RUN_STATUSES
    operator: str
    manifest_id: str
    manifest_policy: str             # the policy the manifest names
    model: str = ""
    candidate_source: str = ""       # reference | import | generate
    runner: str = "docker"
    runtime: str = ""                # runtime the containers actually used
    image: str = ""
    image_digest: str = ""           # digest the run used
    pinned_digest: str = ""          # digest the manifest pins
    limits: dict = field(default_factory=dict)
    probe: tuple[CheckFact, ...] = ()
    preflight: tuple[CheckFact, ...] = ()
    selfcheck: dict = field(default_factory=dict)
    fidelity: dict = field(default_factory=dict)   # score/fidelity.py: the cross-check's agreement
    crosscheck: str = "none"                        # manifest execution.crosscheck
    declared: tuple[DeclaredRelaxation, ...] = ()
    packages: tuple[str, ...] = ()   # manifest execution.packages
    base_image_digest: str = ""      # manifest execution.base_image_digest (the allowlist image's base)
    repository: dict = field(default_factory=dict)  # repository tasks: totals and tampering (score/repository.py)
    rerun_policy: str = "none"       # manifest execution.reruns.policy
    rerun_count: int = 1
    slices: tuple[SliceFact, ...] = ()
    tasks: int = 0
    tasks_with_protected: int = 0
    counts: Counts = Counts()
    score: Score = Score()
    per_task: dict = field(default_factory=dict)   # task_id -> (n counted, c passed, slice)
    chain_findings: tuple[dict, ...] = ()
    signoffs: tuple[SignoffFact, ...] = ()
    contamination: Contamination = Contamination()
    security: SecurityFacts = SecurityFacts()
    canaries: CanaryFacts = CanaryFacts()
    tamper_candidates: int | None = None   # counted candidates with a tamper tripwire event (None: not recorded)
    contract: ContractFacts = ContractFacts()
    integrity: IntegrityFacts = IntegrityFacts()   # how the verdicts' assertions were decided, per slice
    languages: dict = field(default_factory=dict)   # tasks in other languages: language -> tasks, in_process,
                                                     # with_reference, counted_tasks (gather._languages)
    interval: dict = field(default_factory=dict)   # scoring.interval + aggregation + weights
    error: str = ""
    latency: dict = field(default_factory=dict)    # the report's latency section (core/score/latency.py); {}: none

    @property
    def has_holdout(self) -> bool:
        return any(s.exposure == "holdout" for s in self.slices)

    def as_dict(self) -> dict:
        return asdict(self)
