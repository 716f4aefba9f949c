"""A slow embeddings endpoint never holds up the folder's worker: while a memory recall
or a docs search waits on it, a keystroke is applied and the code map answers with the
new symbol; the recall then comes back lexically, saying why, and the search lexically.
A prompt endpoint still ranks by embeddings."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from pytest_lsp import LanguageClient

from codekeep.testing.embeddings_server import ConceptEmbeddingServer
from codekeep.testing.scripted_server import ScriptedModelServer, call, say
from tests.server.lsp_harness import (
    change_document,
    open_document,
    request,
    save_document,
    session,
    wait_until,
)

# Starts real processes (the server over stdio, the codekeep command, pip, a host's CLI).
pytestmark = pytest.mark.slow

SLOW = 6.0  # the endpoint's delay, well beyond the recall's timeout
TIMEOUT = 3.0


async def held_by(endpoint: ConceptEmbeddingServer, asked: int) -> None:
    """Return once the endpoint has received a request beyond its first ``asked``."""
    while len(endpoint.requests) == asked:
        await asyncio.sleep(0.02)


async def type_and_find(lsp: LanguageClient, uri: str, version: int, name: str) -> None:
    """A keystroke that adds ``def name()``, then the code map must answer with it."""
    change_document(lsp, uri, version, f"\ndef {name}():\n    pass\n", (2, 0))
    found = await request(lsp, "codekeep/findSymbol", {"name": name})
    assert [s["name"] for s in found["symbols"]] == [name]


async def test_a_keystroke_does_not_wait_for_a_slow_embeddings_endpoint(tmp_path: Path) -> None:
    (tmp_path / "fleet.py").write_text("def park(car):\n    return car\n", encoding="utf-8")
    with ConceptEmbeddingServer([{"car", "automobile"}]) as endpoint:
        configuration = {"codekeep": {"memory": {"embeddings": {
            "url": endpoint.base_url, "timeout": TIMEOUT}}}}
        async with session(tmp_path, configuration=configuration) as lsp:
            written = await request(lsp, "codekeep/memory/remember",
                                    {"content": "Automobile records live in the fleet table"})
            assert written["action"] == "ADD"
            assert endpoint.requests == []  # a write never calls the endpoint

            # prompt endpoint: the recall embeds the memory with the query and ranks by it
            semantic = await request(lsp, "codekeep/memory/recall", {"query": "car"})
            assert semantic["relevance"] == "embeddings"
            assert [m["id"] for m in semantic["memories"]] == [written["id"]]

            endpoint.delay = SLOW
            asked = len(endpoint.requests)
            recall = asyncio.create_task(
                request(lsp, "codekeep/memory/recall", {"query": "fleet table"}))
            await held_by(endpoint, asked)  # the recall is now waiting on the endpoint

            await type_and_find(lsp, open_document(lsp, tmp_path / "fleet.py"), 2, "tow_truck")
            assert not recall.done()  # answered while the recall still waits on the network

            lexical = await recall
            assert lexical["relevance"] == "lexical"
            assert lexical["embeddingsUnavailable"]  # why: no answer within the timeout
            assert [m["id"] for m in lexical["memories"]] == [written["id"]]


async def test_a_keystroke_does_not_wait_for_a_docs_search_on_a_slow_endpoint(
    tmp_path: Path,
) -> None:
    (tmp_path / "fleet.py").write_text("def park(car):\n    return car\n", encoding="utf-8")
    (tmp_path / "guide.md").write_text(
        "# Parking\n\nAutomobile parking rules for the depot.\n", encoding="utf-8")
    with ConceptEmbeddingServer([{"car", "automobile"}]) as endpoint:
        configuration = {"codekeep": {"docs": {"embeddings": {
            "url": endpoint.base_url, "timeout": TIMEOUT}}}}
        async with session(tmp_path, configuration=configuration) as lsp:

            async def found(query: str) -> list[dict]:
                answer = await request(lsp, "codekeep/docs/search", {"query": query})
                return answer["results"]  # type: ignore[no-any-return]

            # the chunk was embedded after indexing: "car" finds it by embeddings alone
            await wait_until(lambda: found("car"))

            endpoint.delay = SLOW
            asked = len(endpoint.requests)
            search = asyncio.create_task(found("depot parking"))
            await held_by(endpoint, asked)  # the search now waits on the endpoint

            await type_and_find(lsp, open_document(lsp, tmp_path / "fleet.py"), 2, "tow_truck")
            assert not search.done()  # answered while the search still waits on the network

            (hit, *_) = await search  # lexical once the endpoint timed out
            assert "Parking" in str(hit["heading"])


def agent_settings(endpoint: ConceptEmbeddingServer, model: ScriptedModelServer) -> dict[str, Any]:
    """The agent on the scripted model, memory on the embeddings endpoint."""
    return {"codekeep": {
        "memory": {"embeddings": {"url": endpoint.base_url, "timeout": 30},
                   "modelSummaries": False},
        "agent": {"model": "scripted-model", "baseUrl": model.base_url, "apiKey": "test"}}}


async def test_the_agents_recall_does_not_hold_up_keystrokes_on_a_slow_endpoint(
    tmp_path: Path,
) -> None:
    """The agent's memory context at the start of a task and its ``recall`` tool both
    embed the query; both requests go off the folder's worker, so keystrokes are applied
    and answered while the endpoint still sits on them, and the tool's recall then ranks
    by the embeddings it was handed."""
    (tmp_path / "fleet.py").write_text("def park(car):\n    return car\n", encoding="utf-8")
    task = "Where do automobile records live?"
    with ConceptEmbeddingServer([{"car", "automobile"}]) as endpoint, \
            ScriptedModelServer() as model:
        async with session(tmp_path, configuration=agent_settings(endpoint, model)) as lsp:
            written = await request(lsp, "codekeep/memory/remember",
                                    {"content": "Automobile records live in the fleet table"})
            uri = open_document(lsp, tmp_path / "fleet.py")
            model.push(call("recall", {"query": "car"}), say("In the fleet table."))
            endpoint.delay = 2.0  # slow, yet within the timeout: the answer is used

            async def asked(query: str) -> None:
                while not any(r["input"][0] == query for r in endpoint.requests):
                    await asyncio.sleep(0.02)

            async def typed_while_held(query: str, version: int, name: str) -> None:
                await asyncio.wait_for(asked(query), 30)
                answered = endpoint.answered
                await type_and_find(lsp, uri, version, name)
                assert endpoint.answered == answered  # the endpoint still sits on it

            run = asyncio.create_task(request(lsp, "codekeep/agent/run", {"task": task}))
            await typed_while_held(task, 2, "tow_truck")  # the task's memory context
            await typed_while_held("car", 3, "crane")  # the recall tool

            answer = await run
            assert "fleet table" in answer["answer"]
            (tool_message,) = model.tool_messages(1)
            # "car" shares no word with the memory: only its embedding finds it
            assert written["id"] in tool_message["content"]


async def test_a_recall_answered_from_the_tool_cache_sends_no_embeddings(
    tmp_path: Path,
) -> None:
    """The agent's second identical ``recall`` is answered by the pipeline's cache (its
    first result is still in the context): the endpoint is asked for that query once."""
    (tmp_path / "fleet.py").write_text("def park(car):\n    return car\n", encoding="utf-8")
    with ConceptEmbeddingServer([{"car", "automobile"}]) as endpoint, \
            ScriptedModelServer() as model:
        async with session(tmp_path, configuration=agent_settings(endpoint, model)) as lsp:
            await request(lsp, "codekeep/memory/remember",
                          {"content": "Automobile records live in the fleet table"})
            model.push(call("recall", {"query": "car"}), call("recall", {"query": "car"}),
                       say("In the fleet table."))
            answer = await request(lsp, "codekeep/agent/run", {"task": "Where are cars?"})
            assert "fleet table" in answer["answer"]
            _first, second = model.tool_messages(2)
            assert "already in your context" in second["content"]
            assert [r["input"][0] for r in endpoint.requests].count("car") == 1


async def test_a_saved_page_is_embedded_off_the_worker(tmp_path: Path) -> None:
    """Saving a doc page re-chunks it on the worker (the next search sees the new text)
    but embeds its new chunks on the knowledge base's own thread: while that waits on a
    slow endpoint, keystrokes are applied and answered."""
    (tmp_path / "fleet.py").write_text("def park(car):\n    return car\n", encoding="utf-8")
    guide = tmp_path / "guide.md"
    guide.write_text("# Parking\n\nAutomobile parking rules for the depot.\n", encoding="utf-8")
    with ConceptEmbeddingServer([{"car", "automobile"}, {"truck", "lorry"}]) as endpoint:
        configuration = {"codekeep": {"docs": {"embeddings": {
            "url": endpoint.base_url, "timeout": SLOW * 2}}}}
        async with session(tmp_path, configuration=configuration) as lsp:

            async def headings(query: str) -> list[str]:
                answer = await request(lsp, "codekeep/docs/search", {"query": query})
                return [str(hit["heading"]) for hit in answer["results"]]

            await wait_until(lambda: headings("car"))  # the first index was embedded

            endpoint.delay = SLOW
            asked, answered = len(endpoint.requests), endpoint.answered
            save_document(lsp, guide, guide.read_text(encoding="utf-8")
                          + "\n## Towing\n\nA lorry collects what is left overnight.\n")
            await held_by(endpoint, asked)  # the new chunk is being embedded
            assert "lorry" in " ".join(endpoint.requests[-1]["input"])

            await type_and_find(lsp, open_document(lsp, tmp_path / "fleet.py"), 2, "tow_truck")
            assert endpoint.answered == answered  # the embedding still waits on the network

            endpoint.delay = 0.0  # once embedded, the new section is found by meaning alone

            async def towing_found() -> bool:
                return "Parking › Towing" in await headings("truck")

            await wait_until(towing_found)
