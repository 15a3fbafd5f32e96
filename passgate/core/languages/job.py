"""A language task as the grader receives it: what a HumanEval-X or MultiPL-E record gives beyond
its two test texts, carried as JSON in the task's `test_setup`.

A task's test texts travel in the task spec's `protected` and `public` suites like a Python task's;
the task's `test_setup` holds this header instead of Python setup code, and its spec carries it as
the `oracle`. Nothing in it reaches a sandbox: the grader reads it on the host to split the tests
and build each program.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from .spec import TestInput

MARKER = "passgate.language/1"


@dataclass(frozen=True)
class LanguageJob:
    language: str                    # registry name: js, ts, cpp, java, go, rs, sh, ...
    dataset: str                     # humaneval-x | multipl-e
    prompt: str
    declaration: str = ""
    entry_point: str = ""
    extras: dict = field(default_factory=dict)   # HumanEval-X Go: import, test_setup, evaluation_dir
    stop_tokens: tuple[str, ...] = ()
    support_sha256: dict = field(default_factory=dict)   # support archive name -> sha256 (Go's vendored testify)

    def to_json(self) -> str:
        return json.dumps({"kind": MARKER, "language": self.language, "dataset": self.dataset, "prompt": self.prompt,
                           "declaration": self.declaration, "entry_point": self.entry_point, "extras": self.extras,
                           "stop_tokens": list(self.stop_tokens), "support_sha256": self.support_sha256},
                          sort_keys=True)

    def test(self, task_id: str, text: str) -> TestInput:
        return TestInput(task_id=task_id, prompt=self.prompt, test=text, entry_point=self.entry_point,
                         declaration=self.declaration, dataset=self.dataset, extras=dict(self.extras))


@dataclass(frozen=True)
class TaskTexts:
    """What a language grader reads of the task spec the engine sends a worker."""

    task_id: str
    header: str                      # the LanguageJob's JSON
    protected: str                   # the hidden tests' text
    public: str                      # the example tests' text ("" when none)


def texts_of(spec) -> TaskTexts:
    """The language task a `runner.TaskSpec` carries: its header as the `oracle`, its suites' texts
    as `protected` and `public` (as core/tasks/languages.py writes the Task)."""
    return TaskTexts(spec.task_id, spec.oracle, spec.protected, spec.public)


def is_language_setup(test_setup: str) -> bool:
    """Whether a task's `test_setup` is a language header (a Python task's is Python code)."""
    return test_setup.startswith("{") and f'"kind": "{MARKER}"' in test_setup


def parse_job(test_setup: str) -> LanguageJob:
    data = json.loads(test_setup)
    if data.get("kind") != MARKER:
        raise ValueError("not a language task header")
    return LanguageJob(language=data["language"], dataset=data["dataset"], prompt=data["prompt"],
                       declaration=data.get("declaration", ""), entry_point=data.get("entry_point", ""),
                       extras=dict(data.get("extras") or {}), stop_tokens=tuple(data.get("stop_tokens") or ()),
                       support_sha256=dict(data.get("support_sha256") or {}))
