"""Hover answers in the format the client asks for first (``hover.contentFormat``).

It answered Markdown always, so a client asking for plain text showed code fences and
backticks. A real ``codekeep serve`` over stdio, Emacs's captured capabilities with the
order of ``contentFormat`` as each client would send it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types

from codekeep.common.uris import path_to_uri
from tests.server.lsp_harness import (
    initialize_params,
    server_config,
    stop,
    wait_ready,
    write_project,
)

pytestmark = pytest.mark.slow


async def _hover(project: Path, formats: list[types.MarkupKind]) -> types.MarkupContent:
    params = initialize_params(project, client="emacs")
    assert params.capabilities.text_document and params.capabilities.text_document.hover
    params.capabilities.text_document.hover.content_format = formats
    lsp = await server_config().start()
    try:
        await lsp.initialize_session(params)
        await wait_ready(lsp)
        hover = await lsp.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(
                uri=path_to_uri(project / "pkg" / "geometry.py")),
            position=types.Position(line=16, character=9)))  # "area" in Circle
        await lsp.shutdown_session()
    finally:
        await stop(lsp)
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    return hover.contents


async def test_plain_text_when_the_client_asks_for_it_first(tmp_path: Path) -> None:
    project = write_project(tmp_path / "shapes")
    plain = await _hover(project, [types.MarkupKind.PlainText, types.MarkupKind.Markdown])
    assert plain.kind == types.MarkupKind.PlainText
    assert "def area(self) -> float" in plain.value and "in Circle" in plain.value
    assert "`" not in plain.value
    markdown = await _hover(project, [types.MarkupKind.Markdown, types.MarkupKind.PlainText])
    assert markdown.kind == types.MarkupKind.Markdown and "in `Circle`" in markdown.value
