"""Fixtures for memory tests: a real service on temporary SQLite files and a settable clock."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from codekeep.memory import MemoryService, MemorySettings
from codekeep.settings.memory import DAY

START = 1_800_000_000.0


class Clock:
    """Time the service sees; tests move it forward to exercise decay."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> float:
        return self.now

    def advance(self, days: float) -> None:
        self.now += days * DAY


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


@pytest.fixture
def make_service(workspace: Path, tmp_path: Path, clock: Clock) -> Iterator[object]:
    opened: list[MemoryService] = []

    def make(**overrides: object) -> MemoryService:
        settings = MemorySettings(clock=clock, **overrides)  # type: ignore[arg-type]
        service = MemoryService.open(workspace, user_dir=tmp_path / "user", settings=settings)
        opened.append(service)
        return service

    yield make
    for service in opened:
        service.close()


@pytest.fixture
def service(make_service: object) -> MemoryService:
    return make_service()  # type: ignore[operator, no-any-return]
