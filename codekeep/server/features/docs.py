"""The knowledge base over LSP, plus where the docs show up next to the code.

* ``codekeep/docs/search`` ``{query, limit?, uri?, focus?: uri[], expand?}`` (also the
  command ``codekeep.docs.search``) -> ``{results: [{path, uri, heading, startLine,
  endLine, text, score}], reason?, expansions?, expansionError?}``, best first, lines
  1-based and inclusive. Every folder is searched (``uri`` picks one); ``focus`` files'
  symbols lift the chunks naming them. ``expand`` (default: the ``docs.expand``
  setting, ``off``) has the agent's model rewrite the question first — multi-query,
  HyDE or both, recorded in the ledger; the rewrites used come back as ``expansions``,
  and a model that is not configured or fails is ``expansionError`` (the search is then
  lexical). An empty query, a ``limit`` outside 1..200 or an unknown ``expand`` is
  InvalidParams; a query of only common words is an empty result with a ``reason``.
* Hover on a symbol adds "Documented in docs/deploy.md › Static files" (links that
  open the section); ``codekeep/findRelated`` carries ``documentedIn`` (codemap feature).
* A saved doc file is re-chunked at once; changes on disk come through the watcher.
"""

from __future__ import annotations

import asyncio
import functools
from pathlib import Path
from typing import Any

from codekeep.agent.docs_expansion import Expanded, expand_question
from codekeep.agent.model_client import ModelClient
from codekeep.analysis.codemap import CodeMap
from codekeep.analysis.model import Symbol
from codekeep.common.uris import path_to_uri
from codekeep.docs import DocsError, DocsIndex
from codekeep.docs.service import DEFAULT_LIMIT, MAX_LIMIT
from codekeep.hosting.workspaces import WorkspaceHandle
from codekeep.server import params as p
from codekeep.server.app import CodeKeepServer
from codekeep.server.extensions import custom_request
from codekeep.server.features.codemap import every_folder
from codekeep.services import WorkspaceServices
from codekeep.settings import Settings
from codekeep.settings.agent import ModelNotConfigured
from codekeep.settings.docs import Expansion, expansion

HOVER_LINKS = 3


def documented_in(services: WorkspaceServices, symbol: Symbol) -> str | None:
    links = services.docs.links(symbol, HOVER_LINKS)
    if not links:
        return None
    shown = ", ".join(
        f"[{link.label()}]({path_to_uri(services.root / link.path)}#L{link.start_line})"
        for link in links
    )
    return f"Documented in {shown}"


def _focus(ls: CodeKeepServer, handle: WorkspaceHandle | None, uris: list[str]) -> list[str]:
    paths = []
    for uri in uris:
        located = ls.locate(uri)
        if located is None or (handle is not None and located[0] is not handle):
            raise p.InvalidParams(f"focus {uri} is not inside the searched workspace folder")
        paths.append(located[1])
    return paths


async def search(ls: CodeKeepServer, params: dict[str, Any]) -> dict[str, Any]:
    query = p.required_str(params, "query")
    if not query.strip():
        raise p.InvalidParams("'query' is empty; ask a question or give some words")
    limit = p.optional_int(params, "limit", minimum=1, maximum=MAX_LIMIT) or DEFAULT_LIMIT
    chosen = _chosen(ls, p.optional_str(params, "uri"))
    focus_uris = p.optional_str_list(params, "focus")
    try:
        mode = expansion(params.get("expand") or _settings(ls, chosen).docs.expand)
    except ValueError as error:
        raise p.InvalidParams(str(error)) from None
    expanded = await _expand(ls, query, mode, chosen)
    ask = functools.partial(_ask, query, limit, expanded)
    # The search embeds the question: it runs on a thread of its own, not the folder's
    # worker (the knowledge base and the code map are thread-safe), so keystrokes and
    # code-map requests never wait for the embeddings endpoint.
    stores = await every_folder(ls, lambda services: (services.docs, services.codemap))
    answers = await asyncio.gather(*(
        asyncio.to_thread(ask, handle.root, docs, codemap,
                          _focus(ls, handle, focus_uris) if focus_uris else [])
        for handle, (docs, codemap) in stores if chosen is None or handle is chosen))
    return _reply(answers, limit, expanded)


def _chosen(ls: CodeKeepServer, uri: str | None) -> WorkspaceHandle | None:
    """The folder holding ``uri`` (None: search every folder)."""
    if uri is None:
        return None
    located = ls.locate(uri)
    if located is None:
        raise p.InvalidParams(f"{uri} is not inside any workspace folder")
    return located[0]


def _ask(query: str, limit: int, expanded: Expanded, root: Path, docs: DocsIndex,
         codemap: CodeMap, focus: list[str]) -> dict[str, Any]:
    """One folder's answer (off the worker: the question's embedding may take a while)."""
    try:
        outcome = docs.search(query, limit, codemap=codemap, focus=focus,
                              expansions=expanded.queries, passages=expanded.passages)
    except DocsError as error:
        raise p.InvalidParams(str(error)) from error
    return outcome.to_json(root)


def _reply(answers: list[dict[str, Any]], limit: int, expanded: Expanded) -> dict[str, Any]:
    """The folders' answers as one: one folder keeps its own order (pages interleaved);
    several merge by score."""
    results = [r for a in answers for r in a["results"]]
    if len(answers) > 1:
        results.sort(key=lambda r: -r["score"])
    reply: dict[str, Any] = {"results": results[:limit]}
    if not results:
        reasons = [a["reason"] for a in answers if a.get("reason")]
        reply["reason"] = reasons[0] if reasons else "no workspace folder has docs"
    if expanded.texts:
        reply["expansions"] = expanded.texts
    if expanded.errors:
        reply["expansionError"] = "; ".join(expanded.errors)
    return reply


async def _expand(ls: CodeKeepServer, query: str, mode: Expansion,
                  handle: WorkspaceHandle | None) -> Expanded:
    """The model's rewrites of ``query`` (recorded in the folder's ledger), or why none."""
    if mode == "off":
        return Expanded()
    target = _folder(ls, handle)
    model = _settings(ls, handle).agent
    try:
        model.require_model()
    except ModelNotConfigured as error:
        return Expanded(errors=[str(error)])
    ledger = await target.run(lambda services: services.ledger) if target else None
    async with ModelClient(model) as client:
        return await expand_question(query, mode, client, ledger)


def _folder(ls: CodeKeepServer, chosen: WorkspaceHandle | None) -> WorkspaceHandle | None:
    """The folder whose settings a search follows: the one asked about, else the first."""
    return chosen or next(iter(ls.workspaces), None)


def _settings(ls: CodeKeepServer, chosen: WorkspaceHandle | None) -> Settings:
    handle = _folder(ls, chosen)
    return handle.settings if handle is not None else Settings()


def rechunk_saved(services: WorkspaceServices, path: str) -> None:
    """The saved text is on disk: re-chunk it (nothing happens for files not docs)."""
    services.docs.refresh_file(path)


def register(server: CodeKeepServer) -> None:
    custom_request(server, "docs/search")(search)
    server.contributions.hover.append(documented_in)
    server.contributions.saved.append(rechunk_saved)
