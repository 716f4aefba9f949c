"""A small workspace with secrets, git internals and symlinks pointing out of it."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from codekeep.tools import ToolContext, ToolKit, ToolResult

APP_PY = '''"""The app."""

from util import helper


class Greeter:
    def greet(self, name):
        return helper(name)


def main():
    return Greeter().greet("world")
'''

UTIL_PY = """def helper(name):
    return f"hello {name}"
"""


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A directory next to the workspace holding things tools must never reach."""
    directory = tmp_path / "outside"
    directory.mkdir()
    (directory / "secret.txt").write_text("TOP SECRET\n")
    return directory


@pytest.fixture
def workspace(tmp_path: Path, outside: Path) -> Path:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text(APP_PY)
    (root / "src" / "util.py").write_text(UTIL_PY)
    (root / "README.md").write_text("# Demo\n\nhelper docs\n")
    (root / ".env").write_text("API_KEY=sk-live-123456789012345678\n")
    (root / "keys").mkdir()
    (root / "keys" / "id_rsa").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n")
    (root / "keys" / "server.pem").write_text("pem\n")
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("[core]\n")
    (root / ".gitignore").write_text("build/\n*.log\n")
    (root / "build").mkdir()
    (root / "build" / "out.py").write_text("def helper(): pass\n")
    (root / "debug.log").write_text("helper called\n")
    os.symlink(outside, root / "link_out")
    os.symlink(outside / "secret.txt", root / "escape.txt")
    os.symlink(root / ".env", root / "innocent.txt")
    os.link(outside / "secret.txt", root / "mirror.txt")  # a hard link: one file, two names
    return root


@pytest.fixture
def kit(workspace: Path) -> Iterator[ToolKit]:
    toolkit = ToolKit.open(workspace)
    yield toolkit
    toolkit.close()


@pytest.fixture
def ctx(kit: ToolKit) -> ToolContext:
    return kit.context("task-1", "edit")


@pytest.fixture
def call(kit: ToolKit, ctx: ToolContext) -> Any:
    async def run(
        name: str, arguments: Any = None, context: ToolContext | None = None
    ) -> ToolResult:
        return await kit.pipeline.execute(name, arguments or {}, context or ctx)

    return run


@pytest.fixture
def services_kit(workspace: Path) -> Iterator[ToolKit]:
    """A toolkit over the real code map (indexed), memory and ledger of the workspace."""
    from codekeep.analysis.codemap import CodeMap
    from codekeep.ledger import Ledger
    from codekeep.memory import MemoryService

    codemap = CodeMap.open(workspace)
    codemap.index()
    memory = MemoryService.open(workspace)
    ledger = Ledger.open(workspace)
    toolkit = ToolKit.open(workspace, codemap=codemap, memory=memory, ledger=ledger)
    yield toolkit
    toolkit.close()
    ledger.close()
    memory.close()
    codemap.close()
