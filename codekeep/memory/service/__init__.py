"""``MemoryService``: the one entry point to CodeKeep memory (docs/memory.md).

It owns two databases — ``<root>/.codekeep/memory.db`` (task and project scope) and
``<user data dir>/memory.db`` (user scope) — and is the sum of parts a reader can find
by job:

========== ===================================================================
``core``     databases, routing, write path, retriever, ``MEMORY.md``, forgetting
``writing``  ``writer`` (scope bound by the policy), ``remember``
``reading``  ``recall``, ``get``, ``list``, ``history``, by file / symbol, preferences
``feedback`` ``forget``, ``not_this``, ``undo_not_this``
``tasks``    events, summaries, ``end_task``, working memory
``prompt``   ``context_for_prompt`` (the injected memory text)
``upkeep``   code-link changes, ``purge``, ``count``
========== ===================================================================

The CLI and the language server are thin doors onto this class.
"""

from __future__ import annotations

from pathlib import Path

from codekeep.common.workspace import state_dir, user_data_dir
from codekeep.memory.catalog import PreferenceCatalog
from codekeep.memory.scope import DefaultScopePolicy, ScopePolicy
from codekeep.memory.service.feedback import Feedback
from codekeep.memory.service.prompt import PromptContext, render_memory_line
from codekeep.memory.service.upkeep import PURGEABLE_STATUSES, Upkeep
from codekeep.memory.service.writing import ScopedWriter, Writing
from codekeep.memory.store import MemoryStore
from codekeep.memory.team_scope import TeamScope
from codekeep.settings.memory import MemorySettings

__all__ = ["PURGEABLE_STATUSES", "MemoryService", "ScopedWriter", "render_memory_line"]


class MemoryService(Writing, Feedback, PromptContext, Upkeep):
    @staticmethod
    def files(root: Path, user_dir: Path | None = None) -> tuple[Path, Path]:
        """The project and the user database :meth:`open` uses for ``root``."""
        return (
            state_dir(Path(root).resolve()) / "memory.db",
            (user_dir or user_data_dir()) / "memory.db",
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
        team: TeamScope | None = None,
        team_refused: str | None = None,
    ) -> MemoryService:
        """``team``: the team scope, opened by the services from the settings' ``team``
        section (None: no team scope); ``team_refused``: why a configured team database
        cannot be used at all, said on first team use."""
        root = Path(root).resolve()
        settings = settings or MemorySettings()
        project_file, user_file = cls.files(root, user_dir)
        project = MemoryStore(project_file, ("project", "task"))
        user = MemoryStore(user_file, ("user",))
        service = cls(
            root,
            project,
            user,
            settings,
            scope_policy or DefaultScopePolicy(),
            catalog or PreferenceCatalog(),
        )
        service.team, service.team_refused = team, team_refused
        service.maintain()
        return service

    def __enter__(self) -> MemoryService:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
