"""Settings over the wire: a real ``codekeep serve`` asked per folder with
``workspace/configuration`` (``scopeUri``), refusing bad values with ``window/showMessage``
and keeping the previous value, and re-reading the project config file when it is saved."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from codekeep.common.uris import path_to_uri
from tests.server.lsp_harness import request, save_document, session, wait_until, write_project

# Starts real processes (the server over stdio, the codekeep command, pip, a host's CLI).
pytestmark = pytest.mark.slow


def with_generated(root: Path) -> Path:
    write_project(root)
    (root / "generated").mkdir()
    (root / "generated" / "stubs.py").write_text("def generated_stub():\n    pass\n")
    return root


def text_of(message: Any) -> str:
    return message["message"] if isinstance(message, dict) else message.message


def changed(lsp: Any) -> None:
    lsp.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))


async def stub_paths(lsp: Any) -> list[str]:
    found = await request(lsp, "codekeep/findSymbol", {"name": "generated_stub"})
    return sorted(symbol["path"] for symbol in found["symbols"])


def shown(lsp: Any, count: int) -> Callable[[], Awaitable[bool]]:
    async def check() -> bool:
        return len(lsp.messages) == count
    return check


def indexed(lsp: Any, expected: list[str]) -> Callable[[], Awaitable[bool]]:
    async def check() -> bool:
        return await stub_paths(lsp) == expected
    return check


async def test_an_invalid_editor_setting_is_shown_and_the_old_value_stays(tmp_path: Path) -> None:
    root = with_generated(tmp_path)
    async with session(root, configuration={"codekeep": {"exclude": ["generated/"]}}) as lsp:
        assert await stub_paths(lsp) == []
        lsp.set_configuration({"codekeep": {"exclude": "generated/", "maxFileSize": 2048}})
        changed(lsp)
        await wait_until(shown(lsp, 1))
        message = text_of(lsp.messages[0])
        assert "codekeep.exclude must be a list of strings, got 'generated/'" in message
        assert "The previous values stay in force" in message
        await request(lsp, "codekeep/reindex", {})
        assert await stub_paths(lsp) == []  # the old exclude list is still in force
        changed(lsp)  # asked again with the same bad value: not shown a second time
        await request(lsp, "codekeep/reindex", {})
        assert len(lsp.messages) == 1
        lsp.set_configuration({"codekeep": {"exclude": []}})
        changed(lsp)
        await wait_until(indexed(lsp, ["generated/stubs.py"]))
        assert len(lsp.messages) == 1


async def test_each_folder_is_asked_for_its_own_settings(tmp_path: Path) -> None:
    first = with_generated(tmp_path / "first")
    second = with_generated(tmp_path / "second")
    async with session(first, second, configuration={"codekeep": {"exclude": []}}) as lsp:
        assert await stub_paths(lsp) == ["generated/stubs.py", "generated/stubs.py"]
        lsp.set_configuration({"exclude": ["generated/"]}, section="codekeep",
                              scope_uri=path_to_uri(second))
        changed(lsp)

        async def only_first() -> bool:
            found = await request(lsp, "codekeep/findSymbol", {"name": "generated_stub"})
            return [s["uri"] for s in found["symbols"]] == [
                path_to_uri(first / "generated" / "stubs.py")]

        await wait_until(only_first)
        assert lsp.messages == []


async def test_the_answer_wins_over_stale_initialization_options(tmp_path: Path) -> None:
    """A setting unset in the editor after start (VS Code answers null) is unset."""
    root = with_generated(tmp_path)
    async with session(root, options={"exclude": ["generated/"]},
                       configuration={"codekeep": {"exclude": None}}) as lsp:
        assert await stub_paths(lsp) == ["generated/stubs.py"]


async def test_project_config_file_applies_and_is_reread_on_save(tmp_path: Path) -> None:
    root = with_generated(tmp_path)
    (root / ".codekeep").mkdir()
    config = root / ".codekeep" / "config.toml"
    config.write_text('exclude = ["generated/"]\n')
    async with session(root) as lsp:
        assert await stub_paths(lsp) == []
        save_document(lsp, config, "exclude = []\nmaxFileSize = 0\n")
        await wait_until(indexed(lsp, ["generated/stubs.py"]))
        await wait_until(shown(lsp, 1))
        assert "codekeep.maxFileSize must be at least 1, got 0" in text_of(lsp.messages[0])
        assert str(config) in text_of(lsp.messages[0])
