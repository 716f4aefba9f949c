"""MCP's ``find_references`` says what it showed, the exact total and the next page.

It read like grep ("58 matches for /Session/ … narrow the pattern or path … the search
stopped early"): the tool takes no pattern or path and nothing stops early, so an agent
narrowed the wrong thing. Over the SDK's client on stdio, the pages add up to every use.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.mcp.harness import stdio_client, text

pytestmark = pytest.mark.slow


async def test_pages_say_what_was_shown_the_total_and_how_to_get_the_next(
        tmp_path: Path) -> None:
    (tmp_path / "session.py").write_text("class Session:\n    pass\n", encoding="utf-8")
    for n in range(3):
        uses = "".join(f"s{i} = Session()\n" for i in range(4))
        (tmp_path / f"use{n}.py").write_text(f"from session import Session\n{uses}",
                                             encoding="utf-8")
    async with stdio_client(tmp_path) as client:
        first = text(await client.call_tool("find_references",
                                            {"symbol_id": "session.py::Session", "limit": 10}))
        last = text(await client.call_tool(
            "find_references", {"symbol_id": "session.py::Session", "limit": 10, "offset": 10}))
    assert first.startswith("15 uses of session.py::Session in all (resolved first); "
                            "shown: uses 1-10 in ")
    assert first.rstrip().endswith(
        "… 5 more uses not shown: call find_references again with "
        "symbol_id='session.py::Session' offset=10 for the next page")
    for grep_words in ("pattern", "path", "stopped early", "omitted"):
        assert grep_words not in first
    assert last.startswith("15 uses of session.py::Session in all (resolved first); "
                           "shown: uses 11-15 in ")
    assert "more uses not shown" not in last
    shown = [line for page in (first, last) for line in page.splitlines()
             if line.startswith("  ")]
    assert len(shown) == 15  # every use of the page is listed, not the best three a file
