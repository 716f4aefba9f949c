"""What a tool call runs against: the workspace, the services and the task's tool state."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from codekeep.settings.tools import ToolSettings
from codekeep.tools.capabilities import Capability, capability
from codekeep.tools.result import ToolResult
from codekeep.tools.safety.commands import CommandPolicy
from codekeep.tools.safety.paths import PathGuard

if TYPE_CHECKING:
    from codekeep.analysis.codemap import CodeMap
    from codekeep.docs import DocsIndex
    from codekeep.embeddings.embedders import Embedded
    from codekeep.ledger import Ledger
    from codekeep.memory import MemoryService


# A question -> its multi-query rewrites and HyDE passages, from the door's model and
# billed to the context's task (``codekeep.agent.docs_expansion``); tools cannot import
# the agent, so the door that has a model hands this in.
DocsExpander = Callable[[str], Awaitable[tuple[list[str], list[str], list[str]]]]


class ServiceUnavailableError(RuntimeError):
    """A tool needs a service (code map, memory, ledger, docs) this context was built without."""


@dataclass(slots=True)
class TraceEntry:
    tool: str
    arguments: dict[str, Any]
    outcome: str
    summary: str
    duration_ms: float


@dataclass(frozen=True, slots=True)
class ReadMark:
    """A file range a ``read_file`` call put in the task's context, and the file's state then."""

    path: str
    start: int
    end: int
    reached_end: bool  # the read went to the last line (a later "to the end" read is covered)
    digest: str
    call_id: str

    def covers(self, path: str, start: int, end: int | None) -> bool:
        if path != self.path or start < self.start:
            return False
        return self.reached_end or (end is not None and end <= self.end)


@dataclass(slots=True)
class TaskToolState:
    """Per-task state the middlewares keep and the agent reads.

    ``loaded`` is the set of tools disclosed beyond the capability's core set;
    ``unique_files`` / ``unique_patterns`` / ``unique_queries`` feed the exploration tracker.
    ``reads`` are the ranges read so far; ``in_context`` the call ids whose results the
    model still sees whole (the agent updates it after compressing its context; ``None``
    when nobody tracks a context window: every result counts as seen; the MCP door, which
    cannot see its host's context, empties it before every call: none does).
    """

    loaded: set[str] = field(default_factory=set)
    cache: dict[str, ToolResult] = field(default_factory=dict)
    unique_files: set[str] = field(default_factory=set)
    unique_patterns: set[str] = field(default_factory=set)
    unique_queries: set[str] = field(default_factory=set)
    writes: set[str] = field(default_factory=set)
    trace: list[TraceEntry] = field(default_factory=list)
    total_calls: int = 0
    reads: list[ReadMark] = field(default_factory=list)
    in_context: set[str] | None = None

    def still_seen(self, call_id: str | None) -> bool:
        """Whether the model still sees the whole result of ``call_id``."""
        return call_id is not None and (self.in_context is None or call_id in self.in_context)

    def now_seen(self, call_id: str | None) -> None:
        """A result just produced: it goes into the next prompt whole."""
        if call_id is not None and self.in_context is not None:
            self.in_context.add(call_id)


@dataclass(slots=True)
class ToolContext:
    root: Path
    task_id: str
    capability: Capability
    settings: ToolSettings
    codemap: CodeMap | None = None
    memory: MemoryService | None = None
    ledger: Ledger | None = None
    docs: DocsIndex | None = None
    actor: str = "agent"
    client: str | None = None  # the external client driving this context (MCP clientInfo)
    state: TaskToolState = field(default_factory=TaskToolState)
    # Embeddings a caller whose services live on one thread sent off it before the call
    # (a spec's ``embeds`` argument, by its text): the tool takes its own out.
    embedded: dict[str, Embedded] = field(default_factory=dict)
    # The door's model rewrites search_docs questions (None: no model, searched as asked).
    expand_docs: DocsExpander | None = None
    guard: PathGuard = field(init=False)

    def __post_init__(self) -> None:
        self.root = self.root.resolve()
        self.guard = PathGuard(self.root)

    @classmethod
    def create(
        cls,
        root: Path,
        task_id: str,
        capability_name: str | Capability = "chat",
        *,
        settings: ToolSettings | None = None,
        codemap: CodeMap | None = None,
        memory: MemoryService | None = None,
        ledger: Ledger | None = None,
        docs: DocsIndex | None = None,
        actor: str = "agent",
        client: str | None = None,
    ) -> ToolContext:
        return cls(
            root=root,
            task_id=task_id,
            capability=(
                capability(capability_name) if isinstance(capability_name, str) else capability_name
            ),
            settings=settings or ToolSettings(),
            codemap=codemap,
            memory=memory,
            ledger=ledger,
            docs=docs,
            actor=actor,
            client=client,
        )

    def command_policy(self) -> CommandPolicy:
        return CommandPolicy(self.guard, self.settings.allowed_commands, self.settings.allow_shell)

    def require_codemap(self) -> CodeMap:
        if self.codemap is None:
            raise ServiceUnavailableError("the code map is not available in this session")
        return self.codemap

    def require_memory(self) -> MemoryService:
        if self.memory is None:
            raise ServiceUnavailableError("memory is not available in this session")
        return self.memory

    def require_docs(self) -> DocsIndex:
        if self.docs is None:
            raise ServiceUnavailableError("the docs are not available in this session")
        return self.docs

    def require_ledger(self) -> Ledger:
        if self.ledger is None:
            raise ServiceUnavailableError("the token ledger is not available in this session")
        return self.ledger
