"""The shape of a hostile candidate for another language: the task it answers and its completion."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class HostileCase:
    name: str
    task_id: str            # a HumanEval-X task of the language
    completion: str         # appended to the task's prompt
