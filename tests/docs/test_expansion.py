"""Multi-query expansion and HyDE against the scripted OpenAI-compatible endpoint on
127.0.0.1: the rewrites find the page the question's own words miss, every model call
is in the ledger, a failing or missing model leaves the search lexical and says so
(library, ``codekeep docs search --expand``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from codekeep.agent.docs_expansion import expand_question
from codekeep.agent.model_client import ModelClient
from codekeep.docs import DocsIndex, DocsSettings
from codekeep.ledger import Ledger
from codekeep.settings.agent import ModelSettings
from codekeep.settings.docs import DocsEmbeddingSettings
from codekeep.testing.embeddings_server import ConceptEmbeddingServer
from codekeep.testing.scripted_server import (
    Reply,
    Responder,
    ScriptedModelServer,
    http_error,
    say,
)

MIDDLEWARE = (
    "Middleware\n==========\n\nA middleware is a hook into request and response processing: "
    "each one wraps the view and runs before and after it.\n"
)
QUESTION = "run something around every page the app serves"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "middleware.rst").write_text(MIDDLEWARE, encoding="utf-8")
    (tmp_path / "docs" / "pages.md").write_text("# Pages\n\nEvery page has a title.\n")
    return tmp_path


@pytest.fixture
def model_server() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer() as server:
        yield server


def client_for(server: ScriptedModelServer) -> ModelClient:
    return ModelClient(ModelSettings(model="scripted-model", base_url=server.base_url,
                                     api_key="test", max_retries=0, stream=False))


def by_prompt(queries: str, passage: str, together: threading.Barrier) -> Responder:
    """Answers each strategy by its system prompt, and only once both requests have
    arrived: expansions asked one after the other break the barrier (HTTP 500)."""

    def answer(body: dict[str, Any]) -> Reply:
        together.wait()
        return say(passage if "paragraph" in body["messages"][0]["content"] else queries)

    return answer


async def test_rewrites_find_what_the_question_misses_and_are_in_the_ledger(
    root: Path, model_server: ScriptedModelServer
) -> None:
    together = threading.Barrier(2, timeout=30)
    answer = by_prompt("1. middleware before view\n2. request response hook\n"
                       "3. wrap every view\n4. a fourth is dropped",
                       "Write a middleware: it runs before and after each view.", together)
    model_server.push(answer, answer)
    with Ledger.open(root) as ledger, DocsIndex.open(root) as docs:
        docs.index()
        plain = [hit.path for hit in docs.search(QUESTION).hits]
        assert "docs/middleware.rst" not in plain[:1]
        async with client_for(model_server) as client:
            expanded = await expand_question(QUESTION, "both", client, ledger, "task-7")
        assert expanded.errors == []  # both requests were in flight at once
        assert model_server.most_at_once == 2
        assert expanded.queries == [
            "middleware before view", "request response hook", "wrap every view"]
        assert expanded.passages == ["Write a middleware: it runs before and after each view."]
        found = docs.search(QUESTION, expansions=expanded.queries,
                            passages=expanded.passages).hits
        assert found[0].path == "docs/middleware.rst"
        ledger.flush()
        rows = ledger.report(group_by="type")["rows"]
        tasks = ledger.report(group_by="task")["rows"]
    assert [(row["key"], row["calls"]) for row in rows] == [("other", 2)]
    assert [(row["key"], row["calls"]) for row in tasks] == [("task-7", 2)]  # the task's bill
    system = [request["messages"][0]["content"] for request in model_server.requests]
    assert sorted("paragraph" in prompt for prompt in system) == [False, True]
    assert any("search queries" in prompt for prompt in system)
    assert {request["messages"][1]["content"] for request in model_server.requests} == {
        QUESTION}


def test_a_hyde_passage_is_embedded_not_searched_by_its_words(root: Path) -> None:
    question = "what intercepts everything"  # no word of either page
    guess = "Every page has a title."  # the words of pages.md, the meaning of neither
    with DocsIndex.open(root) as lexical:
        lexical.index()
        assert lexical.search(question).hits == []
        assert lexical.search(question, expansions=[guess]).hits[0].path == "docs/pages.md"
        assert lexical.search(question, passages=[guess]).hits == []  # never BM25-searched
    passage = "An interceptor is a hook into each request."
    with ConceptEmbeddingServer([{"interceptor", "middleware", "hook"}]) as endpoint:
        settings = DocsSettings(embeddings=DocsEmbeddingSettings(url=endpoint.base_url,
                                                                 model="concepts"))
        with DocsIndex.open(root, settings=settings) as index:
            index.index(embed="now")
            before = {hit.path: hit.score for hit in index.search(question).hits}
            after = {hit.path: hit.score for hit in index.search(question,
                                                                  passages=[passage]).hits}
        asked = [text for request in endpoint.requests for text in request["input"]]
    assert passage in asked  # embedded with the question, in one request
    assert asked[-2:] == [question, passage]
    assert after["docs/middleware.rst"] > before["docs/middleware.rst"]
    assert next(iter(after)) == "docs/middleware.rst"


async def test_a_failing_model_leaves_the_search_lexical(
    root: Path, model_server: ScriptedModelServer
) -> None:
    model_server.push(http_error(500, "down"))
    with Ledger.open(root) as ledger:
        async with client_for(model_server) as client:
            expanded = await expand_question(QUESTION, "hyde", client, ledger)
        ledger.flush()
        report = ledger.report(group_by="type")
    assert expanded.texts == [] and "hyde" in expanded.errors[0]
    assert report["rows"][0]["calls"] == 1 and report["total"]["inputTokens"] == 0  # billed nothing


def codekeep(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items()
             if not k.startswith("CODEKEEP_") and k != "OPENAI_API_KEY"}
    return subprocess.run([sys.executable, "-m", "codekeep", *args], capture_output=True,
                          text=True, env={**clean, **env}, timeout=60)


@pytest.mark.slow
def test_cli_expand(root: Path, model_server: ScriptedModelServer) -> None:
    answer = by_prompt("middleware hook\nwrap the view",
                       "A middleware wraps each view, before and after it.",
                       threading.Barrier(2, timeout=30))
    model_server.push(answer, answer)
    env = {"CODEKEEP_MODEL": "scripted-model", "CODEKEEP_BASE_URL": model_server.base_url}
    done = codekeep("docs", "search", QUESTION, "--expand", "both", "--json",
                    "--root", str(root), env=env)
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert payload["results"][0]["path"] == "docs/middleware.rst"
    assert payload["expansions"] == [
        "middleware hook", "wrap the view", "A middleware wraps each view, before and after it."]
    report = codekeep("ledger", "report", "--json", "--root", str(root), env=env)
    assert json.loads(report.stdout)["total"]["calls"] == 2
    no_model = codekeep("docs", "search", "middleware", "--expand", "hyde", "--root", str(root),
                        env={})
    assert no_model.returncode == 0 and "--expand needs a model" in no_model.stderr
    bad = codekeep("docs", "search", "middleware", "--expand", "sideways", "--root", str(root),
                   env={})
    assert bad.returncode == 1 and "--expand must be one of off, multi-query" in bad.stderr
