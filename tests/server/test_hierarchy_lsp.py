"""Call and type hierarchy over LSP, against a real server (pytest-lsp, UTF-16 client)."""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from codekeep.common.uris import path_to_uri
from tests.server.lsp_harness import initialize_params, server_config, wait_ready, write_project

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_project(tmp_path_factory.mktemp("hierarchy"))


@pytest_lsp.fixture(config=server_config(), scope="module")
async def client(lsp_client: LanguageClient, project: Path):
    lsp_client.initialize_result = await lsp_client.initialize_session(  # type: ignore[attr-defined]
        initialize_params(project, client="visual_studio_code")
    )
    await wait_ready(lsp_client)
    yield
    await lsp_client.shutdown_session()


def document(project: Path, relative: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=path_to_uri(project / relative))


async def prepare_calls(
    client: LanguageClient, project: Path, relative: str, line: int, character: int
) -> list[types.CallHierarchyItem] | None:
    return await client.text_document_prepare_call_hierarchy_async(
        types.CallHierarchyPrepareParams(
            text_document=document(project, relative),
            position=types.Position(line=line, character=character),
        )
    )


async def test_the_server_advertises_both_hierarchies(client: LanguageClient) -> None:
    caps = client.initialize_result.capabilities  # type: ignore[attr-defined]
    assert caps.call_hierarchy_provider and caps.type_hierarchy_provider


async def test_incoming_calls_are_the_callers_with_their_call_sites(
    client: LanguageClient, project: Path
) -> None:
    items = await prepare_calls(client, project, "pkg/geometry.py", 20, 5)  # def total_area
    assert items is not None and [item.name for item in items] == ["total_area"]
    assert items[0].detail == "def total_area(shapes: list[Shape]) -> float"
    calls = await client.call_hierarchy_incoming_calls_async(
        types.CallHierarchyIncomingCallsParams(item=items[0])
    )
    assert calls is not None
    [call] = calls
    assert call.from_.name == "main" and call.from_.uri.endswith("pkg/app.py")
    assert [(r.start.line, r.start.character) for r in call.from_ranges] == [(5, 10)]


async def test_outgoing_calls_are_what_the_body_calls(
    client: LanguageClient, project: Path
) -> None:
    [main] = await prepare_calls(client, project, "pkg/app.py", 3, 5) or []
    calls = await client.call_hierarchy_outgoing_calls_async(
        types.CallHierarchyOutgoingCallsParams(item=main)
    )
    assert calls is not None
    by_name = {call.to.name: call for call in calls}
    assert set(by_name) == {"Circle", "total_area"}  # print is not in the workspace
    assert by_name["total_area"].to.uri.endswith("pkg/geometry.py")
    assert len(by_name["Circle"].from_ranges) == 2  # Circle(1.0), Circle(2.0)


async def test_an_item_without_data_is_found_again_by_its_position(
    client: LanguageClient, project: Path
) -> None:
    [item] = await prepare_calls(client, project, "pkg/geometry.py", 20, 5) or []
    bare = types.CallHierarchyItem(
        name=item.name, kind=item.kind, uri=item.uri, range=item.range,
        selection_range=item.selection_range,
    )  # fmt: skip
    calls = await client.call_hierarchy_incoming_calls_async(
        types.CallHierarchyIncomingCallsParams(item=bare)
    )
    assert calls is not None and [c.from_.name for c in calls] == ["main"]


async def test_nothing_under_the_cursor_is_null_not_an_error(
    client: LanguageClient, project: Path
) -> None:
    assert await prepare_calls(client, project, "pkg/geometry.py", 1, 0) is None
    assert await prepare_calls(client, project, "pkg/geometry.py", 999, 0) is None
    assert await prepare_calls(client, project, "pkg/nowhere.py", 0, 0) is None


async def test_type_hierarchy_follows_the_bases_in_class_headers(
    client: LanguageClient, project: Path
) -> None:
    items = await client.text_document_prepare_type_hierarchy_async(
        types.TypeHierarchyPrepareParams(
            text_document=document(project, "pkg/geometry.py"),
            position=types.Position(line=12, character=7),  # class Circle(Shape)
        )
    )
    assert items is not None and items[0].name == "Circle"
    supers = await client.type_hierarchy_supertypes_async(
        types.TypeHierarchySupertypesParams(item=items[0])
    )
    assert supers is not None and [s.name for s in supers] == ["Shape"]
    subs = await client.type_hierarchy_subtypes_async(
        types.TypeHierarchySubtypesParams(item=supers[0])
    )
    assert subs is not None and [s.name for s in subs] == ["Circle"]
    none = await client.type_hierarchy_supertypes_async(
        types.TypeHierarchySupertypesParams(item=supers[0])
    )
    assert none is None  # Shape names no base
