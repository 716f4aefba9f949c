"""Writing memories: the scope policy binds a writer to its scope; ``remember`` is the
user's (and the CLI's) door, which re-reads ``MEMORY.md`` first so a write is judged
against what the file says now."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, TypedDict, Unpack

from codekeep.memory.evidence import quote_found
from codekeep.memory.model import (
    DEFAULT_IMPORTANCE,
    DEFAULT_KIND,
    DEFAULT_SCOPE,
    MemoryInputError,
    WriteResult,
)
from codekeep.memory.scope import ScopeRequest
from codekeep.memory.service.core import ServiceCore
from codekeep.memory.team_scope import is_team_id, promotion_request
from codekeep.memory.write import WriteRequest
from codekeep.settings.memory import DAY

Remember = Callable[[str, WriteRequest], WriteResult]


class AssertedFields(TypedDict, total=False):
    """The optional fields of a model's write (:meth:`Writing.remember_asserted`)."""

    key: str | None
    importance: int
    files: Sequence[str]
    symbols: Sequence[str]
    confidence: float
    ttl_days: float | None


class MemoryFields(AssertedFields, total=False):
    """The optional fields of a write, as :meth:`ScopedWriter.remember` takes them."""

    evidence: dict[str, Any] | None


class ScopedWriter:
    """What a writer (a tool, a handler) receives: its scope is fixed by the policy."""

    def __init__(
        self,
        write: Remember,
        clock: Callable[[], float],
        scope: str,
        source: str,
        task_id: str | None,
    ) -> None:
        self._write = write
        self._clock = clock
        self.scope = scope
        self.source = source
        self.task_id = task_id

    def remember(
        self,
        content: str,
        *,
        kind: str = DEFAULT_KIND,
        key: str | None = None,
        importance: int = DEFAULT_IMPORTANCE,
        files: Sequence[str] = (),
        symbols: Sequence[str] = (),
        evidence: dict[str, Any] | None = None,
        confidence: float = 1.0,
        ttl_days: float | None = None,
    ) -> WriteResult:
        """``ttl_days``: the memory expires unless seen again within that many days."""
        if ttl_days is not None and ttl_days <= 0:
            raise MemoryInputError("ttl_days must be positive")
        request = WriteRequest(
            content,
            kind,
            key,
            None,
            importance,
            tuple(files),
            tuple(symbols),
            evidence,
            self.source,
            confidence,
            self.task_id,
            expires_at=None if ttl_days is None else self._clock() + ttl_days * DAY,
        )
        return self._write(self.scope, request)


class Writing(ServiceCore):
    def writer(
        self,
        *,
        kind: str = DEFAULT_KIND,
        scope: str | None = None,
        source: str = "agent",
        task_id: str | None = None,
    ) -> ScopedWriter:
        """A writer bound to the scope the policy resolves for this request."""
        resolved = self.scope_policy.resolve(ScopeRequest(kind, scope, task_id, source))
        return ScopedWriter(self._remember_in, self.settings.clock, resolved, source, task_id)

    def remember(
        self,
        content: str,
        *,
        kind: str = DEFAULT_KIND,
        scope: str = DEFAULT_SCOPE,
        source: str = "user",
        task_id: str | None = None,
        **fields: Unpack[MemoryFields],
    ) -> WriteResult:
        """Write through a writer for ``scope`` (the policy may decide another)."""
        self.refresh_notes()  # a write is judged against what MEMORY.md says now
        writer = self.writer(kind=kind, scope=scope, source=source, task_id=task_id)
        return writer.remember(content, kind=kind, **fields)

    def remember_asserted(
        self,
        content: str,
        *,
        kind: str = DEFAULT_KIND,
        scope: str = DEFAULT_SCOPE,
        task_id: str | None = None,
        evidence: Sequence[Mapping[str, str]] = (),
        client: str | None = None,
        **fields: Unpack[AssertedFields],
    ) -> WriteResult:
        """A memory a model asserts (our agent's ``remember``, an MCP host's): the gate
        "no evidence, no knowledge".

        ``evidence`` items are ``{"file", "quote"}`` (a workspace file) or ``{"quote"}``
        alone: the user's own words in task ``task_id`` (its ``user_message`` events,
        so a door records what the user typed before the model may cite it). Without
        items, content the user said in this task is its own evidence. A verified quote
        makes the memory active; none leaves it ``observed`` (never recalled as
        knowledge) until a quote supports it or ``codekeep memory confirm``; a quote
        found nowhere is refused; a team write also waits for a person's confirmation.
        ``client`` names the host whose model wrote it.
        """
        items: list[dict[str, Any]] = []
        said = self._user_words(task_id)
        for item in evidence:
            quote = str(item.get("quote") or "")
            if item.get("file"):
                items.append({"file": str(item["file"]), "quote": quote})
                continue
            event = next((event_id for event_id, text in said if quote_found(text, quote)),
                         None)
            if event is None:
                return WriteResult("REJECT", None, f"rejected: the quote {quote[:60]!r} is not "
                                   "in what the user said in this task (name the file it "
                                   "comes from instead)")
            items.append({"event": event, "quote": quote})
        if not items:
            event = next((event_id for event_id, text in said if quote_found(text, content)),
                         None)
            if event is not None:
                items.append({"event": event, "quote": content})
        proof: dict[str, Any] | None = {"items": items} if items or client else None
        if client and proof is not None:
            proof["client"] = client
        return self.remember(content, kind=kind, scope=scope, source="agent", task_id=task_id,
                             evidence=proof, **fields)

    def _user_words(self, task_id: str | None) -> list[tuple[int, str]]:
        """``(event id, text)`` of what the user said in ``task_id``."""
        if task_id is None:
            return []
        return [(e.id, e.summary) for e in self.events.events(task_id)
                if e.event_type == "user_message"]

    def promote(self, memory_id: str, to: str = "team") -> WriteResult:
        """Share a project or user memory with the team (``/promote``): the
        content is screened and redacted again before it leaves; the team row records
        who promoted it and from which memory. Promoting the same meaning twice
        reinforces the team's row (action ``REINFORCE``)."""
        if to != "team":
            raise MemoryInputError(f"memories can be promoted only to the team scope (not {to!r})")
        team = self._team()  # not configured: say so before looking the memory up
        if is_team_id(memory_id):
            raise MemoryInputError(f"memory {memory_id} is already in the team scope")
        store = self._store_for_id(memory_id)
        memory = store.get(memory_id) if store else None
        if memory is None:
            raise MemoryInputError(f"no memory with id {memory_id!r}")
        request = promotion_request(memory)
        with team.store.promoting(memory.id):  # the team row records who and from where
            result = self._write.remember("team", request)
        if result.action == "ADD":
            result = replace(result, action="PROMOTE")
        if result.id:
            store_of = self._store_for_scope(memory.scope)
            with store_of.transaction():
                store_of.log(memory_id, self.settings.clock(), "PROMOTED", {"teamId": result.id})
        return result
