"""Rename Symbol over stdio (``textDocument/prepareRename`` + ``textDocument/rename``):
off unless ``renameLanguages`` lists the file's language; on, the ``WorkspaceEdit`` the
editor applies renames the definition, its imports and uses across files (the renamed
package still runs), in the client's position encoding, from the unsaved buffer as it
is; name-only matches come as edits needing confirmation where the client supports it
(VS Code), elsewhere (Neovim) left out and listed in a warning; a name taken in the scope
is refused."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from codekeep.common.uris import path_to_uri, uri_to_path
from tests.server.lsp_harness import session

pytestmark = pytest.mark.slow

GEOMETRY = '''\
class Shape:
    def area(self) -> float:
        return 1.0


def total_area(shapes: list[Shape]) -> float:
    return sum(shape.area() for shape in shapes)


def perimeter() -> float:
    return 0.0
'''
APP = '''\
from pkg.geometry import Shape, total_area


def main(thing) -> None:
    print("形状", total_area([Shape()]), thing.area())


main(Shape())
'''
ON = {"codekeep": {"renameLanguages": ["python"]}}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "geometry.py").write_text(GEOMETRY)
    (tmp_path / "pkg" / "app.py").write_text(APP, encoding="utf-8")
    return tmp_path


def _position(text: str, needle: str, encoding: str, after: int = 0) -> types.Position:
    """The LSP position of ``needle``'s first character at or after ``after``."""
    at = text.index(needle, after)
    line = text.count("\n", 0, at)
    column = text[text.rfind("\n", 0, at) + 1:at]
    units = len(column.encode("utf-16-le")) // 2 if encoding == "utf-16" else len(
        column.encode("utf-8"))
    return types.Position(line=line, character=units)


def _uri(root: Path, rel: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=path_to_uri(root / rel))


def _apply(texts: dict[Path, str], edits: list[Any], encoding: str, path: Path) -> None:
    """Apply one file's text edits as an editor does (last first)."""
    lines = texts[path].split("\n")
    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character),
                       reverse=True):
        line = lines[edit.range.start.line]
        if encoding == "utf-16":
            units = line.encode("utf-16-le")
            start, end = edit.range.start.character * 2, edit.range.end.character * 2
            line = (units[:start].decode("utf-16-le") + edit.new_text
                    + units[end:].decode("utf-16-le"))
        else:
            data = line.encode("utf-8")
            start, end = edit.range.start.character, edit.range.end.character
            line = (data[:start] + edit.new_text.encode("utf-8") + data[end:]).decode("utf-8")
        lines[edit.range.start.line] = line
    texts[path] = "\n".join(lines)


async def test_off_by_default(project: Path) -> None:
    async with session(project) as lsp:
        provider = lsp.initialize_result.capabilities.rename_provider
        assert provider is not None and provider.prepare_provider is True
        at = _position(GEOMETRY, "total_area", "utf-8")
        params = types.PrepareRenameParams(text_document=_uri(project, "pkg/geometry.py"),
                                           position=at)
        assert await lsp.text_document_prepare_rename_async(params) is None
        assert await lsp.text_document_rename_async(types.RenameParams(
            text_document=_uri(project, "pkg/geometry.py"), position=at,
            new_name="sum_areas")) is None
    assert (project / "pkg" / "geometry.py").read_text() == GEOMETRY


