"""The knowledge base through a real ``codekeep serve`` over stdio (pytest-lsp as the
editor): ``codekeep/docs/search`` as request and command, bad params as JSON-RPC errors,
"Documented in" on hover and in findRelated, a saved page re-chunked at once and a
page written by another tool picked up by the watcher."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from codekeep.common.uris import path_to_uri
from codekeep.testing.scripted_server import Reply, ScriptedModelServer, say
from tests.server.lsp_harness import (
    open_document,
    request,
    save_document,
    session,
    session_fixture,
    wait_until,
    write_project,
)

pytestmark = pytest.mark.slow

DEPLOY = """\
# Deployment

How this project goes live.

## Static files

Shapes are drawn from `total_area()` results; run the collector first.

### Serving in production

Put the files behind a CDN and set a long cache lifetime.
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = write_project(tmp_path / "shapes")
    (root / "docs").mkdir()
    (root / "docs" / "deploy.md").write_text(DEPLOY, encoding="utf-8")
    return root


client = session_fixture()


async def search(client: LanguageClient, query: str, **params: Any) -> dict[str, Any]:
    return await request(client, "codekeep/docs/search", {"query": query, **params})  # type: ignore[no-any-return]


async def test_search_answers_with_heading_path_and_span(
    client: LanguageClient, project: Path
) -> None:
    result = await search(client, "how do we serve files in production with a CDN")
    best = result["results"][0]
    assert best == {
        "path": "docs/deploy.md",
        "uri": path_to_uri(project / "docs" / "deploy.md"),
        "heading": "Deployment › Static files › Serving in production",
        "startLine": 11,
        "endLine": 11,
        "text": "Put the files behind a CDN and set a long cache lifetime.",
        "score": best["score"],
    }
    assert best["score"] > 0
    command = await request(
        client,
        types.WORKSPACE_EXECUTE_COMMAND,
        types.ExecuteCommandParams(
            command="codekeep.docs.search", arguments=[{"query": "CDN", "limit": 1}]
        ),
    )
    assert [r["heading"] for r in command["results"]] == [best["heading"]]


async def test_bad_queries_are_refused_or_explained(client: LanguageClient) -> None:
    for params in ({"query": ""}, {"query": "   "}, {}, {"query": 3},
                   {"query": "cdn", "limit": 0}, {"query": "cdn", "limit": "5"}):
        with pytest.raises(JsonRpcException) as error:
            await request(client, "codekeep/docs/search", params)
        assert "query" in str(error.value) or "limit" in str(error.value)
    only_stop_words = await search(client, "how do I do it")
    assert only_stop_words["results"] == []
    assert "common words" in only_stop_words["reason"]
    nothing = await search(client, "kubernetes")
    assert nothing["results"] == [] and "kubernetes" in nothing["reason"]
    with pytest.raises(JsonRpcException, match="expand must be one of"):
        await search(client, "cdn", expand="sideways")
    no_model = await search(client, "cdn", expand="hyde")  # no model configured
    assert no_model["results"] and "model" in no_model["expansionError"]


async def test_hover_and_find_related_say_where_a_symbol_is_documented(
    client: LanguageClient, project: Path
) -> None:
    geometry = project / "pkg" / "geometry.py"
    uri = open_document(client, geometry)
    line = geometry.read_text(encoding="utf-8").splitlines().index(
        "def total_area(shapes: list[Shape]) -> float:")
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=line, character=5),
        )
    )
    assert hover is not None
    assert "Documented in [docs/deploy.md › Deployment › Static files](" in hover.contents.value
    assert f"{path_to_uri(project / 'docs' / 'deploy.md')}#L7" in hover.contents.value
    related = await request(
        client, "codekeep/findRelated", {"uri": uri, "position": {"line": line + 1, "character": 0}}
    )
    assert related["documentedIn"] == [{
        "path": "docs/deploy.md",
        "uri": path_to_uri(project / "docs" / "deploy.md"),
        "heading": "Deployment › Static files",
        "startLine": 7,
    }]


async def test_a_saved_page_is_rechunked_and_a_new_one_is_watched(
    client: LanguageClient, project: Path
) -> None:
    page = project / "docs" / "deploy.md"
    open_document(client, page, language="markdown")
    save_document(client, page, DEPLOY + "\n## Rollback\n\nRedeploy the previous tag.\n")
    found = await wait_until(lambda: hits(client, "rollback"))
    assert found[0]["heading"] == "Deployment › Rollback"
    (project / "docs" / "caching.rst").write_text(
        "Caching\n=======\n\nResponses are kept in memcached for an hour.\n", encoding="utf-8"
    )
    found = await wait_until(lambda: hits(client, "memcached"))
    assert found[0]["path"] == "docs/caching.rst" and found[0]["heading"] == "Caching"


async def hits(client: LanguageClient, query: str) -> list[dict[str, Any]]:
    return (await search(client, query))["results"]  # type: ignore[no-any-return]


async def test_expansion_through_the_configured_model(project: Path) -> None:
    """``docs.expand`` on: the agent's model rewrites the question (multi-query and HyDE),
    the rewrites find the section, and both calls are in the folder's ledger."""
    with ScriptedModelServer() as model:
        def answer(body: dict[str, Any]) -> Reply:  # the two requests go out together
            hyde = "paragraph" in body["messages"][0]["content"]
            return say("Deploys put the files behind a CDN with a long cache lifetime."
                       if hyde else "rollout cache lifetime\nCDN caching")

        model.push(answer, answer)
        options = {"agent": {"model": "scripted-model", "baseUrl": model.base_url,
                             "apiKey": "test"}, "docs": {"expand": "both"}}
        async with session(project, options=options) as client:
            found = await search(client, "where do the assets live after a rollout")
            assert found["results"][0]["heading"] == (
                "Deployment › Static files › Serving in production")
            assert found["expansions"] == [
                "rollout cache lifetime", "CDN caching",
                "Deploys put the files behind a CDN with a long cache lifetime."]
            report = await request(client, "codekeep/ledger/report", {"groupBy": "type"})
            assert [(row["key"], row["calls"]) for row in report["rows"]] == [("other", 2)]
            plain = await search(client, "where do the assets live after a rollout",
                                 expand="off")
            assert "expansions" not in plain and len(model.requests) == 2
