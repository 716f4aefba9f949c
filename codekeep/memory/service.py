"""``MemoryService``: the one entry point to CodeKeep memory (contract in team/CONTRACTS.md).

It owns two databases — ``<root>/.codekeep/memory.db`` (task and project scope) and
``<user data dir>/memory.db`` (user scope) — and wires the parts together: the write
path, retrieval, the event/summary layers, forgetting, code links, ``MEMORY.md`` and
the per-task working memory with its budget coordinator. The CLI and the language
server are thin doors onto this class.
"""

from __future__ import annotations

import builtins
import json
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from codekeep.common.workspace import state_dir, user_data_dir
from codekeep.memory import codelinks, coordinator, layers, lifecycle
from codekeep.memory.catalog import PreferenceCatalog
from codekeep.memory.embeddings import EmbeddingClient, store_vectors
from codekeep.memory.evidence import EvidenceVerifier
from codekeep.memory.model import (
    KINDS,
    LONG_TERM_KINDS,
    RECALLABLE_STATUSES,
    STATUSES,
    USER_SOURCES,
    Memory,
    MemoryInputError,
    RecalledMemory,
    WriteResult,
)
from codekeep.memory.notes_sync import NOTES_FILE, NotesSync
from codekeep.memory.retrieval import RecallQuery, Retriever
from codekeep.memory.scope import DefaultScopePolicy, ScopePolicy, ScopeRequest
from codekeep.memory.settings import DAY, EmbeddingSettings, MemorySettings
from codekeep.memory.store import MemoryStore
from codekeep.memory.working import WorkingMemory
from codekeep.memory.write import WritePath, WriteRequest

PURGEABLE_STATUSES = ("disabled", "superseded", "archived")


class ScopedWriter:
    """What a writer (a tool, a handler) receives: its scope is fixed by the policy."""

    def __init__(
        self, service: MemoryService, scope: str, source: str, task_id: str | None
    ) -> None:
        self._service = service
        self.scope = scope
        self.source = source
        self.task_id = task_id

    def remember(
        self,
        content: str,
        *,
        kind: str = "fact",
        key: str | None = None,
        importance: int = 5,
        files: Sequence[str] = (),
        symbols: Sequence[str] = (),
        evidence: dict[str, Any] | None = None,
        confidence: float = 1.0,
        ttl_days: float | None = None,
    ) -> WriteResult:
        """``ttl_days``: the memory expires unless seen again within that many days."""
        if ttl_days is not None and ttl_days <= 0:
            raise MemoryInputError("ttl_days must be positive")
        now = self._service.settings.clock()
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
            expires_at=None if ttl_days is None else now + ttl_days * DAY,
        )
        return self._service._write.remember(self.scope, request)


