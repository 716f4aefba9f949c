"""End-to-end fixtures: a real ``codekeep serve`` subprocess driven over stdio by
pytest-lsp, on a small real project written to a temporary folder."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import register_lsp_features

from codekeep.common.uris import path_to_uri
from codekeep.server.protocol import plain_params_converter

SERVER_COMMAND = [sys.executable, "-m", "codekeep.server", "--log-level", "INFO"]
# User-scope memories of every server these tests start land here, never in ~/.local.
# Models and embedding endpoints come from the tests' own settings only: a developer's
# CODEKEEP_MODEL or OPENAI_API_KEY must neither leak into the tests nor change them.
SERVER_ENV = {
    **{
        key: value
        for key, value in os.environ.items()
        if not key.startswith("CODEKEEP_") and key != "OPENAI_API_KEY"
    },
    # lexical docs unless a test asks for the local model (as tests/conftest.py does)
    "CODEKEEP_LOCAL_MODEL": "off",
    "XDG_DATA_HOME": tempfile.mkdtemp(prefix="codekeep-xdg-"),
    "XDG_CONFIG_HOME": tempfile.mkdtemp(prefix="codekeep-xdg-config-"),  # no user config
}


def server_config(
    client_factory: Callable[[], LanguageClient] | None = None,
) -> ClientServerConfig:
    """A real ``codekeep serve`` subprocess with isolated user data."""
    return ClientServerConfig(
        server_command=SERVER_COMMAND,
        client_factory=client_factory or make_client,
        server_env=SERVER_ENV,
    )


@asynccontextmanager
async def session(
    *roots: Path,
    client: str = "neovim",
    options: dict[str, Any] | None = None,
    configuration: dict[str, Any] | None = None,
    client_factory: Callable[[], LanguageClient] | None = None,
) -> AsyncIterator[Any]:
    """A started, initialised, indexed server; shut down cleanly (exit code 0) on exit.

    ``configuration`` answers the server's ``workspace/configuration`` requests;
    ``options`` is sent as ``initializationOptions``.
    """
    lsp: Any = await server_config(client_factory).start()
    if configuration is not None:
        lsp.set_configuration(configuration)
    lsp.initialize_result = await lsp.initialize_session(
        initialize_params(*roots, client=client, options=options)
    )
    try:
        await wait_ready(lsp)
        yield lsp
        await lsp.shutdown_session()
        assert lsp._server.returncode == 0
    finally:
        await stop(lsp)


async def stop(lsp: Any) -> None:
    """Stop the client, first killing a server still running — the test failed before
    shutting it down: pygls' ``stop()`` waits for the server to exit, so without this the
    failure would hang until the test's timeout instead of being reported."""
    if lsp._server.returncode is None:
        lsp._server.kill()
    await lsp.stop()


def session_fixture(
    *,
    options: dict[str, Any] | None = None,
    client_factory: Callable[[], LanguageClient] | None = None,
) -> Any:
    """A ``client`` fixture: :func:`session` on the test module's ``project`` fixture.

    ``client = session_fixture(client_factory=budget_client)`` at module level.
    """

    @pytest.fixture
    async def client(project: Path) -> AsyncIterator[Any]:
        async with session(project, options=options, client_factory=client_factory) as lsp:
            yield lsp

    return client


GEOMETRY = '''\
"""Géométrie: shapes and their areas — 形状と面積."""

import math


class Shape:
    """Something with an area."""

    def area(self) -> float:
        raise NotImplementedError


class Circle(Shape):
    def __init__(self, radius: float) -> None:
        self.radius = radius

    def area(self) -> float:
        return math.pi * self.radius ** 2


def total_area(shapes: list[Shape]) -> float:
    return sum(shape.area() for shape in shapes)
'''

APP = """\
from pkg.geometry import Circle, total_area


def main() -> None:
    circles = [Circle(1.0), Circle(2.0)]
    print(total_area(circles))


def describe(name: str) -> str:
    return f"shape {name}"
"""


