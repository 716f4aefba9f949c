"""The ``codekeep/*`` code-map requests of docs/server.md (each also a ``codekeep.<name>``
command): findSymbol, findReferences, findRelated, searchSymbols, repoMap, indexStatus.

Multi-root: name-based queries ask every folder and merge; results carry URIs.
Positions are LSP positions in the negotiated encoding. A URI outside every folder, a
file the index does not hold (also as a ``repoMap`` focus) or a line past the end of a
document gives an empty result with a ``reason``; malformed params, including a
``limit`` below 1 (absent means the default), give a JSON-RPC InvalidParams error.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from typing import Any, TypeVar

from codekeep.analysis.errors import CodeMapError
from codekeep.analysis.model import Encoding, RepoMap, Symbol
from codekeep.common.uris import path_to_uri
from codekeep.hosting.heap import release_free_memory
from codekeep.hosting.workspaces import WorkspaceHandle, WorkspaceUnavailable
from codekeep.server import params as p
from codekeep.server.app import CodeKeepServer
from codekeep.server.extensions import CustomHandler, custom_request
from codekeep.server.features.navigation import references_of
from codekeep.server.symbols import cursor, symbols_at
from codekeep.services import WorkspaceServices

T = TypeVar("T")

DEFAULT_SEARCH_LIMIT = 50
DEFAULT_MAP_TOKENS = 1024
MAX_LIMIT = 10_000
MAX_MAP_TOKENS = 200_000


async def every_folder(
    server: CodeKeepServer, fn: Callable[[WorkspaceServices], T]
) -> list[tuple[WorkspaceHandle, T]]:
    """``fn`` on every usable folder (each on its own worker, concurrently).

    A folder whose stores could not be opened is left out (``indexStatus`` reports
    it) rather than failing the request for every other folder.
    """
    handles = list(server.workspaces)
    results = await asyncio.gather(*(handle.run(fn) for handle in handles), return_exceptions=True)
    usable = []
    for handle, result in zip(handles, results, strict=True):
        if isinstance(result, WorkspaceUnavailable):
            continue
        if isinstance(result, BaseException):
            raise result
        usable.append((handle, result))
    return usable


def not_found(reason: str, **empty: Any) -> dict[str, Any]:
    return {**empty, "reason": reason}


def outside(uri: str) -> str:
    return f"{uri} is not inside any workspace folder"


def past_end(uri: str, line: int) -> str:
    return f"{uri} has no line {line}"


def symbols_json(
    handle: WorkspaceHandle, symbols: list[Symbol], encoding: Encoding
) -> list[dict[str, Any]]:
    return [symbol.to_json(handle.root, encoding) for symbol in symbols]


async def find_symbol(ls: CodeKeepServer, params: dict[str, Any]) -> dict[str, Any]:
    name = p.required_str(params, "name")
    kind = p.optional_str(params, "kind")
    limit = p.optional_int(params, "limit", minimum=1, maximum=MAX_LIMIT)
    encoding = ls.encoding
    found = await every_folder(
        ls, lambda s: s.codemap.find_defined_or_inherited(name, kind, limit))
    symbols = [
        {**item, **({"inheritedBy": heirs[item["id"]]} if item["id"] in heirs else {})}
        for handle, (symbols, heirs) in found
        for item in symbols_json(handle, symbols, encoding)
    ]
    return {"symbols": symbols[:limit], "partial": partial(ls)}


async def find_references(ls: CodeKeepServer, params: dict[str, Any]) -> dict[str, Any]:
    limit = p.optional_int(params, "limit", minimum=1, maximum=MAX_LIMIT)
    offset = p.optional_int(params, "offset", minimum=0) or 0
    encoding = ls.encoding
    symbol_id = p.optional_str(params, "symbolId")
    name = p.optional_str(params, "name")
    if symbol_id is None and name is None:
        if offset:
            raise p.InvalidParams("'offset' pages the uses of a 'symbolId' or 'name'")
        return await references_at_position(ls, params, limit, encoding)
    if offset and len(ls.workspaces) > 1:
        raise p.InvalidParams("'offset' pages the uses within one workspace folder")
    found = await every_folder(
        ls, lambda s: s.codemap.find_references(symbol_id=symbol_id, name=name, limit=limit,
                                                offset=offset)
    )
    references = [
        ref.to_json(handle.root, encoding) for handle, (refs, _total) in found for ref in refs
    ]
    return {"references": references[:limit], "total": sum(total for _h, (_r, total) in found),
            "partial": partial(ls)}


async def references_at_position(
    ls: CodeKeepServer, params: dict[str, Any], limit: int | None, encoding: Encoding
) -> dict[str, Any]:
    if "uri" not in params:
        raise p.InvalidParams("give 'symbolId', 'name', or 'uri' with 'position'")
    uri = p.required_str(params, "uri")
    line, character = p.position(params)
    located = ls.locate(uri)
    if located is None:
        return not_found(outside(uri), references=[], total=0)
    handle, path = located

    def find(services: WorkspaceServices) -> dict[str, Any]:
        at = cursor(services.codemap, path, line, character, encoding)
        if at is None:
            return not_found(past_end(uri, line), references=[], total=0)
        targets = symbols_at(services.codemap, path, *at)
        if not targets:
            return not_found("no symbol at this position", references=[], total=0)
        refs, total = references_of(services, targets, limit)
        return {"references": [r.to_json(handle.root, encoding) for r in refs], "total": total}

    return {**await handle.run(find), "partial": partial(ls)}


async def find_related(ls: CodeKeepServer, params: dict[str, Any]) -> dict[str, Any]:
    uri = p.required_str(params, "uri")
    line, _character = p.position(params)  # validated; only the line matters here
    encoding = ls.encoding
    empty: dict[str, Any] = {"symbol": None, "calls": [], "calledBy": [], "related": [],
                             "documentedIn": []}
    located = ls.locate(uri)
    if located is None:
        return not_found(outside(uri), **empty)
    handle, path = located

    def relate(services: WorkspaceServices) -> dict[str, Any]:
        try:
            related = services.codemap.find_related(path, line)
        except CodeMapError as error:  # a file the index does not hold, a line past the end
            return not_found(str(error), **empty)
        links = services.docs.links(related.symbol) if related.symbol else []
        return {**related.to_json(handle.root, encoding),
                "documentedIn": [link.to_json(handle.root) for link in links]}

    return await handle.run(relate)


async def search_symbols(ls: CodeKeepServer, params: dict[str, Any]) -> dict[str, Any]:
    query = p.required_str(params, "query")
    limit = (
        p.optional_int(params, "limit", minimum=1, maximum=MAX_LIMIT) or DEFAULT_SEARCH_LIMIT
    )
    encoding = ls.encoding
    found = await every_folder(ls, lambda s: s.codemap.search_symbols(query, limit))
    scored = [
        {**symbol.to_json(handle.root, encoding), "score": round(score, 4)}
        for handle, results in found
        for symbol, score in results
    ]
    scored.sort(key=lambda item: -item["score"])
    return {"symbols": scored[:limit], "partial": partial(ls)}


async def repo_map(ls: CodeKeepServer, params: dict[str, Any]) -> dict[str, Any]:
    tokens = p.optional_int(params, "tokens", minimum=1, maximum=MAX_MAP_TOKENS)
    budget = tokens or DEFAULT_MAP_TOKENS
    empty: dict[str, Any] = {"text": "", "tokens": 0, "files": []}
    focus: dict[WorkspaceHandle, list[str]] = {}
    for uri in p.optional_str_list(params, "focus"):
        located = ls.locate(uri)
        if located is None:
            return not_found(f"focus: {outside(uri)}", **empty)
        focus.setdefault(located[0], []).append(located[1])
    handles = list(focus) or list(ls.workspaces)
    if not handles:
        return not_found("no workspace folder is open", **empty)
    share = max(1, budget // len(handles))
    try:
        maps = await asyncio.gather(
            *(
                handle.run(
                    functools.partial(map_of, budget=share, focus=focus.get(handle, []))
                )
                for handle in handles
            )
        )
    except CodeMapError as error:  # a focus file the index does not hold
        return not_found(f"focus: {error}", **empty)
    if len(handles) == 1:
        return maps[0].to_json()
    return {
        "text": "\n".join(
            f"# {h.root.name}\n{m.text}" for h, m in zip(handles, maps, strict=True)
        ),
        "tokens": sum(m.tokens for m in maps),
        "files": [
            f"{h.root.name}/{f}" for h, m in zip(handles, maps, strict=True) for f in m.files
        ],
    }


async def index_status(ls: CodeKeepServer, params: dict[str, Any]) -> dict[str, Any]:
    found = await every_folder(ls, lambda s: s.codemap.status())
    folders = []
    for handle, status in found:
        entry = status.to_json()
        # Ready only once the background index of this session has finished.
        entry["ready"] = bool(entry["ready"]) and handle.progress.ready
        entry.update(
            uri=path_to_uri(handle.root),
            indexed=handle.progress.done,
            toIndex=handle.progress.total,
            secondsLeft=_rounded(handle.progress.seconds_left()),
            error=handle.progress.error,
        )
        folders.append(entry)
    answered = {handle.root for handle, _status in found}
    broken = [
        {"uri": path_to_uri(handle.root), "ready": False, "error": handle.open_error}
        for handle in ls.workspaces
        if handle.root not in answered
    ]
    languages: dict[str, int] = {}
    for entry in folders:
        for language, count in entry["languages"].items():
            languages[language] = languages.get(language, 0) + count
    return {
        "files": sum(f["files"] for f in folders),
        "symbols": sum(f["symbols"] for f in folders),
        "references": sum(f["references"] for f in folders),
        "languages": languages,
        "pending": sum(f["pending"] for f in folders),
        "ready": bool(folders) and all(f["ready"] for f in folders),
        "indexed": sum(f["indexed"] for f in folders),
        "toIndex": sum(f["toIndex"] for f in folders),
        "secondsLeft": max((f["secondsLeft"] for f in folders if f["secondsLeft"] is not None),
                           default=None),
        "folders": folders + broken,
    }


def _rounded(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds, 1)


def partial(ls: CodeKeepServer) -> bool:
    """Is a folder's index still being built? Then an answer may miss what it has not
    reached yet, and says so (``partial: true``)."""
    return not all(handle.progress.ready for handle in ls.workspaces)


def map_of(services: WorkspaceServices, budget: int, focus: list[str]) -> RepoMap:
    try:
        return services.codemap.repo_map(budget, focus)
    finally:
        release_free_memory()  # a graph (re)build or a walk of many files churns memory


REQUESTS: tuple[tuple[str, CustomHandler], ...] = (
    ("findSymbol", find_symbol),
    ("findReferences", find_references),
    ("findRelated", find_related),
    ("searchSymbols", search_symbols),
    ("repoMap", repo_map),
    ("indexStatus", index_status),
)


def register(server: CodeKeepServer) -> None:
    for name, handler in REQUESTS:
        custom_request(server, name)(handler)
