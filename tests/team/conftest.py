"""A real PostgreSQL for the team tests (started once per session, stopped at the end)
and members: separate workspaces and user data dirs sharing one team database."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from codekeep.memory import MemoryService, MemorySettings
from codekeep.services import open_memory
from codekeep.settings import load_settings
from codekeep.testing.postgres import PostgresServer, find_bin

_names = itertools.count()


@pytest.fixture(scope="session")
def pg() -> Iterator[PostgresServer]:
    bin_dir = find_bin()
    assert bin_dir is not None, "PostgreSQL is not installed (scripts/test installs it)"
    server = PostgresServer(bin_dir)
    server.start()
    yield server
    server.destroy()


@pytest.fixture
def team_dsn(pg: PostgresServer) -> str:
    """A fresh, empty team database."""
    return pg.create_database(f"team_{next(_names)}")


Member = Callable[..., MemoryService]


def write_config(root: Path, dsn: str | None, member: str) -> None:
    (root / ".codekeep").mkdir(parents=True, exist_ok=True)
    lines = ["[team]", f'member = "{member}"'] + ([f'dsn = "{dsn}"'] if dsn else [])
    (root / ".codekeep" / "config.toml").write_text("\n".join(lines) + "\n")


@pytest.fixture
def member(tmp_path: Path, team_dsn: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Member]:
    """``member("alice")``: that member's service (own workspace, own user dir), with the
    team DSN in the workspace's ``.codekeep/config.toml``."""
    monkeypatch.delenv("CODEKEEP_TEAM_DSN", raising=False)
    monkeypatch.delenv("CODEKEEP_TEAM_MEMBER", raising=False)
    opened: list[MemoryService] = []

    def make(name: str, dsn: str | None = team_dsn, **settings: object) -> MemoryService:
        root = tmp_path / name / "ws"
        root.mkdir(parents=True, exist_ok=True)
        write_config(root, dsn, name)
        service = open_memory(
            root,
            MemorySettings(**settings),  # type: ignore[arg-type]
            load_settings(root).settings.team,
            user_dir=tmp_path / name / "user",
        )
        opened.append(service)
        return service

    yield make
    for service in opened:
        service.close()