async def test_neovim_renames_across_files_from_the_buffer(project: Path) -> None:
    async with session(project, configuration=ON) as lsp:
        app = project / "pkg" / "app.py"
        unsaved = APP.replace("main(Shape())\n", "main(Shape())\nprint(total_area([]))\n")
        lsp.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=path_to_uri(app), language_id="python",
                                                 version=1, text=unsaved)))
        at = _position(unsaved, "total_area", "utf-8", unsaved.index("print"))
        prepared = await lsp.text_document_prepare_rename_async(types.PrepareRenameParams(
            text_document=_uri(project, "pkg/app.py"), position=at))
        assert prepared.placeholder == "total_area"
        assert (prepared.range.start.line, prepared.range.start.character) == (at.line,
                                                                               at.character)
        off_name = _position(unsaved, "None", "utf-8")
        assert await lsp.text_document_prepare_rename_async(types.PrepareRenameParams(
            text_document=_uri(project, "pkg/app.py"), position=off_name)) is None
        edit = await lsp.text_document_rename_async(types.RenameParams(
            text_document=_uri(project, "pkg/app.py"), position=at, new_name="sum_areas"))
        assert edit.document_changes is None  # Neovim is sent plain changes
        texts = {project / "pkg" / "geometry.py": GEOMETRY, app: unsaved}
        for uri, edits in edit.changes.items():
            _apply(texts, edits, "utf-8", uri_to_path(uri))
        assert "def sum_areas(" in texts[project / "pkg" / "geometry.py"]
        assert texts[app].count("sum_areas") == 3  # import, call, the buffer's new call
        assert "total_area" not in "".join(texts.values())
        assert (project / "pkg" / "geometry.py").read_text() == GEOMETRY  # nothing written
        shape_area = _position(GEOMETRY, "area", "utf-8")
        edit = await lsp.text_document_rename_async(types.RenameParams(
            text_document=_uri(project, "pkg/geometry.py"), position=shape_area,
            new_name="size"))
        assert all(e.range.start.line != 4 for e in edit.changes.get(path_to_uri(app), []))
        warned = [m.message for m in lsp.messages if "were not renamed" in m.message]
        assert len(warned) == 1 and "pkg/app.py:5:" in warned[0], lsp.messages
        for path, text in texts.items():
            path.write_text(text, encoding="utf-8")
    ran = subprocess.run([sys.executable, "-c", "import pkg.app"], cwd=project,
                         capture_output=True, text=True, check=False)
    assert ran.returncode == 0, ran.stderr


async def test_vs_code_gets_utf16_and_name_matches_to_confirm(project: Path) -> None:
    async with session(project, client="visual-studio-code", configuration=ON) as lsp:
        at = _position(APP, "total_area", "utf-16", APP.index("print"))
        edit = await lsp.text_document_rename_async(types.RenameParams(
            text_document=_uri(project, "pkg/app.py"), position=at, new_name="sum_areas"))
        by_file = {uri_to_path(change.text_document.uri): change.edits
                   for change in edit.document_changes}
        call = [e for e in by_file[project / "pkg" / "app.py"] if e.range.start.line == 4]
        assert [(e.range.start.character, e.range.end.character) for e in call] == [
            (at.character, at.character + len("total_area"))]  # after 形状: UTF-16 units
        shape_area = _position(GEOMETRY, "area", "utf-16")
        edit = await lsp.text_document_rename_async(types.RenameParams(
            text_document=_uri(project, "pkg/geometry.py"), position=shape_area,
            new_name="size"))
        annotated = [(uri_to_path(change.text_document.uri).name, e.range.start.line)
                     for change in edit.document_changes for e in change.edits
                     if getattr(e, "annotation_id", None)]
        assert ("app.py", 4) in annotated  # thing.area(): a receiver of unknown type
        assert edit.change_annotations["codekeep.nameMatch"].needs_confirmation is True


async def test_a_taken_name_is_refused_with_the_reason(project: Path) -> None:
    async with session(project, configuration=ON) as lsp:
        at = _position(GEOMETRY, "total_area", "utf-8")
        with pytest.raises(JsonRpcException, match="perimeter is already defined in the "
                                                   "same scope"):
            await lsp.text_document_rename_async(types.RenameParams(
                text_document=_uri(project, "pkg/geometry.py"), position=at,
                new_name="perimeter"))
        with pytest.raises(JsonRpcException, match="not an identifier"):
            await lsp.text_document_rename_async(types.RenameParams(
                text_document=_uri(project, "pkg/geometry.py"), position=at,
                new_name="two words"))
