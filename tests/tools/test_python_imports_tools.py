"""The agent's ``find_references`` tool follows a package's re-exports and is not
misled by a deeper module named like the package (the real code map, no mocks)."""

from __future__ import annotations

from pathlib import Path

from codekeep.analysis.codemap import CodeMap
from codekeep.ledger import Ledger
from codekeep.memory import MemoryService
from codekeep.tools import ToolKit
from tests.python_imports_project import (
    BLUEPRINT_REGISTER_USE,
    BUILD_USES,
    REGISTER,
    REGISTER_USE,
    URL_FOR_USE,
    write_python_imports,
)


async def test_the_agent_tool_finds_uses_through_python_imports(tmp_path: Path) -> None:
    root = write_python_imports(tmp_path / "ws")
    codemap = CodeMap.open(root)
    codemap.index()
    memory = MemoryService.open(root)
    ledger = Ledger.open(root)
    kit = ToolKit.open(root, codemap=codemap, memory=memory, ledger=ledger)
    try:
        ctx = kit.context("t", "explore")
        url_for = await kit.pipeline.execute(
            "find_references", {"symbol_id": "src/web/helpers.py::url_for"}, ctx)
        build = await kit.pipeline.execute(
            "find_references", {"symbol_id": "pkg/mod.py::build"}, ctx)
        register = await kit.pipeline.execute("find_references", {"symbol_id": REGISTER}, ctx)
    finally:
        kit.close()
        ledger.close()
        memory.close()
        codemap.close()
    assert url_for.ok and build.ok, (url_for.content, build.content)
    assert URL_FOR_USE[0] in {f["path"] for f in url_for.data["files"]}
    [use] = [f for f in build.data["files"] if f["path"] == "use.py"]
    assert {m["line"] for m in use["matches"]} == {line for _path, line in BUILD_USES}
    assert not any(m["text"].startswith("(name match)") for m in use["matches"])
    # the receiver's class decides: `s = Serializer()` is, `bp: Blueprint` is not
    assert register.ok, register.content
    matches = {(f["path"], m["line"]) for f in register.data["files"] for m in f["matches"]}
    assert REGISTER_USE in matches and BLUEPRINT_REGISTER_USE not in matches
    assert matches == {REGISTER_USE}
    assert not any(m["text"].startswith("(name match)")
                   for f in register.data["files"] for m in f["matches"])
