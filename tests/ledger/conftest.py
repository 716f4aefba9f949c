"""Ledger test fixtures: a controllable clock and ledgers that are always closed."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from codekeep.ledger import Ledger, LedgerSettings

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


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


LedgerFactory = Callable[..., Ledger]


@pytest.fixture
def open_ledger(tmp_path: Path, clock: FakeClock) -> Iterator[LedgerFactory]:
    """``open_ledger(root=..., settings=..., **options)``; every ledger is closed after."""
    opened: list[Ledger] = []

    def factory(root: Path | None = None, settings: LedgerSettings | None = None,
                **options: object) -> Ledger:
        options.setdefault("clock", clock)
        options.setdefault("start_flusher", False)
        ledger = Ledger.open(root or tmp_path, settings, **options)  # type: ignore[arg-type]
        opened.append(ledger)
        return ledger

    yield factory
    for ledger in opened:
        ledger.close()


@pytest.fixture
def ledger(open_ledger: LedgerFactory) -> Ledger:
    return open_ledger()
