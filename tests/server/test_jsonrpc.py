"""Every request gets an answer: JSON-RPC 2.0 and LSP answering rules, checked over raw
stdio against the real server (malformed envelopes, params of every wrong shape for
every method, odd ids, batches, the lifecycle before ``initialize`` and after
``shutdown``)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import attrs
import pytest
import pytest_asyncio
from lsprotocol import types

from codekeep.common.uris import path_to_uri
from codekeep.server.app import create_server
from tests.server.lsp_harness import write_project
from tests.server.raw_client import RawServer

pytestmark = pytest.mark.asyncio(loop_scope="module")

INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
PARSE_ERROR = -32700


def initialize(root: Path) -> dict[str, Any]:
    return {
        "processId": None,
        "rootUri": path_to_uri(root),
        "capabilities": {},
        "workspaceFolders": [{"uri": path_to_uri(root), "name": root.name}],
    }


async def ready(server: RawServer) -> None:
    for _ in range(400):
        status = await server.call("codekeep/indexStatus", {}, msg_id="ready?")
        if status["result"]["ready"]:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the index never became ready")


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_project(tmp_path_factory.mktemp("jsonrpc"))


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def server(project: Path) -> AsyncIterator[RawServer]:
    raw = await RawServer.start()
    await raw.call("initialize", initialize(project))
    raw.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    await ready(raw)
    yield raw
    assert await raw.close() == 0


def geometry(project: Path) -> str:
    return path_to_uri(project / "pkg" / "geometry.py")


def error_of(response: dict[str, Any], code: int) -> str:
    assert "result" not in response, response
    assert response["error"]["code"] == code, response
    return str(response["error"]["message"])


async def assert_alive(server: RawServer) -> None:
    found = await server.call("codekeep/findSymbol", {"name": "Circle"}, msg_id="alive")
    assert [s["name"] for s in found["result"]["symbols"]] == ["Circle"]


@pytest.mark.parametrize("method", ["textDocument/definition", "textDocument/hover"])
@pytest.mark.parametrize(("field", "position"), [
    ("line", {"line": -1, "character": 0}),
    ("character", {"line": 3, "character": -4}),
])
async def test_a_negative_position_is_refused_naming_the_field(
    server: RawServer, project: Path, method: str, field: str, position: dict[str, int]
) -> None:
    params = {"textDocument": {"uri": geometry(project)}, "position": position}
    message = error_of(await server.call(method, params), INVALID_PARAMS)
    assert "'params.position'" in message and f"Position.{field}" in message, message
    await assert_alive(server)


async def test_a_custom_request_without_params_names_the_missing_field(
    server: RawServer,
) -> None:
    message = error_of(await server.call("codekeep/findSymbol"), INVALID_PARAMS)
    assert "'name' must be a non-empty string" in message
    await assert_alive(server)


async def test_extra_keys_are_accepted(server: RawServer, project: Path) -> None:
    params = {
        "textDocument": {"uri": path_to_uri(project / "pkg" / "app.py"), "futureField": 1},
        "position": {"line": 4, "character": 16, "alsoNew": True},  # a use of Circle
        "somethingElse": [1, 2],
    }
    response = await server.call("textDocument/definition", params)
    [target] = response["result"] if isinstance(response["result"], list) else [
        response["result"]]
    assert target["uri"] == geometry(project)
    assert target["range"]["start"]["line"] == 12  # class Circle
    found = await server.call("codekeep/findSymbol", {"name": "Circle", "newOption": "x"})
    assert [s["name"] for s in found["result"]["symbols"]] == ["Circle"]


def request_methods() -> list[str]:
    """Every request the server registers (standard and custom), without the lifecycle
    requests, which get their own tests."""

    def is_request(method: str) -> bool:
        known = types.METHOD_TO_TYPES.get(method)
        return known is None or "id" in attrs.fields_dict(known[0])

    features = create_server().protocol.fm.features
    requests = {method for method in features if is_request(method)}
    return sorted(requests - {types.SHUTDOWN} | {types.WORKSPACE_EXECUTE_COMMAND})


WRONG_PARAMS: list[Any] = [None, [], [1, 2], "text", 5, True, {"unexpected": {"deep": 1}}]
OMITTED = object()


@pytest.mark.parametrize("method", request_methods())
async def test_every_request_gets_an_answer_whatever_its_params(
    server: RawServer, method: str
) -> None:
    """Each request method with params missing, null, arrays, scalars and objects of the
    wrong shape: an answer each time — an Invalid params error naming a field, or a
    result (an empty one where there is nothing to say) — never silence."""
    for index, params in enumerate([OMITTED, *WRONG_PARAMS]):
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": index, "method": method}
        if params is not OMITTED:
            message["params"] = params
        server.send(message)
        response = await server.answer()
        assert response["id"] == index, (method, params, response)
        if "error" in response:
            assert response["error"]["code"] in (INVALID_PARAMS, -32803), (method, params)
            assert "'" in response["error"]["message"], response  # names a field
        else:
            assert "result" in response, response
    await assert_alive(server)


@pytest.mark.parametrize("msg_id", [None, "a string id", 0, 2**40])
async def test_ids_are_echoed_whatever_their_kind(server: RawServer, msg_id: Any) -> None:
    response = await server.call("codekeep/findSymbol", {"name": "Circle"}, msg_id=msg_id)
    assert response["id"] == msg_id
    assert [s["name"] for s in response["result"]["symbols"]] == ["Circle"]


@pytest.mark.parametrize("msg_id", [1.5, True, {"n": 1}, [1]])
async def test_an_id_of_the_wrong_kind_is_an_invalid_request(
    server: RawServer, msg_id: Any
) -> None:
    server.send({"jsonrpc": "2.0", "id": msg_id, "method": "codekeep/findSymbol",
                 "params": {"name": "Circle"}})
    response = await server.answer()
    assert response["id"] is None
    assert "'id'" in error_of(response, INVALID_REQUEST)


@pytest.mark.parametrize(("message", "code", "says"), [
    ({"id": 7, "method": "codekeep/indexStatus"}, INVALID_REQUEST, "'jsonrpc'"),
    ({"jsonrpc": "1.0", "id": 7, "method": "codekeep/indexStatus"}, INVALID_REQUEST,
     "'jsonrpc'"),
    ({"jsonrpc": "2.0", "id": 7}, INVALID_REQUEST, "'method'"),
    ({"jsonrpc": "2.0", "id": 7, "method": 12}, INVALID_REQUEST, "'method'"),
    ({"jsonrpc": "2.0", "id": 7, "method": "textDocument/didSave", "params": {}},
     INVALID_REQUEST, "notification"),
    ({"jsonrpc": "2.0", "id": 7, "method": "no/suchMethod"}, METHOD_NOT_FOUND, "no/such"),
])
async def test_malformed_envelopes_are_answered(
    server: RawServer, message: dict[str, Any], code: int, says: str
) -> None:
    server.send(message)
    response = await server.answer()
    assert response["id"] == 7
    assert says in error_of(response, code)
    await assert_alive(server)


@pytest.mark.parametrize("body", [b"{not json", b"\xff\xfe", b'{"jsonrpc": "2.0", "id": 3,'])
async def test_a_body_that_is_not_json_is_a_parse_error(server: RawServer, body: bytes) -> None:
    server.send_bytes(body)
    response = await server.answer()
    assert response["id"] is None
    error_of(response, PARSE_ERROR)
    await assert_alive(server)


@pytest.mark.parametrize("message", [5, "text", None])
async def test_a_message_that_is_not_an_object_is_an_invalid_request(
    server: RawServer, message: Any
) -> None:
    server.send(message)
    response = await server.answer()
    assert response["id"] is None
    error_of(response, INVALID_REQUEST)


async def test_a_batch_gets_one_array_of_answers(server: RawServer) -> None:
    server.send([
        {"jsonrpc": "2.0", "id": "b1", "method": "codekeep/findSymbol",
         "params": {"name": "Circle"}},
        {"jsonrpc": "2.0", "method": "$/setTrace", "params": {"value": "off"}},
        {"jsonrpc": "2.0", "id": "b2", "method": "codekeep/findSymbol", "params": {}},
        "not a request",
        {"jsonrpc": "2.0", "id": "b3", "method": "codekeep/searchSymbols",
         "params": {"query": "area"}},
    ])
    answers = await server.answer()
    assert isinstance(answers, list) and len(answers) == 4, answers
    by_id = {answer["id"]: answer for answer in answers}
    assert [s["name"] for s in by_id["b1"]["result"]["symbols"]] == ["Circle"]
    assert "'name'" in error_of(by_id["b2"], INVALID_PARAMS)
    error_of(by_id[None], INVALID_REQUEST)
    assert by_id["b3"]["result"]["symbols"]
    await assert_alive(server)


async def test_a_batch_of_notifications_gets_no_answer(server: RawServer) -> None:
    server.send([{"jsonrpc": "2.0", "method": "$/setTrace", "params": {"value": "off"}}] * 2)
    await assert_alive(server)  # the next answer is the alive check's, not an array
    assert server.quiet()


async def test_an_empty_batch_is_one_invalid_request(server: RawServer) -> None:
    server.send([])
    response = await server.answer()
    assert response["id"] is None
    error_of(response, INVALID_REQUEST)


async def test_requests_before_initialize_and_after_shutdown(project: Path) -> None:
    raw = await RawServer.start()
    try:
        early = await raw.call("codekeep/findSymbol", {"name": "Circle"}, msg_id=1)
        assert "initialize" in error_of(early, -32002)
        raw.send({"jsonrpc": "2.0", "method": "textDocument/didSave",
                  "params": {"textDocument": {"uri": geometry(project)}}})  # dropped
        await raw.call("initialize", initialize(project), msg_id=2)
        raw.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        await ready(raw)
        assert (await raw.call("shutdown", msg_id=3))["result"] is None
        late = await raw.call("codekeep/findSymbol", {"name": "Circle"}, msg_id=4)
        assert "shut down" in error_of(late, INVALID_REQUEST)
        late_standard = await raw.call(
            "textDocument/hover",
            {"textDocument": {"uri": geometry(project)}, "position": {"line": 0,
                                                                     "character": 0}},
            msg_id=5,
        )
        error_of(late_standard, INVALID_REQUEST)
        raw.send({"jsonrpc": "2.0", "method": "exit"})
        assert await asyncio.wait_for(raw.process.wait(), 30) == 0
    finally:
        await raw.close()


@pytest.mark.parametrize("method", ["textDocument/definition", "textDocument/hover"])
async def test_positions_past_the_end_and_unknown_files_answer_nothing(
    server: RawServer, project: Path, method: str
) -> None:
    """In range for the protocol but not for the document: ``null`` ("nothing here"),
    the answer editors expect for every buffer they ask about."""
    for uri, line in ((geometry(project), 10**6), (path_to_uri(project / "nowhere.py"), 0),
                      ("file:///outside/every/folder.py", 0)):
        params = {"textDocument": {"uri": uri}, "position": {"line": line, "character": 9}}
        assert (await server.call(method, params))["result"] is None


async def test_codekeep_serve_accepts_stdio(project: Path) -> None:
    """Many clients always pass ``--stdio``; it is the default transport."""
    raw = await RawServer.start([sys.executable, "-m", "codekeep", "serve", "--stdio"])
    try:
        answer = await raw.call("initialize", initialize(project))
        assert answer["result"]["serverInfo"]["name"] == "codekeep"
    finally:
        assert await raw.close() == 0
    both = subprocess.run([sys.executable, "-m", "codekeep", "serve", "--stdio", "--tcp",
                           "127.0.0.1:1"], capture_output=True, text=True, timeout=60)
    assert both.returncode == 2 and "not allowed with" in both.stderr
