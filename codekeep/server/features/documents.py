"""Document sync: the editor's buffers become the code map's truth, edit by edit.

Every handler only *queues* work on the folder's worker thread, in arrival order, so
a request that follows a ``didChange`` is answered after the edit is applied, and the
event loop stays free for the next keystroke.

A ``didChange`` re-parses the buffer and leaves its facts owed (``defer``): the
extraction and the index write happen once the editor has been quiet for
:data:`SETTLE_AFTER_S` (the requests that follow a keystroke are answered first, from
the new tree), so they cost the keystroke's answer nothing (see ``CodeMap.settle``).
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Sequence

from lsprotocol import types

from codekeep.analysis.buffers import Edit
from codekeep.hosting.workspaces import WorkspaceHandle
from codekeep.server.app import CodeKeepServer, run_hooks
from codekeep.services import WorkspaceServices

logger = logging.getLogger(__name__)

# Quiet time after the last keystroke, with the folder's worker idle (no request queued,
# running or unanswered), before the owed facts are extracted and stored: longer than
# an editor takes to send the requests that follow a keystroke (only findSymbol can be
# answered without them: every other query settles first anyway), and short, so that
# the settling is over before the next keystroke of a fast typist.
SETTLE_AFTER_S = 0.005
# A settle waits for idle workers at most this long: a steady stream of requests (an
# agent's) must not keep a buffer's facts out of index.db, nor let the owed edits pile
# up until the whole file has to be extracted again.
SETTLE_WAITS_AT_MOST_S = 0.25


def edits_of(changes: Sequence[types.TextDocumentContentChangeEvent]) -> list[Edit]:
    edits = []
    for change in changes:
        if isinstance(change, types.TextDocumentContentChangePartial):
            start, end = change.range.start, change.range.end
            edits.append(
                Edit((start.line, start.character), (end.line, end.character), change.text)
            )
        else:
            edits.append(Edit(None, None, change.text))
    return edits


def revert_to_disk(services: WorkspaceServices, path: str) -> None:
    """Drop the buffer: the disk content becomes the truth again.

    The disk text is applied as a buffer first because ``close_document`` alone keeps
    the edited facts when the file's stored hash still matches the disk: an editor that
    reverts unsaved edits would otherwise go on seeing the symbols it threw away.
    """
    codemap = services.codemap
    disk = services.root / path
    if codemap.is_open(path) and disk.is_file():
        codemap.open_document(path, disk.read_bytes().decode("utf-8", "replace"))
    codemap.close_document(path)


class Settling:
    """When each folder's owed facts are extracted and stored: after a quiet spell
    (each keystroke starts it again), once the workers are idle or it waited long enough.
    Its state lives on the event loop."""

    def __init__(self, server: CodeKeepServer) -> None:
        self.server = server
        self.pending: dict[WorkspaceHandle, asyncio.TimerHandle] = {}
        self.waiting_since: dict[WorkspaceHandle, float] = {}  # first time a settle found work

    def later(self, handle: WorkspaceHandle) -> None:
        """(On the event loop.) Settle ``handle``'s buffers after a quiet spell; each
        keystroke starts the spell again."""
        if (pending := self.pending.pop(handle, None)) is not None:
            pending.cancel()
        self.pending[handle] = asyncio.get_running_loop().call_later(
            SETTLE_AFTER_S, self.settle, handle, True)

    def settle(self, handle: WorkspaceHandle, first_look: bool) -> None:
        """Post the settle once every folder's worker is idle — no request queued,
        running or awaited: settling then would hold a thread and the GIL while an
        answer waits — or once it has waited :data:`SETTLE_WAITS_AT_MOST_S`."""
        if first_look:
            self.pending.pop(handle, None)
        elif handle in self.pending:  # a keystroke armed a new quiet spell meanwhile
            return
        loop = asyncio.get_running_loop()
        overdue = loop.time() - self.waiting_since.setdefault(handle, loop.time()) \
            >= SETTLE_WAITS_AT_MOST_S
        if not overdue and not all(other.worker.idle for other in self.server.workspaces):
            self.later(handle)
            return
        if first_look and not overdue:
            # An answer is written by a callback its handler queues as it ends, which
            # may still be waiting in the loop's queue: look again after it has run.
            loop.call_soon(self.settle, handle, False)
            return
        self.waiting_since.pop(handle, None)
        handle.post(lambda services: services.codemap.settle(), "settle edits")


def did_open(ls: CodeKeepServer, params: types.DidOpenTextDocumentParams) -> None:
    located = ls.locate(params.text_document.uri)
    if located is None:
        logger.info("not in a workspace folder, not indexed: %s", params.text_document.uri)
        return
    handle, path = located
    handle.open_documents[path] = params.text_document.uri
    text = params.text_document.text
    handle.post(lambda services: services.codemap.open_document(path, text), f"open {path}")


def did_change(
    settling: Settling, ls: CodeKeepServer, params: types.DidChangeTextDocumentParams
) -> None:
    uri = params.text_document.uri
    located = ls.locate(uri)
    if located is None:
        return
    handle, path = located
    if path not in handle.open_documents:
        logger.warning("ignoring changes to %s: it was never opened", path)
        return
    edits = edits_of(params.content_changes)
    encoding = ls.encoding

    def edit(services: WorkspaceServices) -> None:
        services.codemap.apply_edits(path, edits, encoding, defer=True)
        if services.codemap.owes_facts():
            ls.call_on_loop(lambda: settling.later(handle))

    handle.post(edit, f"edit {path}")


def did_save(ls: CodeKeepServer, params: types.DidSaveTextDocumentParams) -> None:
    """A save is a sync point: the saved text is what the editor has, so take it
    whole (this also heals any drift from a client's buggy incremental sync).
    Then the areas' ``saved`` hooks run (memory re-reads a saved MEMORY.md)."""
    located = ls.locate(params.text_document.uri)
    if located is None:
        return
    handle, path = located
    text = params.text
    hooks = ls.contributions.saved

    def saved(services: WorkspaceServices) -> None:
        if text is not None:
            services.codemap.open_document(path, text)
        run_hooks(hooks, services, path)

    handle.post(saved, f"save {path}")


def did_close(ls: CodeKeepServer, params: types.DidCloseTextDocumentParams) -> None:
    """Closing without saving discards the buffer: the disk content is the truth again."""
    located = ls.locate(params.text_document.uri)
    if located is None:
        return
    handle, path = located
    handle.open_documents.pop(path, None)
    handle.post(lambda services: revert_to_disk(services, path), f"close {path}")


# The saved text comes with didSave: the save is taken whole.
OPTIONS = {types.TEXT_DOCUMENT_DID_SAVE: types.SaveOptions(include_text=True)}


def register(server: CodeKeepServer) -> None:
    settling = Settling(server)  # one per server: its timers run on that server's loop
    for method, handler in (
        (types.TEXT_DOCUMENT_DID_OPEN, did_open),
        (types.TEXT_DOCUMENT_DID_CHANGE, functools.partial(did_change, settling)),
        (types.TEXT_DOCUMENT_DID_SAVE, did_save),
        (types.TEXT_DOCUMENT_DID_CLOSE, did_close),
    ):
        server.feature(method, OPTIONS.get(method))(handler)
