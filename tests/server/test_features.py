"""Standard LSP features and the codekeep/* requests against a real server (UTF-8 client)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from codekeep.common.uris import path_to_uri
from tests.server.lsp_harness import (
    initialize_params,
    request,
    server_config,
    wait_ready,
    wait_until,
    write_project,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_project(tmp_path_factory.mktemp("features"))


@pytest_lsp.fixture(
    config=server_config(),
    scope="module",
)
async def client(lsp_client: LanguageClient, project: Path):
    lsp_client.initialize_result = await lsp_client.initialize_session(  # type: ignore[attr-defined]
        initialize_params(project, client="neovim")
    )
    await wait_ready(lsp_client)
    yield
    await lsp_client.shutdown_session()


def uri(project: Path, relative: str) -> str:
    return path_to_uri(project / relative)


def at(project: Path, relative: str, line: int, character: int) -> dict[str, Any]:
    """Params of a custom request about one position: ``{uri, position}``."""
    return {"uri": uri(project, relative), "position": {"line": line, "character": character}}


def pos(line: int, character: int) -> types.Position:
    return types.Position(line=line, character=character)


async def test_initialize_negotiates_utf8_and_advertises_everything(client: LanguageClient) -> None:
    caps = client.initialize_result.capabilities  # type: ignore[attr-defined]
    assert caps.position_encoding == types.PositionEncodingKind.Utf8
    sync = caps.text_document_sync
    assert sync.change == types.TextDocumentSyncKind.Incremental
    commands = set(caps.execute_command_provider.commands)
    methods = {
        "reindex",
        "findSymbol",
        "findReferences",
        "findRelated",
        "searchSymbols",
        "repoMap",
        "indexStatus",
    }
    assert {f"codekeep.{m}" for m in methods} <= commands
    assert {f"codekeep/{m}" for m in methods} <= set(caps.experimental["codekeep"]["requests"])
    assert caps.definition_provider and caps.references_provider and caps.hover_provider
    assert caps.document_symbol_provider and caps.workspace_symbol_provider
    assert caps.code_lens_provider is not None


async def test_index_status_and_progress(client: LanguageClient) -> None:
    status = await request(client, "codekeep/indexStatus", {})
    assert status["ready"] is True
    assert status["files"] == 3
    assert status["languages"] == {"python": 3}
    assert status["symbols"] >= 7
    reports = [value for values in client.progress_reports.values() for value in values]
    kinds = [value.kind for value in reports]
    assert kinds[0] == "begin" and kinds[-1] == "end"
    assert any(getattr(value, "percentage", None) == 100 for value in reports)
    # Logs reach the editor's log (window/logMessage), not stdout.
    assert any("indexed" in message.message for message in client.log_messages)


async def test_find_symbol_returns_uri_and_range(client: LanguageClient, project: Path) -> None:
    result = await request(client, "codekeep/findSymbol", {"name": "Circle"})
    [circle] = result["symbols"]
    assert circle["uri"] == uri(project, "pkg/geometry.py")
    assert circle["kind"] == "class"
    assert circle["selectionRange"]["start"] == {"line": 12, "character": 6}
    assert circle["id"] == "pkg/geometry.py::Circle"


async def test_execute_command_takes_the_same_object(client: LanguageClient) -> None:
    direct = await request(client, "codekeep/findSymbol", {"name": "area"})
    via_command = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="codekeep.findSymbol", arguments=[{"name": "area"}])
    )
    assert via_command == direct
    assert {s["container"] for s in direct["symbols"]} == {"Shape", "Circle"}


async def test_definition_across_files(client: LanguageClient, project: Path) -> None:
    # app.py line 4: "    circles = [Circle(1.0), Circle(2.0)]" — cursor on the first Circle
    found = await client.text_document_definition_async(
        types.DefinitionParams(
            text_document=types.TextDocumentIdentifier(uri=uri(project, "pkg/app.py")),
            position=pos(4, 16),
        )
    )
    assert [(loc.uri, loc.range.start.line) for loc in found] == [
        (uri(project, "pkg/geometry.py"), 12)
    ]


async def test_references_include_declaration(client: LanguageClient, project: Path) -> None:
    found = await client.text_document_references_async(
        types.ReferenceParams(
            text_document=types.TextDocumentIdentifier(uri=uri(project, "pkg/geometry.py")),
            position=pos(20, 5),  # on "total_area" in its definition
            context=types.ReferenceContext(include_declaration=True),
        )
    )
    places = {(Path(loc.uri).name, loc.range.start.line) for loc in found}
    assert ("geometry.py", 20) in places  # the declaration
    assert ("app.py", 5) in places  # the call in main()


async def test_find_references_pages_with_offset_and_the_same_total(
    client: LanguageClient, project: Path
) -> None:
    whole = await request(client, "codekeep/findReferences", {"name": "total_area"})
    assert whole["total"] == len(whole["references"]) >= 2
    pages = [
        await request(
            client, "codekeep/findReferences", {"name": "total_area", "limit": 1, "offset": n}
        )
        for n in range(whole["total"])
    ]
    assert [page["total"] for page in pages] == [whole["total"]] * whole["total"]
    assert [ref for page in pages for ref in page["references"]] == whole["references"]


async def test_answers_say_whether_they_may_be_partial_and_the_status_counts(
    client: LanguageClient, project: Path
) -> None:
    for method, params in (("codekeep/findSymbol", {"name": "total_area"}),
                           ("codekeep/findReferences", {"name": "total_area"}),
                           ("codekeep/searchSymbols", {"query": "ttlar"})):
        assert (await request(client, method, params))["partial"] is False  # index done
    status = await request(client, "codekeep/indexStatus", {})
    assert status["ready"] and status["indexed"] == status["toIndex"]
    assert status["secondsLeft"] is None and status["folders"][0]["secondsLeft"] is None


async def test_find_references_by_position_and_by_id(client: LanguageClient, project: Path) -> None:
    by_position = await request(
        client, "codekeep/findReferences", at(project, "pkg/geometry.py", 20, 5)
    )
    by_id = await request(
        client, "codekeep/findReferences", {"symbolId": "pkg/geometry.py::total_area"}
    )
    assert by_position == by_id
    assert by_id["total"] >= 1
    assert any(
        ref["uri"].endswith("app.py") and ref["confidence"] == "resolved"
        for ref in by_id["references"]
    )


async def test_hover_shows_signature_container_and_reference_count(
    client: LanguageClient, project: Path
) -> None:
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri(project, "pkg/geometry.py")),
            position=pos(16, 9),  # "area" in Circle
        )
    )
    text = hover.contents.value
    assert "def area(self) -> float" in text
    assert "in `Circle`" in text
    assert "reference" in text


async def test_document_symbols_are_hierarchical(client: LanguageClient, project: Path) -> None:
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(
            text_document=types.TextDocumentIdentifier(uri=uri(project, "pkg/geometry.py"))
        )
    )
    tree = {s.name: [c.name for c in s.children or []] for s in symbols}
    assert tree["Shape"] == ["area"]
    assert tree["Circle"] == ["__init__", "area"]
    assert tree["total_area"] == []


async def test_workspace_symbol_is_fuzzy(client: LanguageClient) -> None:
    found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="totar"))
    assert found and found[0].name == "total_area"


async def test_search_symbols_scores(client: LanguageClient) -> None:
    result = await request(client, "codekeep/searchSymbols", {"query": "circ", "limit": 5})
    assert result["symbols"][0]["name"] == "Circle"
    assert result["symbols"][0]["score"] > 0


async def test_code_lens_counts_references(client: LanguageClient, project: Path) -> None:
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(
            text_document=types.TextDocumentIdentifier(uri=uri(project, "pkg/geometry.py"))
        )
    )
    total = {lens.range.start.line: lens.command for lens in lenses}[20]
    refs = await request(
        client, "codekeep/findReferences", {"symbolId": "pkg/geometry.py::total_area"}
    )
    assert total.title == f"{refs['total']} references" and refs["total"] >= 2
    assert total.command == "codekeep.findReferences"
    assert list(total.arguments) == [{"symbolId": "pkg/geometry.py::total_area"}]


async def test_code_lenses_of_a_big_file_resolve_on_demand(
    client: LanguageClient, project: Path
) -> None:
    big = project / "many.py"
    big.write_text("".join(f"def fn_{i}():\n    return fn_{i + 1}()\n\n" for i in range(150)))
    target = uri(project, "many.py")
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=target, type=types.FileChangeType.Created)]
        )
    )

    async def listed() -> Any:
        lenses = await client.text_document_code_lens_async(
            types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=target))
        )
        return lenses if lenses and len(lenses) == 150 else None

    lenses = await wait_until(listed)
    assert all(lens.command is None for lens in lenses)
    resolved = await client.code_lens_resolve_async(lenses[5])
    assert resolved.command.title == "1 reference"  # fn_5 is called by fn_4
    assert list(resolved.command.arguments) == [{"symbolId": "many.py::fn_5"}]


async def test_reindex_brings_the_disk_in_now(client: LanguageClient, project: Path) -> None:
    (project / "pkg" / "fresh.py").write_text("def from_reindex():\n    pass\n")
    result = await request(client, "codekeep/reindex", {})
    [folder] = result["folders"]
    assert folder["uri"] == path_to_uri(project) and folder["error"] is None
    assert folder["files"] >= 4
    found = await request(client, "codekeep/findSymbol", {"name": "from_reindex"})
    assert [s["path"] for s in found["symbols"]] == ["pkg/fresh.py"]


async def test_find_related(client: LanguageClient, project: Path) -> None:
    result = await request(client, "codekeep/findRelated", at(project, "pkg/app.py", 5, 4))
    assert result["symbol"]["name"] == "main"
    called = {s["name"] for s in result["calls"]}
    assert {"Circle", "total_area"} <= called


async def test_repo_map_fits_budget(client: LanguageClient, project: Path) -> None:
    result: dict[str, Any] = await request(
        client,
        "codekeep/repoMap",
        {
            "tokens": 200,
            "focus": [uri(project, "pkg/app.py")],
        },
    )
    assert "total_area" in result["text"]
    assert 0 < result["tokens"] <= 200
