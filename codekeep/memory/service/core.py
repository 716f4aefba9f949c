"""What every part of the memory service shares: the two databases, routing, the write
path, the retriever, the event log, ``MEMORY.md`` and the forgetting schedule.

The parts (``writing``, ``reading``, ``feedback``, ``tasks``, ``prompt``, ``upkeep``)
each add one job's methods on top of this core; :class:`MemoryService` is their sum.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import codekeep.memory.events as events
import codekeep.memory.lifecycle as lifecycle
from codekeep.common.workspace import state_dir
from codekeep.embeddings.embedders import embedder_for
from codekeep.memory.catalog import PreferenceCatalog
from codekeep.memory.evidence import EvidenceVerifier
from codekeep.memory.model import USER_SOURCES, MemoryInputError, WriteResult
from codekeep.memory.notes_sync import NOTES_FILE, NotesSync
from codekeep.memory.retrieval import Retriever
from codekeep.memory.scope import ScopePolicy
from codekeep.memory.store import MemoryStore
from codekeep.memory.store.target import WriteTarget
from codekeep.memory.team_scope import TeamScope, is_team_id
from codekeep.memory.working import WorkingMemory
from codekeep.memory.write import WritePath, WriteRequest
from codekeep.settings.memory import MemorySettings
from codekeep.settings.team import NOT_CONFIGURED

# Kinds whose keyed rows can set a catalog preference.
_PREFERENCE_KINDS = ("preference", "fact")


class ServiceCore:
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
        # every database, in the order reads merge them (project first)
        self.stores: tuple[MemoryStore, ...] = (project, user)
        self.settings = settings
        self.scope_policy = scope_policy
        self.catalog = catalog
        self._deferred: set[str] = set()  # tasks whose summaries the agent's model writes
        embeddings = settings.embeddings
        self.embedder = embedder_for(embeddings)
        self.events = events.EventLog(project, settings)
        self.verifier = EvidenceVerifier(root, self.events.event_text)
        self._write = WritePath(
            self._store_for_scope, catalog, self.verifier, settings, self._after_write
        )
        self._retriever = Retriever(self.stores, settings, self.embedder)
        self._working: dict[str, WorkingMemory] = {}
        # the team scope (PostgreSQL), when a team database is configured
        self.team: TeamScope | None = None
        # why the last read could not include the team's memories (None: it did)
        self.team_warning: str | None = None
        # why a configured team DSN cannot be used at all (not PostgreSQL ...)
        self.team_refused: str | None = None
        self._notes = NotesSync(
            state_dir(root) / NOTES_FILE,
            project,
            self._write,
            catalog,
            settings.clock,
            self._effective_preferences,
        )

    def close(self) -> None:
        if self.team is not None:
            self.team.close()
        if self.embedder:
            self.embedder.close()
        for store in self.stores:
            store.close()

    # ---- routing ------------------------------------------------------------------------

    def _store_for_scope(self, scope: str) -> WriteTarget:
        if scope == "team":
            return self._team().store
        return self.user if scope == "user" else self.project

    def _team(self) -> TeamScope:
        """The team scope, or the one-line reason there is none."""
        if self.team is None:
            raise MemoryInputError(self.team_refused or NOT_CONFIGURED)
        return self.team

    def _remember_in(self, scope: str, request: WriteRequest) -> WriteResult:
        """The one write path, for every scope (local SQLite or the team database)."""
        return self._write.remember(scope, request)

    def _store_for_id(self, memory_id: str) -> WriteTarget | None:
        """The database holding ``memory_id`` (a team id without a team database: the
        one-line reason); None when no database owns it."""
        if is_team_id(memory_id):
            return self._team().store
        for store in self.stores:
            if store.owns(memory_id):
                return store
        return None

    def _after_write(self, store: WriteTarget, scope: str, memory_id: str, grew: bool) -> None:
        # only a new row can push a scope over capacity; the team's capacity is the
        # team's to manage (one member's writes must not evict another's memories)
        if grew and isinstance(store, MemoryStore):
            now = self.settings.clock()
            lifecycle.enforce_capacity(store, scope, self.settings.capacity_per_scope, now)
        # no vector here: a write never waits for the endpoint; the next recall embeds it

    # ---- MEMORY.md and the preferences it states ------------------------------------------

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

    def _effective_preferences(self) -> dict[str, str]:
        """Defaults ← inferred ← user-stated, project over user scope, newest last."""
        effective = self.catalog.defaults()
        for stated in (False, True):
            for store in (self.user, self.project):
                for key, value, source in store.keyed_values(_PREFERENCE_KINDS):
                    if (
                        (source in USER_SOURCES) == stated
                        and key in self.catalog
                        and value is not None
                        and self.catalog.validate(key, value) is None
                    ):
                        effective[key] = value
        return effective

    # ---- forgetting ---------------------------------------------------------------------

    def maintain(self) -> lifecycle.MaintenanceReport:
        """Run the time-based forgetting rules over every database."""
        now = self.settings.clock()
        report = lifecycle.MaintenanceReport()
        for store in self.stores:
            report += lifecycle.maintain(store, self.settings, now)
        return report
