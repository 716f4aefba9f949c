"""search_docs over the real knowledge base of the tools' sample workspace (no mocks):
answers with heading paths and spans, never indexes what a symlink smuggles in (a
``.env`` behind ``innocent.txt``, a file outside the workspace), refuses bad input, and
with the door's model expands the question, billed to the task."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from codekeep.agent.docs_expansion import door_expander
from codekeep.analysis.codemap import CodeMap
from codekeep.docs import DocsIndex
from codekeep.ledger import Ledger
from codekeep.settings.agent import ModelSettings
from codekeep.testing.scripted_server import Reply, ScriptedModelServer, say
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


async def test_with_a_model_the_question_is_expanded_and_billed_to_the_task(
    docs_kit: ToolKit, workspace: Path,
) -> None:
    """The door's model rewrites the question (both requests at once, the HyDE passage
    embedded, never searched by its words) and its calls are the task's in the ledger."""
    question = "what happens when a transfer breaks"  # no word of the guide's retries

    def answer(body: dict[str, Any]) -> Reply:
        hyde = "paragraph" in body["messages"][0]["content"]
        return say("Every page has a heading." if hyde else "failed upload retried\nbackoff")

    with ScriptedModelServer() as model, Ledger.open(workspace) as ledger:
        model.push(answer, answer)
        settings = ModelSettings(model="scripted-model", base_url=model.base_url,
                                 api_key="test", max_retries=0, stream=False)
        ctx = docs_kit.context("task-docs", "explore")
        plain = await docs_kit.pipeline.execute("search_docs", {"query": question}, ctx)
        assert plain.ok and not plain.data["results"]
        ctx = docs_kit.context("task-docs", "explore")
        ctx.expand_docs = door_expander(settings, ledger, "task-docs")
        result = await docs_kit.pipeline.execute("search_docs", {"query": question}, ctx)
        assert result.ok, result.content
        assert result.data["results"][0]["heading"] == "Operations guide › Retries"
        assert result.data["expansions"] == [
            "failed upload retried", "backoff", "Every page has a heading."]
        assert len(model.requests) == 2
        ledger.flush()
        rows = ledger.report(group_by="task")["rows"]
    assert [(row["key"], row["calls"]) for row in rows] == [("task-docs", 2)]
