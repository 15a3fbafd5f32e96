"""An honest rate and ETA for a live run: measured over the last half minute, up to now.

The engine reports when a candidate is decided; while failures are re-run or timeouts re-checked
nothing is decided for a while. A rate measured up to the last report would stand still at its
last value; measured up to now it falls, and the ETA grows or says it cannot tell.
"""

from __future__ import annotations

from collections import deque

WINDOW_S = 30.0


class RateMeter:
    """Samples of (time, candidates decided); the rate over the window that ends now."""

    def __init__(self, window: float = WINDOW_S):
        self.window = window
        self.samples: deque[tuple[float, int]] = deque()

    def add(self, now: float, done: int) -> None:
        if self.samples and done < self.samples[-1][1]:
            self.samples.clear()             # a resumed run counts again from the record
        if not self.samples or done != self.samples[-1][1]:
            self.samples.append((now, done))
        while len(self.samples) > 2 and now - self.samples[1][0] > self.window:
            self.samples.popleft()

    def rate(self, now: float) -> float | None:
        """Candidates decided per second over the window ending now; None until there are two samples."""
        if len(self.samples) < 2:
            return None
        t0, d0 = self.samples[0]
        span = max(now - t0, 1e-6)
        return (self.samples[-1][1] - d0) / span

    def idle(self, now: float) -> float:
        """Seconds since the count last moved."""
        return now - self.samples[-1][0] if self.samples else 0.0

    def eta(self, now: float, remaining: int) -> float | None:
        rate = self.rate(now)
        return remaining / rate if rate and remaining > 0 else None
