"""The SDK server: tools, resources and progressive disclosure over stdio.

Built on the ``mcp`` SDK's low-level ``Server`` (2.x), which lets the tool list differ
per client and change while it is connected: ``tools/list`` shows the door's default
set plus whatever the client loaded (``load_tools`` / ``search_tools``, or calling a
tool); when a call changes that, the client is told with ``tools/list_changed`` (on
handshake-era connections) and a ``ToolsListChanged`` event (to 2026-07-28
``subscriptions/listen`` streams). Calls are checked here only for what the pipeline
cannot see (the size of the request); everything else is the pipeline's job.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from typing import Any

import mcp.types as types
from mcp.server import NotificationOptions, Server, ServerRequestContext
from mcp.server.models import InitializationOptions
from mcp.server.stdio import stdio_server
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from codekeep import __version__
from codekeep.mcp.catalog import call_result, mcp_tool
from codekeep.mcp.host import WorkspaceHost
from codekeep.mcp.options import McpOptions
from codekeep.mcp.policy import door_capability
from codekeep.mcp.resources import RESOURCES, resource
from codekeep.mcp.sessions import ClientId, ClientSession, ClientSessions
from codekeep.tools.context import DocsExpander
from codekeep.tools.result import ToolResult, refusal

logger = logging.getLogger(__name__)

MAX_ARGUMENT_CHARS = 2_000_000  # a write_file of a large source file fits; a flood does not
INDEX_WAIT_SECONDS = 10.0  # a code map question right after start waits this long for the index
INDEXED_CATEGORIES = frozenset({"code_map", "docs"})  # answered from the start-up index
INSTRUCTIONS = (
    "CodeKeep knows this repository's symbols, who calls what, and what earlier tasks "
    "learned. Ask it before reading whole files: find_symbol (where is X), "
    "find_references / find_related (who uses or calls it), search_symbols (fuzzy), "
    "repo_map (orientation), recall / remember (project memory). More tools (files, "
    "ledger, forget, not_this ...) load with list_tool_categories and load_tools."
)
Context = ServerRequestContext[Any, Any]


class _DoorServer(Server[Any]):
    """The low-level server, announcing ``tools.listChanged`` on every transport.

    The streamable-HTTP manager asks the server for its initialization options itself,
    so the flag must be the server's default, not an argument at one call site.
    """

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        return super().create_initialization_options(
            notification_options or NotificationOptions(tools_changed=True),
            experimental_capabilities,
            extensions,
        )


def _docs_expander(host: WorkspaceHost) -> Callable[[str], DocsExpander] | None:
    """How search_docs expands a session's questions: through the agent's model when one
    is configured (``CODEKEEP_MODEL`` ... or ``agent``), billed to the session's task in
    the workspace's ledger; None without a model."""
    from codekeep.settings.agent import ModelNotConfigured

    model = host.settings.agent
    try:
        model.require_model()
    except ModelNotConfigured:
        return None
    from codekeep.agent.docs_expansion import door_expander

    ledger = host.toolkit.ledger
    return lambda task_id: door_expander(model, ledger, task_id)


