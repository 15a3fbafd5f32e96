"""Typed records that flow through a run: task → candidate → execution → outcome.

The vocabularies here are the fixed status words stored in the record; reports, the gate
and the console all read these same words.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType

# Why a candidate failed. `infra_error` is never counted against the model.
# Outcomes that count toward pass@k (flaky counts as not passed) and those reported apart.
COUNTED_OUTCOMES = ("passed", "failed", "flaky")
COUNTED_SQL = "(" + ",".join(f"'{o}'" for o in COUNTED_OUTCOMES) + ")"      # `outcome IN COUNTED_SQL`
EXCLUDED_OUTCOMES = ("infra_error", "excluded")
FAILURE_CLASSES = (
    "wrong_answer",       # a test assertion failed on the candidate's answer
    "runtime_error",      # the candidate raised (detail carries the exception type)
    "syntax_error",       # the candidate program does not compile
    "compile_error",      # tasks in other languages: the compiler refused the program (detail: its first error)
    "timeout",            # CPU limit exceeded, or wall backstop with the process busy or asleep
    "memory_exceeded",    # MemoryError or killed at the memory limit
    "output_exceeded",    # wrote more than the output cap
    "premature_exit",     # exited (sys.exit, os._exit, signal) before its tests finished
    "sandbox_violation",  # tried something the boundary blocked (network, host files, signals)
    "disallowed_import",  # the program imported a module its task's allowed_imports does not list
    "not_plain_data",     # returned an object the grader cannot compare as data (e.g. __eq__ always True)
    "sandbox_crash",      # took its sandbox down twice, while a known-good probe passed in a fresh one
    "classic_failed",     # the isolated suite passed, the reference harness's one-process program failed
    # repository tasks (core/run/repo_verdict.py)
    "patch_failed",       # the patch does not apply strictly to the snapshot
    "build_failed",       # the task's build command failed on the patched tree
    "test_failed",        # an expected test failed or errored
    "tests_missing",      # an expected test id was never reported (renamed, deleted, not collected)
    "tampering",          # protected tests changed during the run, or outcomes reported twice or unasked
    "unlisted_package",   # the code imports a package that is neither the repository's nor on the allowlist
    "secret_introduced",  # detect-secrets found a secret on an added line
    "infra_error",        # the evaluator, not the candidate, failed (a known-good probe failed too)
)

# Final state of one candidate once its attempts are decided.
OUTCOMES = ("passed", "failed", "flaky", "infra_error", "excluded")

# Lifecycle of a run.
RUN_STATUSES = ("created", "running", "interrupted", "completed", "failed", "refused", "cancelled")

SUITES = ("public", "protected")

# task ids of the built-in canary tasks (core/tasks/canaries.py): never part of pass@k
CANARY_PREFIX = "passgate-canary/"
CANARY_GLOB_SQL = "'passgate-canary/*'"    # for `task_id NOT GLOB ...` in record scans


def is_canary(task_id: str) -> bool:
    return task_id.startswith(CANARY_PREFIX)


def depth_of(tags) -> int | None:
    """A chained task's depth from its `depth:D` tag (core/tasks/chained.py), else None."""
    for tag in tags or ():
        if isinstance(tag, str) and tag.startswith("depth:") and tag[6:].isdigit():
            return int(tag[6:])
    return None


