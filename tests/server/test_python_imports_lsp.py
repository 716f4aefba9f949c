"""References through re-exports, past a shadowing module and by a receiver's class,
over LSP: the standard
``textDocument/references``, ``codekeep/findReferences`` and the call hierarchy give
the same uses the code map does (a real server on stdio)."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from codekeep.common.uris import path_to_uri
from tests.python_imports_project import (
    BLUEPRINT_REGISTER_USE,
    BUILD_USES,
    REGISTER,
    REGISTER_USE,
    URL_FOR_USE,
    write_python_imports,
)
from tests.server.lsp_harness import request, session


def _lines(project: Path, locations: list[types.Location]) -> set[tuple[str, int]]:
    return {(Path(location.uri.removeprefix("file://")).relative_to(project).as_posix(),
             location.range.start.line + 1) for location in locations}


async def test_every_lsp_door_follows_re_exports_and_ignores_the_shadowing_module(
    tmp_path: Path,
) -> None:
    project = write_python_imports(tmp_path / "ws").resolve()
    async with session(project) as client:
        found = await client.text_document_references_async(types.ReferenceParams(
            text_document=types.TextDocumentIdentifier(
                uri=path_to_uri(project / "src/web/helpers.py")),
            position=types.Position(line=0, character=5),
            context=types.ReferenceContext(include_declaration=False)))
        assert URL_FOR_USE in _lines(project, found or [])
        custom = await request(client, "codekeep/findReferences",
                               {"symbolId": "pkg/mod.py::build"})
        labelled = {(ref["path"], ref["range"]["start"]["line"] + 1, ref["confidence"])
                    for ref in custom["references"]}
        assert {(path, line, "resolved") for path, line in BUILD_USES} <= labelled
        items = await client.text_document_prepare_call_hierarchy_async(
            types.CallHierarchyPrepareParams(
                text_document=types.TextDocumentIdentifier(
                    uri=path_to_uri(project / "src/web/helpers.py")),
                position=types.Position(line=0, character=5)))
        assert items
        calls = await client.call_hierarchy_incoming_calls_async(
            types.CallHierarchyIncomingCallsParams(item=items[0]))
        assert "test_link" in {call.from_.name for call in calls or []}
        # `s = Serializer()` then `s.register(...)`; `bp: Blueprint` then `bp.register(...)`
        serial = types.TextDocumentIdentifier(uri=path_to_uri(project / "pkg/serial.py"))
        method = types.Position(line=1, character=8)
        found = await client.text_document_references_async(types.ReferenceParams(
            text_document=serial, position=method,
            context=types.ReferenceContext(include_declaration=False)))
        lines = _lines(project, found or [])
        assert REGISTER_USE in lines and BLUEPRINT_REGISTER_USE not in lines
        custom = await request(client, "codekeep/findReferences", {"symbolId": REGISTER})
        labelled = {(ref["path"], ref["range"]["start"]["line"] + 1): ref["confidence"]
                    for ref in custom["references"]}
        assert labelled == {REGISTER_USE: "resolved"}
        items = await client.text_document_prepare_call_hierarchy_async(
            types.CallHierarchyPrepareParams(text_document=serial, position=method))
        assert items
        calls = await client.call_hierarchy_incoming_calls_async(
            types.CallHierarchyIncomingCallsParams(item=items[0]))
        assert [(call.from_.name, [r.start.line + 1 for r in call.from_ranges])
                for call in calls or []] == [("setup", [REGISTER_USE[1]])]
