"""MCP's ``find_references`` follows a package's re-exports and is not misled by a
deeper module that shares the package's name (the SDK's client over stdio)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.mcp.harness import stdio_client
from tests.python_imports_project import (
    BLUEPRINT_REGISTER_USE,
    BUILD_USES,
    REGISTER,
    REGISTER_USE,
    URL_FOR_USE,
    write_python_imports,
)

pytestmark = pytest.mark.slow


async def test_find_references_over_mcp_follows_python_imports(tmp_path: Path) -> None:
    project = write_python_imports(tmp_path / "ws")
    async with stdio_client(project) as client:
        url_for = await client.call_tool("find_references",
                                         {"symbol_id": "src/web/helpers.py::url_for"})
        build = await client.call_tool("find_references", {"symbol_id": "pkg/mod.py::build"})
        register = await client.call_tool("find_references", {"symbol_id": REGISTER})
    assert url_for.structured_content is not None and build.structured_content is not None
    files = {f["path"]: f for f in url_for.structured_content["data"]["files"]}
    assert URL_FOR_USE[0] in files
    build_files = {f["path"]: f for f in build.structured_content["data"]["files"]}
    assert {m["line"] for m in build_files["use.py"]["matches"]} == {
        line for _path, line in BUILD_USES}
    assert not any(m["text"].startswith("(name match)")
                   for m in build_files["use.py"]["matches"])
    # the receiver's class decides: `s = Serializer()` is, `bp: Blueprint` is not
    assert register.structured_content is not None
    matches = {(f["path"], m["line"]) for f in register.structured_content["data"]["files"]
               for m in f["matches"]}
    assert REGISTER_USE in matches and BLUEPRINT_REGISTER_USE not in matches
