"""Messages that thread workers post to the UI. Workers never touch widgets; handlers do."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual.message import Message

from passgate.core.progress import Progress


@dataclass
class EngineProgress(Message):
    """The engine reported progress for the launch `token` (a newer one replaces a queued older one)."""

    token: int
    progress: Progress

    def can_replace(self, message: Message) -> bool:
        return (isinstance(message, EngineProgress) and message.token == self.token
                and message.progress.phase == self.progress.phase and self.progress.phase != "finished")


@dataclass
class EngineDone(Message):
    """A launch finished: `run_id` is set when the run was recorded, `error` when it raised."""

    token: int
    run_id: str | None
    error: Exception | None = None


@dataclass
class Loaded(Message):
    """A read worker finished: `key` names what was loaded, `data` is plain data from tui.records."""

    key: str
    data: Any


@dataclass
class Failed(Message):
    """A worker raised; the handler shows the error as a modal or a notification."""

    key: str
    error: Exception
