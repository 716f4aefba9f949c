"""The CodeKeep language server object and its assembly from feature modules."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import importlib
import logging
import pkgutil
import signal
import sys
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

from lsprotocol import types
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer

from codekeep import __version__
from codekeep.analysis.errors import CodeMapError
from codekeep.analysis.model import Encoding
from codekeep.hosting.workspaces import WorkspaceHandle, WorkspaceRegistry, WorkspaceUnavailable
from codekeep.server import features
from codekeep.server.extensions import Contributions
from codekeep.server.protocol import CodeKeepProtocol, plain_params_converter
from codekeep.server.rpc import read_messages, read_stdio
from codekeep.services import WorkspaceServices

logger = logging.getLogger(__name__)

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class DocumentRef:
    """A document a request is about, as the worker-side code needs it."""

    root: Path
    path: str  # workspace-relative POSIX path
    uri: str
    encoding: Encoding


class CodeKeepServer(LanguageServer):
    """pygls server holding the session state every feature module shares."""

    protocol: CodeKeepProtocol

    def __init__(self) -> None:
        super().__init__(
            "codekeep",
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=CodeKeepProtocol,
            converter_factory=plain_params_converter,
        )
        self.workspaces = WorkspaceRegistry(on_open=self._folder_opened)
        self.contributions = Contributions()
        self.loop: asyncio.AbstractEventLoop | None = None  # serving the client; set on initialize
        # Filled by registration; listed in capabilities.experimental.codekeep.
        self.custom_methods: list[str] = []
        self.client_notifications: list[str] = []
        self.on_close: list[Any] = []  # callables run once before the workspaces close
        self._closed = False
        self._stop_serving: Callable[[], None] = lambda: None  # set while start_tcp serves

    @property
    def encoding(self) -> Encoding:
        """The negotiated position encoding (we only ever choose UTF-8 or UTF-16)."""
        if self.protocol._workspace is None:
            return "utf-16"
        chosen = self.workspace.position_encoding
        return "utf-8" if chosen == types.PositionEncodingKind.Utf8 else "utf-16"

    def locate(self, uri: str) -> tuple[WorkspaceHandle, str] | None:
        """The folder and relative path of a document URI (None: not in any folder)."""
        return self.workspaces.locate(uri)

    async def on_document(
        self, uri: str, fn: Callable[[WorkspaceServices, DocumentRef], T]
    ) -> T | None:
        """Answer a request about one document on its folder's worker.

        None ("nothing here") when the document is outside every folder or not in the
        index: editors ask about every buffer and must not see errors for that.
        """
        located = self.locate(uri)
        if located is None:
            return None
        handle, path = located
        document = DocumentRef(handle.root, path, uri, self.encoding)
        try:
            return await handle.run(lambda services: fn(services, document))
        except (CodeMapError, WorkspaceUnavailable) as error:
            logger.debug("%s: %s", uri, error)
            return None

    def _folder_opened(self, services: WorkspaceServices) -> None:
        run_hooks(self.contributions.opened, services)

    def call_on_loop(self, fn: Callable[[], None]) -> None:
        """Run ``fn`` (which talks to the client) on the event loop, from any thread.

        Called on the loop itself it runs at once, so a notification keeps its place
        among the messages its caller sends next (a budget crossing recorded by the
        agent arrives before the agent's next progress report); from another thread
        it is queued. Dropped when the session has no (open) loop any more.
        """
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            fn()
        else:
            with contextlib.suppress(RuntimeError):  # the loop closed since the check
                loop.call_soon_threadsafe(fn)

    def close_workspaces(self) -> None:
        """Stop watchers and indexing, flush and close every database (idempotent)."""
        if self._closed:
            return
        self._closed = True
        for callback in self.on_close:
            try:
                callback()
            except Exception:
                logger.exception("shutdown step failed")
        self.workspaces.close_all()

    def _start_io_async(self, stdin: Any = None, stdout: Any = None) -> None:
        """Serve stdio with our own intake (:mod:`codekeep.server.rpc`): every request
        is answered, and stdin is read by the event loop itself when it is a pipe."""
        self._stop_event = threading.Event()
        stdin = stdin or sys.stdin.buffer
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))

        async def serve() -> None:
            reader = await read_stdio(stdin, self.thread_pool)
            assert self._stop_event is not None
            try:
                await read_messages(reader, self.protocol.receive, self._stop_event)
            except asyncio.IncompleteReadError:  # the client died mid-message
                logger.warning("the client closed the connection mid-message")

        try:
            asyncio.run(serve())
        except BrokenPipeError:
            logger.error("the client went away")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()

    def start_tcp(self, host: str, port: int) -> None:
        """Serve one client on a TCP socket until it disconnects, ``exit`` or SIGTERM.

        Unlike pygls' version, every way of stopping goes through one idempotent path:
        a client that vanishes (even with a connection reset) is one warning line, and
        a SIGTERM while the server is already stopping does nothing (it used to raise
        SystemExit in the middle of the shutdown and print tracebacks).
        """
        self._stop_event = threading.Event()
        main_thread = threading.current_thread() is threading.main_thread()
        if main_thread:
            signal.signal(signal.SIGTERM, lambda _signum, _frame: self._stop_serving())
        try:
            asyncio.run(self._serve_tcp(host, port))
        finally:
            if main_thread:  # already stopping: a SIGTERM from now on has nothing to add
                signal.signal(signal.SIGTERM, signal.SIG_IGN)
            self.shutdown()

    async def _serve_tcp(self, host: str, port: int) -> None:
        loop = asyncio.get_running_loop()
        stopped = asyncio.Event()
        connections: set[asyncio.StreamWriter] = set()

        def stop() -> None:  # from a signal handler too: hand it to the loop
            with contextlib.suppress(RuntimeError):  # the loop closed since
                loop.call_soon_threadsafe(stopped.set)

        self._stop_serving = stop

        async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            connections.add(writer)
            self.protocol.set_writer(writer)
            assert self._stop_event is not None
            try:
                await read_messages(reader, self.protocol.receive, self._stop_event)
            except (ConnectionError, asyncio.IncompleteReadError) as error:
                logger.warning("the client connection ended: %s", error)
            finally:
                connections.discard(writer)
                stopped.set()  # one client per server, as with stdio

        server = await asyncio.start_server(connection, host, port)
        logger.info("Serving on %s:%s", host, port)
        async with server:
            await stopped.wait()
            for writer in list(connections):  # the reader sees end of file and returns
                writer.close()
            while connections:
                await asyncio.sleep(0.01)

    def shutdown(self) -> None:
        self.close_workspaces()
        super().shutdown()

    def report_server_error(self, error: Exception, source: Any) -> None:
        """Errors outside a request (a notification handler failing, a message that
        cannot be parsed) go to the log, never to a popup: the user did not ask for
        anything and cannot act on them. Request errors reach the client as responses.
        """
        logger.error("%s: %s", getattr(source, "__name__", source), error)


def run_hooks(hooks: Iterable[Callable[..., None]], *args: Any) -> None:
    """Call every hook; one failing is logged and must not stop the others."""
    for hook in hooks:
        try:
            hook(*args)
        except Exception:
            logger.exception("%s failed", getattr(hook, "__qualname__", hook))


# Young-generation threshold raised from CPython's 700 (see tune_garbage_collector).
GC_THRESHOLDS = (100_000, 50, 100)


def tune_garbage_collector() -> None:
    """Make cyclic garbage collection rare in the server process.

    Every keystroke re-extracts a file's facts, allocating tens of thousands of small
    objects; with CPython's default thresholds that triggers frequent collections that
    walk the server's whole heap (code map, memory, ledger, pygls). Measured with
    ``bench/server_bench.py`` on a 2,000-line file: keystroke p99 60-70 ms with the
    defaults, about 10 ms with these; p50 overhead over the index's own work drops from
    ~2 ms to ~0.6 ms. Reference counting still frees almost everything immediately.
    """
    gc.set_threshold(*GC_THRESHOLDS)


def feature_modules() -> list[ModuleType]:
    """Every ``codekeep.server.features.<area>`` module, in name order."""
    names = sorted(info.name for info in pkgutil.iter_modules(features.__path__))
    return [importlib.import_module(f"{features.__name__}.{name}") for name in names]


def create_server() -> CodeKeepServer:
    """A server with every feature module registered."""
    server = CodeKeepServer()
    for module in feature_modules():
        module.register(server)
    return server
