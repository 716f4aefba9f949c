"""How long an index still has to go, from how fast it went so far: for every door's
progress line (the CLI's, the editors' ``$/progress`` and ``indexStatus``)."""

from __future__ import annotations

import time


class Eta:
    """Seconds left at the pace since :meth:`start` (None until there is a pace)."""

    def __init__(self) -> None:
        self._started = time.monotonic()

    def start(self) -> None:
        self._started = time.monotonic()

    def seconds_left(self, done: int, total: int) -> float | None:
        if done >= total:
            return 0.0
        if done <= 0:
            return None
        elapsed = time.monotonic() - self._started
        return elapsed / done * (total - done)


def describe(done: int, total: int, seconds: float | None) -> str:
    """``1,234/55,000 files, about 2 min left``."""
    counts = f"{done:,}/{total:,} files"
    if seconds is None or done >= total:
        return counts
    left = f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.0f} min"
    return f"{counts}, about {left} left"