def write_project(root: Path) -> Path:
    """The sample workspace: a package with a non-ASCII docstring and cross-file uses."""
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (root / "pkg" / "geometry.py").write_text(GEOMETRY, encoding="utf-8")
    (root / "pkg" / "app.py").write_text(APP, encoding="utf-8")
    return root


def make_client() -> LanguageClient:
    """pytest-lsp's client, reading our custom results as dicts (not namedtuples)."""
    client = LanguageClient(converter_factory=plain_params_converter)
    register_lsp_features(client)
    return client


def initialize_params(
    *roots: Path, client: str = "neovim", options: dict[str, Any] | None = None
) -> types.InitializeParams:
    """What an editor sends: its real capabilities (neovim offers UTF-8, VS Code only
    UTF-16) and the workspace folders."""
    return types.InitializeParams(
        capabilities=client_capabilities(client),
        root_uri=path_to_uri(roots[0]) if roots else None,
        workspace_folders=[
            types.WorkspaceFolder(uri=path_to_uri(root), name=root.name) for root in roots
        ],
        initialization_options=options,
    )


async def request(client: LanguageClient, method: str, params: Any = None) -> Any:
    """A request with a timeout, so a hung server fails the test instead of the run."""
    return await asyncio.wait_for(client.protocol.send_request_async(method, params), 30)


async def wait_until(
    check: Callable[[], Any], *, timeout: float = 20.0, interval: float = 0.05
) -> Any:
    """Poll an async ``check`` until it returns something truthy."""
    deadline = time.monotonic() + timeout
    while True:
        value = await check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout}s (last: {value!r})")
        await asyncio.sleep(interval)


async def wait_ready(client: LanguageClient) -> dict[str, Any]:
    async def ready() -> Any:
        status = await request(client, "codekeep/indexStatus", {})
        return status if status["ready"] else None

    return await wait_until(ready)


def send_raw(client: LanguageClient, message: dict[str, Any]) -> None:
    """Put any JSON-RPC message on the wire, bypassing the client's type checks."""
    body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
    writer: Any = client.protocol.writer
    writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)


def open_document(client: LanguageClient, path: Path, language: str = "python") -> str:
    uri = path_to_uri(path)
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri,
                language_id=language,
                version=1,
                text=path.read_text(encoding="utf-8", errors="surrogateescape"),
            )
        )
    )
    return uri


def change_folders(
    client: LanguageClient, added: tuple[Path, ...] = (), removed: tuple[Path, ...] = ()
) -> None:
    """``workspace/didChangeWorkspaceFolders`` as an editor sends it."""

    def folders(roots: tuple[Path, ...]) -> list[types.WorkspaceFolder]:
        return [types.WorkspaceFolder(uri=path_to_uri(root), name=root.name) for root in roots]

    client.workspace_did_change_workspace_folders(
        types.DidChangeWorkspaceFoldersParams(
            event=types.WorkspaceFoldersChangeEvent(added=folders(added), removed=folders(removed))
        )
    )


def replace_document(client: LanguageClient, uri: str, version: int, text: str) -> None:
    """One ``didChange`` sending the whole new text (as clients with full sync do)."""
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


def save_document(client: LanguageClient, path: Path, text: str) -> None:
    """Write ``text`` to ``path`` and send ``didSave`` with it, as an editor saving does."""
    path.write_text(text, encoding="utf-8")
    client.text_document_did_save(
        types.DidSaveTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=path_to_uri(path)), text=text
        )
    )


def change_document(
    client: LanguageClient,
    uri: str,
    version: int,
    text: str,
    start: tuple[int, int],
    end: tuple[int, int] | None = None,
) -> None:
    """One incremental edit replacing ``start..end`` (LSP line/character) with ``text``."""
    end = end or start
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(
                        start=types.Position(line=start[0], character=start[1]),
                        end=types.Position(line=end[0], character=end[1]),
                    ),
                    text=text,
                )
            ],
        )
    )
