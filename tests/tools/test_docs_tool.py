"""search_docs over the real knowledge base of the tools' sample workspace (no mocks):
answers with heading paths and spans, never indexes what a symlink smuggles in (a
``.env`` behind ``innocent.txt``, a file outside the workspace), refuses bad input."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from codekeep.analysis.codemap import CodeMap
from codekeep.docs import DocsIndex
from codekeep.tools import ToolKit

GUIDE = """\
Operations guide
================

Retries
-------

Failed uploads are retried three times with exponential backoff; see ``helper``.

The staging token is ghp_abcdefghijklmnopqrstuvwxyz0123456789 (rotate it monthly).
"""


@pytest.fixture
def docs_kit(workspace: Path) -> Iterator[ToolKit]:
    (workspace / "docs").mkdir()
    (workspace / "docs" / "operations.rst").write_text(GUIDE, encoding="utf-8")
    codemap = CodeMap.open(workspace)
    codemap.index()
    docs = DocsIndex.open(workspace)
    docs.index()
    toolkit = ToolKit.open(workspace, codemap=codemap, docs=docs)
    yield toolkit
    toolkit.close()
    docs.close()
    codemap.close()


async def test_search_docs_answers_with_heading_and_lines(docs_kit: ToolKit) -> None:
    ctx = docs_kit.context("t", "explore")
    result = await docs_kit.pipeline.execute(
        "search_docs", {"query": "what does the ops guide say about retries"}, ctx
    )
    assert result.ok, result.content
    best = result.data["results"][0]
    assert (best["path"], best["heading"]) == ("docs/operations.rst", "Operations guide › Retries")
    assert (best["startLine"], best["endLine"]) == (7, 9)
    assert "docs/operations.rst:7-9  Operations guide › Retries" in result.content
    assert result.files == ["docs/operations.rst"]


async def test_secrets_and_symlinked_files_never_reach_the_model(docs_kit: ToolKit) -> None:
    ctx = docs_kit.context("t", "explore")
    token = await docs_kit.pipeline.execute("search_docs", {"query": "staging token"}, ctx)
    assert token.ok and "ghp_abcdef" not in token.content and "[REDACTED" in token.content
    # innocent.txt -> .env, escape.txt and link_out/secret.txt -> a file outside
    for query in ("API_KEY", "sk live", "TOP SECRET"):
        result = await docs_kit.pipeline.execute("search_docs", {"query": query}, ctx)
        assert result.ok and result.data["results"] == [], (query, result.content)
    assert docs_kit.docs is not None
    skipped = docs_kit.docs.stats(0.0, 0, 0, 0).skipped
    # escape.txt and link_out/ lead out of the workspace and mirror.txt is a hard link to a
    # file outside: the walk never yields them; innocent.txt -> .env stays inside
    assert skipped == {"symlink to a file that is not docs": 1}


async def test_bad_input_is_a_clear_tool_error(docs_kit: ToolKit) -> None:
    ctx = docs_kit.context("t", "explore")
    empty = await docs_kit.pipeline.execute("search_docs", {"query": "  "}, ctx)
    assert not empty.ok and "query is empty" in empty.content
    common = await docs_kit.pipeline.execute("search_docs", {"query": "how do I"}, ctx)
    assert common.ok and "only common words" in common.content
    outside = await docs_kit.pipeline.execute(
        "search_docs", {"query": "retries", "focus": ["../outside/secret.txt"]}, ctx
    )
    assert outside.refused and outside.rule == "path.outside"


async def test_find_related_names_the_sections_documenting_the_symbol(docs_kit: ToolKit) -> None:
    ctx = docs_kit.context("t", "explore")
    where = {"path": "src/util.py", "line": 1}
    result = await docs_kit.pipeline.execute("find_related", where, ctx)
    assert result.ok, result.content
    assert result.data["documented_in"] == [
        {"path": "docs/operations.rst", "heading": "Operations guide › Retries", "line": 7}]
    assert "documented in:\n  docs/operations.rst › Operations guide › Retries" in result.content
