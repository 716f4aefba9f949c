"""Bad input and hostile traffic: each gets an error or an empty answer with a reason,
and the server keeps serving (checked after every case)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams, JsonRpcRequestCancelled
from pytest_lsp import LanguageClient

from codekeep.common.uris import path_to_uri
from tests.server.lsp_harness import (
    change_document,
    initialize_params,
    open_document,
    request,
    send_raw,
    server_config,
    wait_ready,
    write_project,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")

# ~800 KB of Python: under the 1 MB cap, and slow enough to parse (about a second)
# that a request queued behind its didOpen can be cancelled before it runs.
BIG_SOURCE = "".join(
    f"def function_{i}(a, b):\n    return helper_{i % 50}(a) + b\n\n" for i in range(15000)
)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = write_project(tmp_path_factory.mktemp("robust"))
    (root / "huge.py").write_text("x = 1\n" * (10 * 1024 * 1024 // 6), encoding="utf-8")
    (root / "blob.py").write_bytes(b"\x00\x01\x02def nope():\x00\xff\xfe" * 1000)
    (root / "notes.txt").write_text("not code\n", encoding="utf-8")
    return root


@pytest_lsp.fixture(
    config=server_config(),
    scope="module",
)
async def client(lsp_client: LanguageClient, project: Path):
    await lsp_client.initialize_session(initialize_params(project))
    await wait_ready(lsp_client)
    yield
    await lsp_client.shutdown_session()


async def assert_alive(client: LanguageClient) -> None:
    found = await request(client, "codekeep/findSymbol", {"name": "Circle"})
    assert [s["name"] for s in found["symbols"]] == ["Circle"]


@pytest.mark.parametrize(
    ("method", "params", "message"),
    [
        ("codekeep/findSymbol", {"name": 5}, "'name' must be a non-empty string"),
        ("codekeep/findSymbol", {}, "'name' must be a non-empty string"),
        ("codekeep/findSymbol", {"name": "x", "limit": "ten"}, "'limit' must be an integer"),
        ("codekeep/findSymbol", [1, 2], "expected a JSON object"),
        ("codekeep/findReferences", {}, "give 'symbolId', 'name', or 'uri' with 'position'"),
        (
            "codekeep/findRelated",
            {"uri": "file:///x.py", "position": {"line": -1}},
            "'position.line' must be a non-negative integer",
        ),
        ("codekeep/repoMap", {"tokens": 0}, "'tokens' must be at least 1"),
        ("codekeep/repoMap", {"focus": "file:///a.py"}, "'focus' must be a list of strings"),
        ("codekeep/searchSymbols", {"query": ""}, "'query' must be a non-empty string"),
        # One limit rule for every query: absent = the default, below 1 = an error.
        ("codekeep/findSymbol", {"name": "x", "limit": 0}, "'limit' must be at least 1"),
        ("codekeep/findReferences", {"name": "x", "limit": 0}, "'limit' must be at least 1"),
        ("codekeep/searchSymbols", {"query": "x", "limit": 0}, "'limit' must be at least 1"),
        ("codekeep/searchSymbols", {"query": "x", "limit": -1}, "'limit' must be at least 1"),
    ],
)
async def test_malformed_params_get_invalid_params(
    client: LanguageClient, method: str, params: object, message: str
) -> None:
    with pytest.raises(JsonRpcInvalidParams) as error:
        await request(client, method, params)
    assert message in str(error.value)
    await assert_alive(client)


async def test_malformed_command_arguments(client: LanguageClient) -> None:
    with pytest.raises(JsonRpcInvalidParams, match="expected one object argument, got 2"):
        await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="codekeep.findSymbol", arguments=[{}, {}])
        )
    await assert_alive(client)


async def test_unknown_uris(client: LanguageClient, tmp_path: Path) -> None:
    elsewhere = path_to_uri(tmp_path / "elsewhere.py")
    result = await request(
        client,
        "codekeep/findRelated",
        {
            "uri": elsewhere,
            "position": {"line": 0, "character": 0},
        },
    )
    assert result["symbol"] is None and "not inside any workspace folder" in result["reason"]
    for uri in (elsewhere, "untitled:Untitled-1"):
        hover = await client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                position=types.Position(line=0, character=0),
            )
        )
        assert hover is None
    await assert_alive(client)


async def test_positions_past_the_end(client: LanguageClient, project: Path) -> None:
    uri = path_to_uri(project / "pkg" / "app.py")
    result = await request(
        client,
        "codekeep/findReferences",
        {
            "uri": uri,
            "position": {"line": 9999, "character": 0},
        },
    )
    assert result == {"references": [], "total": 0, "reason": f"{uri} has no line 9999",
                      "partial": False}
    definition = await client.text_document_definition_async(
        types.DefinitionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=4, character=9999),  # past the end of a real line
        )
    )
    assert definition is None
    await assert_alive(client)


async def test_unknown_focus_files_and_lines_past_the_end_have_a_reason(
    client: LanguageClient, project: Path, tmp_path: Path
) -> None:
    empty_map = {"text": "", "tokens": 0, "files": []}
    for uri, reason in (
        (path_to_uri(project / "pkg" / "nope.py"), "focus: not in the index: pkg/nope.py"),
        (path_to_uri(project / "notes.txt"), "focus: not in the index: notes.txt"),
        (
            path_to_uri(tmp_path / "elsewhere.py"),
            f"focus: {path_to_uri(tmp_path / 'elsewhere.py')} is not inside any workspace folder",
        ),
    ):
        result = await request(client, "codekeep/repoMap", {"focus": [uri]})
        assert result == {**empty_map, "reason": reason}
    focused = await request(
        client, "codekeep/repoMap", {"focus": [path_to_uri(project / "pkg" / "app.py")]}
    )
    assert "reason" not in focused and "pkg/app.py" in focused["files"]
    related = await request(
        client,
        "codekeep/findRelated",
        {"uri": path_to_uri(project / "pkg" / "app.py"), "position": {"line": 997, "character": 0}},
    )
    assert related["symbol"] is None and related["calls"] == []
    assert related["reason"].startswith("pkg/app.py has no line 998 (it has ")
    await assert_alive(client)


async def test_never_opened_and_unindexed_files(client: LanguageClient, project: Path) -> None:
    # Never opened but indexed from disk: answered from the index.
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(
            text_document=types.TextDocumentIdentifier(uri=path_to_uri(project / "pkg" / "app.py"))
        )
    )
    assert [s.name for s in symbols] == ["main", "describe"]
    # Not code at all: nothing, not an error.
    for name in ("notes.txt", "huge.py", "blob.py"):
        lenses = await client.text_document_code_lens_async(
            types.CodeLensParams(
                text_document=types.TextDocumentIdentifier(uri=path_to_uri(project / name))
            )
        )
        assert not lenses
    related = await request(
        client,
        "codekeep/findRelated",
        {
            "uri": path_to_uri(project / "notes.txt"),
            "position": {"line": 0, "character": 0},
        },
    )
    assert related["symbol"] is None and "not in the index" in related["reason"]
    await assert_alive(client)


async def test_ten_megabyte_and_binary_files_opened(client: LanguageClient, project: Path) -> None:
    huge = open_document(client, project / "huge.py")
    change_document(client, huge, 2, "def grown():\n    pass\n", (0, 0))
    blob = open_document(client, project / "blob.py")
    change_document(client, blob, 2, "def also_nope(): pass\n", (0, 0))
    status = await request(client, "codekeep/indexStatus", {})
    assert status["files"] == 3  # the package; the huge and binary files are skipped
    assert (await request(client, "codekeep/findSymbol", {"name": "grown"}))["symbols"] == []
    await assert_alive(client)
    for uri in (huge, blob):
        client.text_document_did_close(
            types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )


async def test_thousand_edits_then_a_correct_answer(client: LanguageClient, project: Path) -> None:
    uri = open_document(client, project / "pkg" / "app.py")
    line = len((project / "pkg" / "app.py").read_text().splitlines())
    change_document(client, uri, 2, "\ndef ", (line, 0))
    name = ""
    for version, letter in enumerate("storm_function" * 72, start=3):  # 1,008 keystrokes
        change_document(client, uri, version, letter, (line + 1, 4 + len(name)))
        name += letter
    change_document(client, uri, 2000, "():\n    pass\n", (line + 1, 4 + len(name)))
    found = await request(client, "codekeep/findSymbol", {"name": name})
    [symbol] = found["symbols"]
    assert symbol["selectionRange"]["start"] == {"line": line + 1, "character": 4}
    assert symbol["selectionRange"]["end"] == {"line": line + 1, "character": 4 + len(name)}
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    gone = await request(client, "codekeep/findSymbol", {"name": name})
    assert gone["symbols"] == []  # closed unsaved: the disk content is the truth again


async def test_cancel_request(client: LanguageClient, project: Path) -> None:
    big = project / "big.py"
    big.write_text(BIG_SOURCE, encoding="utf-8")
    uri = open_document(client, big)  # about a second of parsing on the folder's worker
    # send_request (not the coroutine variant) puts the message on the wire right now.
    queued = asyncio.wrap_future(
        client.protocol.send_request("codekeep/findSymbol", {"name": "function_9"}, msg_id="queued")
    )
    long_map = asyncio.wrap_future(
        client.protocol.send_request("codekeep/repoMap", {"tokens": 8000}, msg_id="long-map")
    )
    client.protocol.notify("$/cancelRequest", types.CancelParams(id="queued"))
    client.protocol.notify("$/cancelRequest", types.CancelParams(id="long-map"))
    for pending in (queued, long_map):
        with pytest.raises(JsonRpcRequestCancelled):
            await asyncio.wait_for(pending, 30)
    found = await request(client, "codekeep/findSymbol", {"name": "function_9"})
    assert len(found["symbols"]) == 1  # the open went through; the server kept serving
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )


async def test_notification_errors_are_logged_not_shown(
    client: LanguageClient, project: Path
) -> None:
    # A didChange whose params cannot even be read, and one for a document nobody opened.
    send_raw(client, {"method": "textDocument/didChange", "params": {"textDocument": {"uri": 5}}})
    send_raw(
        client,
        {
            "method": "textDocument/didOpen",
            "params": {
                "textDocument": {
                    "uri": path_to_uri(project / "pkg" / "odd.py"),
                    "languageId": "python",
                    "version": 1,
                    "text": "\udcff broken surrogate",
                }
            },
        },
    )
    change_document(client, path_to_uri(project / "pkg" / "never.py"), 3, "x", (0, 0))
    await assert_alive(client)
    assert not [m for m in client.messages if m.type == types.MessageType.Error]