@dataclass(frozen=True)
class RepoSpec:
    """How a repository task is graded (core/tasks/repo.py builds it from the task file). Parsed
    once, when the task file is loaded or the run's tasks are rebuilt from the record; the record's
    `tasks.repo_json` holds `to_json()`, and `from_json` reads it back to the same bytes."""

    snapshot: str                          # the tarball's path as the task file names it
    snapshot_sha256: str
    snapshot_b64: str                      # the tarball itself
    setup_command: str                     # the build, run in the patched tree ("" for none)
    public_tests: tuple[str, ...]          # pytest arguments of the public run
    protected_tests: Mapping[str, str] = field(hash=False)   # {path in the repository: the file's text}
    protected_test_ids: tuple[str, ...]    # the ids the protected run must report
    pythonpath: tuple[str, ...]            # folders of the repository put on PYTHONPATH
    project: Mapping = field(hash=False)   # the task file's free-form description of the project
    timeout_s: float                       # CPU seconds of each run (the wall limit is twice that)

    def __post_init__(self):
        for name in ("public_tests", "protected_test_ids", "pythonpath"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        for name in ("protected_tests", "project"):
            object.__setattr__(self, name, MappingProxyType(dict(getattr(self, name))))

    def as_dict(self) -> dict:
        """The spec as plain JSON values (lists, dicts): what the record and the grader's job hold."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        for name in ("public_tests", "protected_test_ids", "pythonpath"):
            out[name] = list(out[name])
        for name in ("protected_tests", "project"):
            out[name] = dict(out[name])
        return out

    def to_json(self) -> str:
        return json.dumps(self.as_dict(), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> RepoSpec:
        """The spec `to_json` wrote; ValueError naming the field when the text is not one."""
        try:
            data = json.loads(text)
            given = set(data.keys())
        except (ValueError, AttributeError):
            raise ValueError("repository spec: not a JSON object") from None
        names = [f.name for f in fields(cls)]
        unknown, missing = sorted(given - set(names)), [n for n in names if n not in given]
        if unknown or missing:
            raise ValueError(f"repository spec: {(unknown or missing)[0]}: {'unknown' if unknown else 'missing'}")
        for name in names:
            is_valid, words = _REPO_SPEC_VALUES[name]
            if not is_valid(data[name]):
                raise ValueError(f"repository spec: {name}: {data[name]!r:.80} is not {words}")
        return cls(**data)

    @classmethod
    def from_record(cls, text: str | None) -> RepoSpec | None:
        """The spec a record's `tasks.repo_json` holds; None for a task that is not a repository task."""
        return cls.from_json(text) if text else None


def _is_text(value) -> bool:
    return isinstance(value, str)


def _is_text_list(value) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


_TEXT, _TEXT_LIST = (_is_text, "text"), (_is_text_list, "a list of text")
# each field of a stored spec: how to check its JSON value, and what it must be, in words
_REPO_SPEC_VALUES = {
    "snapshot": _TEXT, "snapshot_sha256": _TEXT, "snapshot_b64": _TEXT, "setup_command": _TEXT,
    "public_tests": _TEXT_LIST, "protected_test_ids": _TEXT_LIST, "pythonpath": _TEXT_LIST,
    "protected_tests": (lambda v: isinstance(v, dict) and all(map(_is_text, v.values())), "an object of path: text"),
    "project": (lambda v: isinstance(v, dict), "an object"),
    "timeout_s": (lambda v: isinstance(v, (int, float)) and not isinstance(v, bool), "a number"),
}


LANGUAGE_MARKER = "passgate.language/1"


@dataclass(frozen=True)
class LanguageJob:
    """A task in another language (HumanEval-X, MultiPL-E) beyond its two test texts: built when the
    set loads and parsed once when the run's tasks are rebuilt from the record, whose
    `tasks.test_setup` holds `to_json()`. The grader reads the same text as the task spec's oracle."""

    language: str                    # registry name: js, ts, cpp, java, go, rs, sh, ...
    dataset: str                     # humaneval-x | multipl-e
    prompt: str
    declaration: str = ""
    entry_point: str = ""
    extras: dict = field(default_factory=dict, hash=False)   # HumanEval-X Go: import, test_setup, evaluation_dir
    stop_tokens: tuple[str, ...] = ()
    # support archive name -> sha256 (Go's vendored testify)
    support_sha256: dict = field(default_factory=dict, hash=False)

    def to_json(self) -> str:
        return json.dumps({"kind": LANGUAGE_MARKER, "language": self.language, "dataset": self.dataset,
                           "prompt": self.prompt, "declaration": self.declaration, "entry_point": self.entry_point,
                           "extras": self.extras, "stop_tokens": list(self.stop_tokens),
                           "support_sha256": self.support_sha256}, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> LanguageJob:
        """The job `to_json` wrote; ValueError for text that is not one."""
        data = json.loads(text)
        if not isinstance(data, dict) or data.get("kind") != LANGUAGE_MARKER:
            raise ValueError("not a language task header")
        return cls(language=data["language"], dataset=data["dataset"], prompt=data["prompt"],
                   declaration=data.get("declaration", ""), entry_point=data.get("entry_point", ""),
                   extras=dict(data.get("extras") or {}), stop_tokens=tuple(data.get("stop_tokens") or ()),
                   support_sha256=dict(data.get("support_sha256") or {}))

    @staticmethod
    def is_header(text: str) -> bool:
        """Whether a stored `test_setup` is a language header (a Python task's is Python code)."""
        return text.startswith("{") and f'"kind": "{LANGUAGE_MARKER}"' in text

    @classmethod
    def from_record(cls, test_setup: str | None) -> LanguageJob | None:
        """The job a record's `tasks.test_setup` holds; None for a task that is not in another language."""
        return cls.from_json(test_setup) if test_setup and cls.is_header(test_setup) else None


@dataclass(frozen=True)
class Task:
    """One benchmark problem with its tests split into what the model saw and what it did not.

    Each suite is the code that runs after the candidate's program, in its namespace, as CPython runs
    `program + test`: `classic_suffix` the protected (hidden) tests as the reference harness runs
    them, `public_suffix` the examples the model saw. The grader splits each so that the expected
    values and the decisions stay out of the candidate's process (grading protocol 3).
    `public_tests`, `protected_tests` and `test_setup` keep the tests' parts as the set gives them.
    """

    task_id: str
    slice: str
    prompt: str
    entry_point: str
    public_tests: str = ""
    protected_tests: str = ""
    test_setup: str = ""
    candidate_preamble: str = ""
    reference_solution: str = ""   # a whole program that should pass its own tests ("" if none)
    completion_style: str = "body"  # "body": completion continues the prompt; "full": whole function;
                                    # "infill": completion fills the gap between prompt and infill_suffix
    classic_suffix: str = ""        # what the reference harness runs after the program, in one process
    public_suffix: str = ""         # the public examples as code run after the program
    protected_suffix: str = ""      # the protected suite as run after the program, when not classic_suffix
    oracle: str = ""                # JSON: what the grader needs beside the suites (EvalPlus: inputs, reference)
    tags: tuple[str, ...] = ()
    exposure: str = "public"       # "public" benchmark (exposed) or "holdout"
    set_id: str = ""               # task set name, e.g. "humaneval"
    set_sha256: str = ""
    set_revision: str = ""
    repo: RepoSpec | None = None   # repository tasks: how the task is graded (core/tasks/repo.py)
    language: LanguageJob | None = None   # tasks in other languages: the header (core/tasks/languages.py)
    # the task contract (core/tasks/contract.py): modules the program may import ("any", "stdlib" or
    # top-level names with "stdlib" among them) and the entry point's signature as JSON ("" unknown)
    allowed_imports: tuple[str, ...] = ("any",)
    signature: str = ""
    # local edits (completion_style "infill", core/tasks/infilling.py): the code after the gap; the
    # candidate's program is candidate_preamble + prompt + completion + infill_suffix
    infill_suffix: str = ""


@dataclass(frozen=True)
class TaskSet:
    """A loaded task set, identified by the sha256 of its source file and its revision."""

    set_id: str
    kind: str
    path: str
    sha256: str
    revision: str
    tasks: tuple[Task, ...]
    notes: tuple[str, ...] = ()    # known defects found while loading, shown in reports


@dataclass
class Candidate:
    """One model answer for one task, raw and post-processed, with its generation record."""

    task_id: str
    candidate_index: int
    raw_text: str
    processed_text: str
    program: str = ""              # exactly what the candidate process executes
    program_sha256: str = ""
    source: str = "import"         # import | generate | reference
    source_ref: str = ""           # file:line or request id it came from
    seed: int | None = None
    finish_reason: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    latency_ms: float | None = None
    model_id: str | None = None
    logprobs: list[float] | None = None
    gen_status: str = "ok"         # ok | generation_error | excluded
    gen_error: str | None = None
    gen_attempts: list[dict] = field(default_factory=list)
    excluded_reason: str | None = None
    completion_style: str = ""      # how processed_text joined the prompt: "body" | "full" | "infill" ("" if unknown)
    source_verdict: dict | None = None  # the samples file's own verdict fields (is_solved, passed, result)
    first_token_ms: float | None = None  # time to the first streamed token (None: not streamed, not recorded)


@dataclass(frozen=True)
class PostprocessSpec:
    """How raw model text becomes the processed candidate; applied to every candidate alike."""

    stop: tuple[str, ...] = ()      # cut at the first occurrence of any of these (after the prompt)
    extract_fence: bool = False     # take the first ```python fenced block when present
    style: str = "auto"             # auto | body | full: how to join the text with the task prompt
    prompt_context: str = "preamble"  # none | imports | preamble: the prompt's code before a full function
    dataset_stop_tokens: bool = False  # tasks in other languages: also cut at the dataset's stop tokens