class MemoryService:
    def __init__(
        self,
        root: Path,
        project: MemoryStore,
        user: MemoryStore,
        settings: MemorySettings,
        scope_policy: ScopePolicy,
        catalog: PreferenceCatalog,
    ) -> None:
        self.root = root
        self.project = project
        self.user = user
        self.settings = settings
        self.scope_policy = scope_policy
        self.catalog = catalog
        self.summariser: layers.Summariser | None = None  # the agent installs a model summariser
        self.embedder = EmbeddingClient(settings.embeddings) if settings.embeddings else None
        self.events = layers.EventLog(project, settings)
        self.verifier = EvidenceVerifier(root, self.events.event_text)
        self._write = WritePath(
            self._store_for_scope, catalog, self.verifier, settings, self._after_write
        )
        self._retriever = Retriever((project, user), settings, self.embedder)
        self._working: dict[str, WorkingMemory] = {}
        self._notes = NotesSync(
            state_dir(root) / NOTES_FILE,
            project,
            self._write,
            catalog,
            settings.clock,
            self._effective_preferences,
        )

    @classmethod
    def open(
        cls,
        root: Path,
        user_dir: Path | None = None,
        settings: MemorySettings | None = None,
        *,
        scope_policy: ScopePolicy | None = None,
        catalog: PreferenceCatalog | None = None,
    ) -> MemoryService:
        root = Path(root).resolve()
        settings = settings or MemorySettings(embeddings=EmbeddingSettings.from_env())
        project = MemoryStore(state_dir(root) / "memory.db", ("project", "task"))
        user = MemoryStore((user_dir or user_data_dir()) / "memory.db", ("user",))
        service = cls(
            root,
            project,
            user,
            settings,
            scope_policy or DefaultScopePolicy(),
            catalog or PreferenceCatalog(),
        )
        service.maintain()
        return service

    def close(self) -> None:
        if self.embedder:
            self.embedder.close()
        self.project.close()
        self.user.close()

    def __enter__(self) -> MemoryService:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- routing ------------------------------------------------------------------------

    def _store_for_scope(self, scope: str) -> MemoryStore:
        return self.user if scope == "user" else self.project

    def _store_for_id(self, memory_id: str) -> MemoryStore | None:
        for store in (self.project, self.user):
            if store.owns(memory_id):
                return store
        return None

    def _after_write(self, store: MemoryStore, scope: str, memory_id: str, grew: bool) -> None:
        if grew:  # only a new row can push a scope over capacity
            now = self.settings.clock()
            lifecycle.enforce_capacity(store, scope, self.settings.capacity_per_scope, now)
        if self.embedder is not None:
            store_vectors(store, self.embedder, [memory_id])

    # ---- writing ------------------------------------------------------------------------

    def writer(
        self,
        *,
        kind: str = "fact",
        scope: str | None = None,
        source: str = "agent",
        task_id: str | None = None,
    ) -> ScopedWriter:
        """A writer bound to the scope the policy resolves for this request."""
        resolved = self.scope_policy.resolve(ScopeRequest(kind, scope, task_id, source))
        return ScopedWriter(self, resolved, source, task_id)

    def remember(
        self,
        content: str,
        *,
        kind: str = "fact",
        key: str | None = None,
        importance: int = 5,
        scope: str = "project",
        files: Sequence[str] = (),
        symbols: Sequence[str] = (),
        evidence: dict[str, Any] | None = None,
        source: str = "user",
        confidence: float = 1.0,
        task_id: str | None = None,
        ttl_days: float | None = None,
    ) -> WriteResult:
        self.refresh_notes()  # a write is judged against what MEMORY.md says now
        writer = self.writer(kind=kind, scope=scope, source=source, task_id=task_id)
        return writer.remember(
            content,
            kind=kind,
            key=key,
            importance=importance,
            files=files,
            symbols=symbols,
            evidence=evidence,
            confidence=confidence,
            ttl_days=ttl_days,
        )

    def memories_for_file(self, path: str) -> builtins.list[Memory]:
        """Live memories linked to a file (or to symbols defined in it), most important first."""
        found: builtins.list[Memory] = []
        for store in (self.project, self.user):
            ids = [r[0] for r in store.linked([path], [], RECALLABLE_STATUSES, 100)]
            found += store.load_many(ids)
        found.sort(key=lambda m: (-m.importance, -m.last_seen_at, m.id))
        return found

    def forget(self, memory_id: str, reason: str | None = None) -> bool:
        """Disable a memory (kept for audit, never recalled again). False if unknown."""
        return self._set_status(memory_id, "disabled", "FORGET", reason)

    def _set_status(self, memory_id: str, status: str, action: str, reason: str | None) -> bool:
        store = self._store_for_id(memory_id)
        if store is None:
            return False
        with store.transaction():
            if store.get(memory_id) is None:
                return False
            store.update(memory_id, status=status)
            store.log(
                memory_id, self.settings.clock(), action, {"reason": reason} if reason else None
            )
        return True

    def not_this(self, memory_id: str, reason: str | None = None) -> bool:
        """Negative feedback: the memory's score is halved and flagged; nothing is deleted."""
        store = self._store_for_id(memory_id)
        if store is None:
            return False
        now = self.settings.clock()
        with store.transaction() as conn:
            if store.get(memory_id) is None:
                return False
            conn.execute(
                "INSERT INTO feedback(memory_id, reason, created_at) VALUES (?, ?, ?)",
                (memory_id, reason, now),
            )
            store.log(memory_id, now, "NOT_THIS", {"reason": reason} if reason else None)
        return True

    def undo_not_this(self, memory_id: str) -> bool:
        """Retract the negative feedback on a memory; its full score comes back."""
        store = self._store_for_id(memory_id)
        if store is None:
            return False
        now = self.settings.clock()
        with store.transaction() as conn:
            changed = conn.execute(
                "UPDATE feedback SET retracted_at = ? WHERE memory_id = ? AND retracted_at IS NULL",
                (now, memory_id),
            ).rowcount
            if changed:
                store.log(memory_id, now, "UNDO_NOT_THIS", None)
        return bool(changed)

    # ---- reading ------------------------------------------------------------------------

    def recall(
        self,
        query: str,
        *,
        limit: int = 10,
        kinds: Sequence[str] | None = None,
        files: Sequence[str] = (),
        symbols: Sequence[str] = (),
    ) -> builtins.list[RecalledMemory]:
        if limit < 0:
            raise MemoryInputError("limit must not be negative")
        unknown = [k for k in kinds or () if k not in KINDS]
        if unknown:
            raise MemoryInputError(f"unknown kind {unknown[0]!r}")
        self.refresh_notes()
        return self._retriever.recall(
            RecallQuery(query, limit, tuple(kinds) if kinds else None, tuple(files), tuple(symbols))
        )

    def get(self, memory_id: str) -> Memory | None:
        store = self._store_for_id(memory_id)
        return store.get(memory_id) if store else None

    def list(
        self,
        *,
        kinds: Sequence[str] | None = None,
        statuses: Sequence[str] | None = None,
        scope: str | None = None,
        limit: int = 200,
    ) -> builtins.list[Memory]:
        """Memories newest first; default statuses are the recallable ones."""
        statuses = tuple(statuses or RECALLABLE_STATUSES)
        bad = [s for s in statuses if s not in STATUSES]
        if bad:
            raise MemoryInputError(f"unknown status {bad[0]!r} (use one of {', '.join(STATUSES)})")
        where = f"status IN ({','.join('?' * len(statuses))})"
        params: builtins.list[Any] = list(statuses)
        if kinds:
            where += f" AND kind IN ({','.join('?' * len(kinds))})"
            params += list(kinds)
        if scope:
            where += " AND scope = ?"
            params.append(scope)
        found: builtins.list[Memory] = []
        for store in (self.project, self.user):
            found += store.load_many(
                store.ids_where(where, params, order="last_seen_at DESC", limit=limit)
            )
        found.sort(key=lambda m: (-m.last_seen_at, m.id))
        return found[:limit]

    def history(self, memory_id: str) -> builtins.list[dict[str, Any]]:
        store = self._store_for_id(memory_id)
        if store is None:
            return []
        rows = store.conn.execute(
            "SELECT at, action, detail FROM history WHERE memory_id = ? ORDER BY id", (memory_id,)
        )
        return [
            {
                "at": r["at"],
                "action": r["action"],
                "detail": json.loads(r["detail"]) if r["detail"] else None,
            }
            for r in rows
        ]

    def memories_for_symbol(self, symbol_id: str) -> builtins.list[Memory]:
        found: builtins.list[Memory] = []
        for store in (self.project, self.user):
            ids = [r[0] for r in store.linked([], [symbol_id], RECALLABLE_STATUSES, 100)]
            found += store.load_many(ids)
        found.sort(key=lambda m: (-m.importance, -m.last_seen_at, m.id))
        return found

    def counts_for_symbols(self, symbol_ids: Sequence[str]) -> dict[str, int]:
        """How many recallable memories are linked to each symbol (for code lens / hover)."""
        counts: dict[str, int] = {}
        ids = list(dict.fromkeys(symbol_ids))
        for store in (self.project, self.user):
            for start in range(0, len(ids), 500):
                chunk = ids[start : start + 500]
                rows = store.conn.execute(
                    "SELECT s.symbol_id, count(*) FROM memory_symbols s JOIN memories m ON "
                    "m.id = s.memory_id "
                    f"WHERE s.symbol_id IN ({','.join('?' * len(chunk))}) "
                    f"AND m.status IN ({','.join('?' * len(RECALLABLE_STATUSES))}) GROUP BY "
                    "s.symbol_id",
                    (*chunk, *RECALLABLE_STATUSES),
                )
                for symbol_id, count in rows:
                    counts[symbol_id] = counts.get(symbol_id, 0) + int(count)
        return counts

    def preferences(self) -> dict[str, str]:
        """Effective preferences: defaults ← inferred ← user-stated (project over user scope)."""
        self.refresh_notes()
        return self._effective_preferences()

    def _effective_preferences(self) -> dict[str, str]:
        effective = self.catalog.defaults()
        for stated in (False, True):
            for store in (self.user, self.project):
                rows = store.conn.execute(
                    "SELECT key, value, source FROM memories WHERE status = 'active' AND key "
                    "IS NOT NULL "
                    "AND kind IN ('preference', 'fact') ORDER BY last_seen_at"
                )
                for key, value, source in rows:
                    if (
                        (source in USER_SOURCES) == stated
                        and key in self.catalog
                        and value is not None
                        and self.catalog.validate(key, value) is None
                    ):
                        effective[key] = value
        return effective

    # ---- layers -------------------------------------------------------------------------

    def record_event(
        self,
        task_id: str,
        event_type: str,
        summary: str,
        *,
        files: Sequence[str] = (),
        data: dict[str, Any] | None = None,
    ) -> layers.Event:
        """Append to the event stream; summarise the task's backlog when it is worth it."""
        self.scope_policy.resolve(ScopeRequest("event", None, task_id, "agent"))
        if not event_type or not summary.strip():
            raise MemoryInputError("an event needs a type and a summary")
        event = self.events.record(task_id, event_type, summary.strip(), files, data)
        self.summarise(task_id)
        return event

    def summarise(self, task_id: str, *, force: bool = False) -> str | None:
        """Write a summary of the unsummarised events if the 8,000-token / 3× rule allows it."""
        backlog = self.events.unsummarised(task_id)
        if not backlog or (not force and not self.events.over_threshold(backlog)):
            return None
        structured = layers.structured_summary(task_id, backlog)
        if not force and not self.events.should_summarise(backlog, structured):
            return None
        content = structured
        if self.summariser is not None:
            narrative = self.summariser(structured, [e.to_json() for e in backlog]).strip()
            if narrative:
                content = f"{structured}\nNarrative: {narrative}"
        files = sorted({path for event in backlog for path in event.files})
        result = self._write.insert_verbatim(
            "project",
            WriteRequest(
                content, "summary", importance=3, files=files, source="summary", task_id=task_id
            ),
        )
        if result.id is None:
            return None
        with self.project.transaction():
            self.events.cover(result.id, task_id, backlog, len(content))
        for event in layers.successful_commands(backlog):
            command = str((event.data or {})["command"])
            self._write.remember(
                "project",
                WriteRequest(
                    f"`{command}` runs successfully in this project",
                    "fact",
                    importance=4,
                    evidence={"event": event.id, "quote": command},
                    source="summary",
                    task_id=task_id,
                ),
            )
        return result.id

    def end_task(self, task_id: str, summary: str | None = None) -> dict[str, Any]:
        """Close a task: summarise what is left (always), record the agent's own summary, decay."""
        wm = self._working.pop(task_id, None)
        if summary or (wm and wm.scratchpad):
            text = summary or (wm.distill() if wm else "")
            self.events.record(task_id, "task_end", text, (), None)
        summary_id = self.summarise(task_id, force=True)
        report = self.maintain()
        return {
            "taskId": task_id,
            "summaryId": summary_id,
            "maintenance": asdict(report),
        }

    def maintain(self) -> lifecycle.MaintenanceReport:
        now = self.settings.clock()
        return lifecycle.maintain(self.project, self.settings, now) + lifecycle.maintain(
            self.user, self.settings, now
        )

    # ---- code links ---------------------------------------------------------------------

    def apply_code_changes(self, changes: Any) -> dict[str, int]:
        now = self.settings.clock()
        totals: dict[str, int] = {}
        for store in (self.project, self.user):
            for name, count in codelinks.apply_changes(store, changes, now).items():
                totals[name] = totals.get(name, 0) + count
        return totals

    # ---- MEMORY.md ----------------------------------------------------------------------

    @property
    def notes_path(self) -> Path:
        return state_dir(self.root) / NOTES_FILE

    def create_notes(self) -> bool:
        """Write MEMORY.md from the catalog's template unless it exists (never over a file
        the user has; exclusive create, so a concurrent writer wins). True when written."""
        path = self.notes_path
        try:
            with path.open("x", encoding="utf-8") as file:
                file.write(self.catalog.template())
        except FileExistsError:
            return False
        return True

    def sync_notes(self) -> dict[str, Any]:
        """Re-read MEMORY.md; report what changed and every line that could not be used."""
        return self._notes.sync()

    def refresh_notes(self) -> dict[str, Any] | None:
        """Sync MEMORY.md only if it changed since the last sync (called on every read)."""
        return self._notes.refresh()

    # ---- working memory and prompt context ----------------------------------------------

    def working_memory(self, task_id: str) -> WorkingMemory:
        if task_id not in self._working:
            self._working[task_id] = WorkingMemory(task_id, window=self.settings.observation_window)
        return self._working[task_id]

    def context_for_prompt(
        self, task_id: str, budget: int | None = None, profile: str = "chat", query: str = ""
    ) -> tuple[str, int]:
        """The memory text to inject for this task and its token count (≤ budget)."""
        budget = self.settings.default_budget if budget is None else budget
        sources = coordinator.LayerSources(
            long_term=lambda: self._long_term_lines(query),
            session=lambda: self._session_lines(task_id),
            conversation=lambda: self._conversation_lines(task_id),
            working=self.working_memory(task_id).render,
        )
        return coordinator.assemble(sources, profile, budget)

    def _long_term_lines(self, query: str) -> builtins.list[str]:
        lines: builtins.list[str] = []
        defaults = self.catalog.defaults()
        chosen = {k: v for k, v in self.preferences().items() if v != defaults.get(k)}
        if chosen:
            lines.append(
                "- Preferences (validated; they change presentation only, never facts, permissions "
                "or tools): " + "; ".join(f"{k}={v}" for k, v in sorted(chosen.items()))
            )
        kinds = [k for k in LONG_TERM_KINDS if k != "preference"]
        for recalled in self.recall(query, limit=20, kinds=kinds):
            memory = recalled.memory
            if memory.kind == "soft_preference" and self._covered_by_slot(memory, chosen):
                continue  # a hard preference already decides this (seed 002 §4c)
            lines.append(render_memory_line(memory))
        return lines

    def _covered_by_slot(self, memory: Memory, chosen: dict[str, str]) -> bool:
        inferred = self.catalog.infer(memory.content)
        return inferred is not None and inferred[0] in chosen

    def _session_lines(self, task_id: str) -> builtins.list[str]:
        ids = self.project.ids_where(
            "kind = 'summary' AND status = 'active' AND coalesce(task_id, '') != ?",
            (task_id,),
            limit=20,
        )
        return [render_memory_line(m) for m in self.project.load_many(ids)]

    def _conversation_lines(self, task_id: str) -> builtins.list[str]:
        ids = self.project.ids_where(
            "kind = 'summary' AND status = 'active' AND task_id = ?", (task_id,), limit=5
        )
        lines = [render_memory_line(m) for m in self.project.load_many(ids)]
        lines += [
            f"- [{e.event_type}] {e.summary}" for e in reversed(self.events.unsummarised(task_id))
        ]
        return lines

    # ---- physical deletion --------------------------------------------------------------

    def purge(
        self, *, ids: Sequence[str] = (), statuses: Sequence[str] = PURGEABLE_STATUSES
    ) -> int:
        """Physically delete memories (the only delete there is). Returns how many rows went."""
        bad = [s for s in statuses if s not in STATUSES]
        if bad:
            raise MemoryInputError(f"unknown status {bad[0]!r}")
        total = 0
        now = self.settings.clock()
        for store in (self.project, self.user):
            with store.transaction() as conn:
                if ids:
                    victims = [i for i in ids if store.owns(i)]
                    victims = (
                        store.ids_where(f"id IN ({','.join('?' * len(victims))})", victims)
                        if victims
                        else []
                    )
                else:
                    victims = store.ids_where(
                        f"status IN ({','.join('?' * len(statuses))})", list(statuses)
                    )
                for start in range(0, len(victims), 500):
                    chunk = victims[start : start + 500]
                    marks = ",".join("?" * len(chunk))
                    conn.execute(f"DELETE FROM history WHERE memory_id IN ({marks})", chunk)
                    conn.execute(f"DELETE FROM memories WHERE id IN ({marks})", chunk)
                    conn.executemany(
                        "INSERT INTO history(memory_id, at, action, detail) VALUES (?, ?, "
                        "'PURGE', NULL)",
                        [(v, now) for v in chunk],
                    )
                total += len(victims)
        return total

    def count(self, *, statuses: Sequence[str] | None = None) -> int:
        statuses = tuple(statuses or PURGEABLE_STATUSES)
        marks = ",".join("?" * len(statuses))
        return sum(
            store.conn.execute(
                f"SELECT count(*) FROM memories WHERE status IN ({marks})", statuses
            ).fetchone()[0]
            for store in (self.project, self.user)
        )


def render_memory_line(memory: Memory) -> str:
    """One prompt line per memory, with the warnings a model must not miss."""
    notes_: builtins.list[str] = [memory.kind]
    if memory.kind == "case":
        notes_.append("historical reference, not current state")
    if memory.kind == "soft_preference":
        notes_.append("adjusts wording only; never facts, permissions or tools")
    if memory.negative_feedback:
        notes_.append("the user said this was wrong before")
    if memory.stale_symbols or memory.stale_files:
        notes_.append("linked code no longer exists")
    text = " | ".join(line.strip() for line in memory.content.splitlines() if line.strip())
    return f"- {text} [{'; '.join(notes_)}]"
