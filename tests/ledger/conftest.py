"""Ledger test fixtures: a controllable clock and ledgers that are always closed."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from codekeep.ledger import Ledger, LedgerSettings
from tests.ledger.support import FakeClock, LedgerFactory


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


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
