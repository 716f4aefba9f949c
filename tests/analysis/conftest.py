"""Fixtures for code map tests: throwaway workspaces with real files and a real index."""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from codekeep.analysis import CodeMap, IndexSettings

WriteFiles = Callable[[dict[str, str | bytes]], Path]


@pytest.fixture
def workspace(tmp_path: Path) -> WriteFiles:
    """Write ``{relative path: text or bytes}`` under a fresh root and return the root."""
    root = tmp_path / "ws"
    root.mkdir()

    def write(files: dict[str, str | bytes]) -> Path:
        for rel, content in files.items():
            target = root / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                target.write_bytes(content)
            else:
                target.write_text(textwrap.dedent(content).lstrip("\n"), encoding="utf-8")
        return root

    return write


@pytest.fixture
def open_map() -> Iterator[Callable[..., CodeMap]]:
    """Open code maps (serial indexing unless asked) and close them after the test."""
    opened: list[CodeMap] = []

    def _open(root: Path, **settings: object) -> CodeMap:
        settings.setdefault("parallel_min_files", 10_000)
        codemap = CodeMap.open(root, IndexSettings(**settings))  # type: ignore[arg-type]
        opened.append(codemap)
        return codemap

    yield _open
    for codemap in opened:
        codemap.close()
