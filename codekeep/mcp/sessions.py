"""Each connected client's tool context: its task id, cache and disclosed tools.

A client is told apart by its streamable-HTTP session (``Mcp-Session-Id``) when it has
one, otherwise by the name in its ``clientInfo`` (stdio serves one client per process;
the 2026-07-28 protocol has no sessions, so two sessionless clients with one name share
their disclosure state). Every context runs under the door's capability, so what a
client may call never depends on what it has loaded, only what it is shown.
"""

from __future__ import annotations

import re
import uuid
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from codekeep.tools import Capability, ToolContext, ToolKit, ToolSpec
from codekeep.tools.context import DocsExpander

UNKNOWN_CLIENT = "mcp-client"
MAX_SESSIONS = 256  # HTTP sessions come and go; the least recently used state is dropped
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True, slots=True)
class ClientId:
    """``key`` tells clients apart; ``name`` is what the client calls itself."""

    key: str
    name: str

    @classmethod
    def of(cls, name: str | None, session_id: str | None) -> ClientId:
        clean = _UNSAFE.sub("-", (name or "").strip())[:64].strip("-") or UNKNOWN_CLIENT
        return cls(key=f"session:{session_id}" if session_id else f"client:{clean}", name=clean)


@dataclass(slots=True)
class ClientSession:
    context: ToolContext
    generation: int = 0  # the host's generation its cached answers belong to


class ClientSessions:
    """Tool contexts by client, created on first contact; at most ``MAX_SESSIONS`` kept
    (a client dropped for being idle longest starts again from the default set)."""

    def __init__(self, toolkit: ToolKit, capability: Capability, *, all_tools: bool,
                 expander: Callable[[str], DocsExpander] | None = None) -> None:
        """``expander``: a session's task id -> how search_docs expands its questions
        (None: no model is configured, questions are searched as asked)."""
        self._toolkit = toolkit
        self._capability = capability
        self._all_tools = all_tools
        self._expander = expander
        self._sessions: OrderedDict[str, ClientSession] = OrderedDict()

    @property
    def capability(self) -> Capability:
        return self._capability

    def get(self, client: ClientId) -> ClientSession:
        session = self._sessions.get(client.key)
        if session is not None:
            self._sessions.move_to_end(client.key)
        else:
            context = self._toolkit.context(
                f"mcp-{client.name}-{uuid.uuid4().hex[:8]}",
                self._capability,
                actor=f"mcp:{client.name}",
                client=client.name,
            )
            if self._expander is not None:
                context.expand_docs = self._expander(context.task_id)
            session = self._sessions[client.key] = ClientSession(context)
            if len(self._sessions) > MAX_SESSIONS:
                self._sessions.popitem(last=False)
        return session

    def visible(self, session: ClientSession) -> list[ToolSpec]:
        """What ``tools/list`` shows this client: the default set plus what it loaded."""
        loaded = None if self._all_tools else session.context.state.loaded
        return self._toolkit.registry.visible(self._capability, loaded)

    def refresh(self, session: ClientSession, generation: int) -> None:
        """Before each call: forget cached answers made before the workspace last changed,
        and assume no earlier answer is still in the host's context.

        The door cannot see a host's context window (it compacts it; Claude Code's
        sub-agents share one connection but not one context), so a repeated call is
        answered again in full, marked as a repeat, never with "already in your context".
        """
        state = session.context.state
        state.in_context = set()
        if session.generation != generation:
            state.cache.clear()
            session.generation = generation
