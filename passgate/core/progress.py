"""Progress events the engine emits; the CLI prints them, the console renders them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable


@dataclass
class Progress:
    """A snapshot of a run's progress. `last` is the most recent decided candidate."""

    run_id: str
    phase: str                     # preflight | calibrate | generate | grade | recheck | scan | finished
    done: int = 0
    total: int = 0
    counts: dict = field(default_factory=dict)
    rate: float = 0.0              # candidates decided per second in this session
    eta_s: float | None = None
    message: str = ""
    last: dict | None = None
    awaiting: int = 0              # failed an attempt and not decided yet: waiting for a rerun or a re-check


ProgressSink = Callable[[Progress], None]