class McpDoor:
    """The request handlers of one ``codekeep mcp`` process, over one workspace host."""

    def __init__(self, host: WorkspaceHost, options: McpOptions) -> None:
        self.host = host
        self.options = options
        toolkit = host.toolkit
        capability = door_capability(
            toolkit.registry, allow_write=options.allow_write, allow_commands=options.allow_commands
        )
        self.sessions = ClientSessions(toolkit, capability, all_tools=options.all_tools,
                                       expander=_docs_expander(host))
        self.bus = InMemorySubscriptionBus()
        self.listen = ListenHandler(self.bus)

    def build(self) -> Server[Any]:
        return _DoorServer(
            "codekeep",
            version=__version__,
            title="CodeKeep",
            description="Code map, memory and token ledger of one workspace.",
            instructions=INSTRUCTIONS,
            get_tool_input_schema=self._input_schema,
            on_list_tools=self.list_tools,
            on_call_tool=self.call_tool,
            on_list_resources=self.list_resources,
            on_read_resource=self.read_resource,
            on_subscriptions_listen=self.listen,
        )

    # -- who is asking -----------------------------------------------------------------
    def _session(self, ctx: Context) -> ClientSession:
        params = ctx.session.client_params
        name = params.client_info.name if params is not None else None
        headers = getattr(ctx.request, "headers", None)
        session_id = headers.get("mcp-session-id") if headers is not None else None
        return self.sessions.get(ClientId.of(name, session_id))

    def _shown(self, session: ClientSession) -> list[str]:
        return [spec.name for spec in self.sessions.visible(session)]

    # -- tools -------------------------------------------------------------------------
    def _input_schema(self, name: str) -> Mapping[str, Any] | None:
        """Any allowed tool's schema, loaded or not (a call need not follow a listing)."""
        spec = self.host.toolkit.registry.get(name)
        if spec is None or not self.sessions.capability.allows(spec.name, spec.forged_from):
            return None
        return spec.parameters

    async def list_tools(
        self, ctx: Context, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        session = self._session(ctx)
        return types.ListToolsResult(tools=[mcp_tool(s) for s in self.sessions.visible(session)])

    async def call_tool(
        self, ctx: Context, params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        session = self._session(ctx)
        arguments = params.arguments
        size = len(json.dumps(arguments, default=str)) if arguments else 0
        if size > MAX_ARGUMENT_CHARS:
            reason = (
                f"the arguments are {size:,} characters; at most {MAX_ARGUMENT_CHARS:,} "
                "are accepted (write large files in parts or with your own editor)"
            )
            return self._answer(refusal(params.name, "request_size", reason))
        spec = self.host.toolkit.registry.get(params.name)
        about_code = spec is not None and spec.category in INDEXED_CATEGORIES
        if about_code:
            await self.host.index_ready(INDEX_WAIT_SECONDS)
        before = self._shown(session)
        self.sessions.refresh(session, self.host.generation)
        result = await self.host.execute(session.context, params.name, arguments)
        if result.ok and spec is not None and not spec.read_only:
            self.host.bump_generation()  # other clients' cached answers may be stale now
        if self._shown(session) != before:
            await self._tools_changed(ctx)
        return self._answer(self._with_index_note(result) if about_code else result)

    def _answer(self, result: ToolResult) -> types.CallToolResult:
        return call_result(result, self.options.answer_chars)

    def _with_index_note(self, result: ToolResult) -> ToolResult:
        """Answers given while the first index (code, then docs) is still running say they
        may be partial."""
        progress = self.host.progress
        if progress.ready:
            return result
        if progress.error:
            note = f"(indexing failed: {progress.error}; answers cover what was indexed)"
        else:
            note = (
                f"(the code map is still indexing: {progress.done:,} of {progress.total:,} "
                "files; answers may be incomplete)"
            )
        return dataclasses.replace(result, content=f"{note}\n{result.content}")

    async def _tools_changed(self, ctx: Context) -> None:
        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            await self.bus.publish(ToolsListChanged())
        else:  # on the request's own stream, so it arrives before the answer
            await ctx.session.send_notification(
                types.ToolListChangedNotification(), related_request_id=ctx.request_id
            )

    # -- resources ---------------------------------------------------------------------
    async def list_resources(
        self, ctx: Context, params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=[r.listing() for r in RESOURCES])

    async def read_resource(
        self, ctx: Context, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        found = resource(str(params.uri))
        if found.needs_index:
            await self.host.index_ready(INDEX_WAIT_SECONDS)
        text = await self.host.read(found.read)
        return types.ReadResourceResult(
            contents=[
                types.TextResourceContents(uri=found.uri, mime_type=found.mime_type, text=text)
            ]
        )


@asynccontextmanager
async def opened_door(options: McpOptions) -> AsyncIterator[tuple[McpDoor, Server[Any]]]:
    """The workspace hosted and the server built; everything closed on the way out."""
    host = WorkspaceHost(options.root, options.answer_chars)
    await host.start()
    door = McpDoor(host, options)
    try:
        yield door, door.build()
    finally:
        door.listen.close()
        await host.stop()


async def serve_stdio(options: McpOptions) -> None:
    """Serve one client on stdin/stdout until it closes the stream."""
    async with opened_door(options) as (_door, server), stdio_server() as (reader, writer):
        await server.run(reader, writer, server.create_initialization_options())
