"""Test support for the ledger tests: a controllable clock and the ledger factory type."""

from __future__ import annotations

from collections.abc import Callable

from codekeep.ledger import Ledger

# 2026-11-29 10:00:00 UTC: mid-morning, so a few hours either way stay on one day.
START = 1_795_946_400.0


class FakeClock:
    """Time that only moves when a test says so (task timeouts without sleeping)."""

    def __init__(self, now: float = START) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


LedgerFactory = Callable[..., Ledger]
