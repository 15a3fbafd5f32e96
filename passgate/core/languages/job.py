"""A language task as the grader receives it: what a HumanEval-X or MultiPL-E record gives beyond
its two test texts (`LanguageJob`, core/model.py: `Task.language`), carried as JSON.

A task's test texts travel in the task spec's `protected` and `public` suites like a Python task's;
the spec carries the header as its `oracle`, and the record's `tasks.test_setup` holds it. Nothing
in it reaches a sandbox: the grader reads it on the host to split the tests and build each program.
"""

from __future__ import annotations

from dataclasses import dataclass

from passgate.core.model import LANGUAGE_MARKER as MARKER
from passgate.core.model import LanguageJob

from .spec import TestInput

__all__ = ["MARKER", "LanguageJob", "TaskTexts", "suite_input", "texts_of"]


def suite_input(job: LanguageJob, task_id: str, text: str) -> TestInput:
    """One of the task's test texts as its language's splitter and program builder take it."""
    return TestInput(task_id=task_id, prompt=job.prompt, test=text, entry_point=job.entry_point,
                     declaration=job.declaration, dataset=job.dataset, extras=dict(job.extras))


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

