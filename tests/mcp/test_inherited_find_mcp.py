"""``find_symbol`` over MCP (the SDK's client, a real ``codekeep mcp``): a
``Container.member`` the class inherits is found in the base that defines it, the same
answer as ``codekeep find``, labelled with the class that inherits it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.agent.projects import write_zoo, zoo_found_by_cli
from tests.mcp.harness import stdio_client, text

pytestmark = pytest.mark.slow


async def test_find_symbol_answers_an_inherited_member_as_the_cli_does(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = write_zoo(tmp_path / "zoo")
    cli = zoo_found_by_cli(root, "Puppy.speak", capsys)
    async with stdio_client(root) as client:
        inherited = await client.call_tool("find_symbol", {"name": "Puppy.speak"})
        own = await client.call_tool("find_symbol", {"name": "Dog.fetch"})
        missing = await client.call_tool("find_symbol", {"name": "Puppy.bark"})
    assert not inherited.is_error
    found = inherited.structured_content["data"]["symbols"]
    assert [(s["id"], s["inheritedBy"]) for s in found] == [
        ("zoo/base.py::Animal.speak", "Puppy")]
    assert cli == [(found[0]["id"], "Puppy")]
    assert "zoo/base.py:2 (inherited by Puppy)" in text(inherited)
    [fetch] = own.structured_content["data"]["symbols"]
    assert fetch["id"] == "zoo/dogs.py::Dog.fetch" and "inheritedBy" not in fetch
    assert missing.structured_content["data"]["symbols"] == []
