"""The per-workspace bundle of services that both front doors (CLI and server) open.

A workspace folder has one code map, one knowledge base (its docs), one memory store
and one ledger, all under
``<root>/.codekeep/``. Opening them, wiring them together (memory follows code changes
so its links to symbols survive renames and deletions) and closing them in the right
order lives here once, so the ``codekeep`` commands and ``codekeep serve`` cannot drift
apart.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from codekeep.analysis.codemap import CodeMap
from codekeep.analysis.model import ChangeSet
from codekeep.analysis.reads import symbol_read
from codekeep.common.sqlite import DatabaseDamagedError, explain_damage
from codekeep.common.workspace import state_dir
from codekeep.docs import DocsIndex
from codekeep.ledger import BudgetEvent, Ledger
from codekeep.ledger.ledger import DB_NAME
from codekeep.memory import MemoryService
from codekeep.settings import Settings
from codekeep.settings.ledger import LedgerSettings
from codekeep.settings.memory import MemorySettings
from codekeep.settings.team import TeamSettings

if TYPE_CHECKING:
    from codekeep.team.sender import TeamSender

logger = logging.getLogger(__name__)

# Runs a zero-argument update on the thread that owns the services.
OwnerRunner = Callable[[Callable[[], Any]], None]
BudgetListener = Callable[[BudgetEvent], None]
T = TypeVar("T")


class WorkspaceServices:
    """The open services of one workspace folder: one instance of each store.

    Everything in a process that works on this folder (the server's features, the
    agent, the CLI) uses these instances, so one memory follows code changes and one
    ledger decides budget crossings. Not thread-safe as a whole: one owner thread makes
    every call (the server gives each folder a worker thread for exactly this).
    """

    def __init__(
        self,
        root: Path,
        settings: Settings,
        codemap: CodeMap,
        memory: MemoryService,
        ledger: Ledger,
        docs: DocsIndex,
        on_owner: OwnerRunner | None = None,
    ) -> None:
        self.root = root
        self.settings = settings
        self.codemap = codemap
        self.docs = docs
        self.memory = memory
        self.ledger = ledger
        # The code map may announce changes from its indexing thread; memory must be
        # told on the owner thread. The server passes "queue on the folder's worker";
        # single-threaded callers (the CLI) run the update on the spot.
        self._on_owner: OwnerRunner = on_owner or _run_now
        self._budget_listeners: list[BudgetListener] = []
        self._stores_settings = settings  # what memory and the ledger were opened with
        self._holders = 0  # long tasks (the agent) using memory and the ledger across calls
        self._closed = False
        self._wire()
        self.ledger.subscribe(self._budget_crossed)
        self.sender = _start_sender(root, settings, self.ledger, self._budget_crossed)

    @classmethod
    def open(
        cls,
        root: Path,
        settings: Settings | None = None,
        *,
        on_owner: OwnerRunner | None = None,
    ) -> WorkspaceServices:
        """Open (creating if needed) every store under ``<root>/.codekeep/``.

        ``settings`` is the resolved tree (``codekeep.settings.load_settings(root)``);
        None means the defaults, without reading any file or the environment.
        """
        settings = settings or Settings()
        opened: list[Any] = []
        try:
            codemap = CodeMap.open(root, settings.index)
            opened.append(codemap)
            memory = _open_memory(codemap.root, settings.memory, settings.team)
            opened.append(memory)
            ledger = _open_ledger(codemap.root, settings.ledger)
            opened.append(ledger)
            docs = DocsIndex.open(codemap.root, settings.index,
                                  settings.docs)
        except BaseException:
            _close_all(reversed(opened))  # a half-open bundle must not hold files open
            raise
        return cls(codemap.root, settings, codemap, memory, ledger, docs, on_owner)

    def _wire(self) -> None:
        """Memory follows code changes (renamed or deleted symbols keep or drop links)."""
        self.codemap.subscribe(self._code_changed)

    def _code_changed(self, changes: ChangeSet) -> None:
        if not changes.is_empty():
            self._on_owner(lambda: self.memory.apply_code_changes(changes))

    @property
    def closed(self) -> bool:
        return self._closed

    def ledger_report(self, **options: Any) -> dict[str, Any]:
        """The ledger report with the code map's cheaper reads next to re-read files."""
        codemap = self.codemap
        return self.ledger.report(suggest=lambda path: symbol_read(codemap, path), **options)

    def subscribe_budget(self, listener: BudgetListener) -> None:
        """Call ``listener`` once per budget threshold crossed by any call recorded in
        this folder (ledger requests, the agent ...); it stays subscribed when a
        settings change reopens the ledger. May be called on the ledger's flush thread.
        """
        self._budget_listeners.append(listener)

    def _budget_crossed(self, event: BudgetEvent) -> None:
        for listener in list(self._budget_listeners):
            try:
                listener(event)
            except Exception:  # one broken listener must not silence the others
                logger.exception("budget listener failed")

    def reconfigure(self, settings: Settings, open_paths: Sequence[str] = ()) -> bool:
        """Apply new settings; returns True when the index must be brought up to date.

        A store's settings are fixed per instance, so a changed section reopens that
        store on the same database: memory and the ledger are reopened in place (the
        ledger flushed first, budget listeners kept) — once no task holds them (see
        :meth:`hold_stores`); a changed code map keeps its database (the next
        ``index()`` is a warm one) and the editor's buffers (``open_paths``, unsaved
        text included) move to the new instance.
        """
        if settings == self.settings:
            return False
        old = self.settings
        self.settings = settings
        self._apply_store_settings()
        docs_changed = settings.docs != old.docs
        if docs_changed or settings.index != old.index:
            self.docs.close()
            self.docs = DocsIndex.open(self.root, settings.index,
                                       settings.docs)
        if settings.index == old.index:
            return docs_changed
        buffers = {
            path: text
            for path in open_paths
            if self.codemap.is_open(path) and (text := self.codemap.document_text(path))
        }
        self.codemap.close()
        self.codemap = CodeMap.open(self.root, settings.index)
        self._wire()
        for path, data in buffers.items():
            self.codemap.open_document(path, data.decode("utf-8", "surrogatepass"))
        return True

    def hold_stores(self) -> tuple[CodeMap, MemoryService, Ledger]:
        """The stores, for a task that keeps using these instances across many calls.

        Until the matching :meth:`release_stores`, a settings change does not replace
        memory or the ledger under the task (its working memory and open ledger task
        live in them); the change is applied when the last holder releases.
        """
        self._holders += 1
        return self.codemap, self.memory, self.ledger

    def release_stores(self) -> None:
        self._holders = max(0, self._holders - 1)
        self._apply_store_settings()

    def _apply_store_settings(self) -> None:
        """Reopen memory / the ledger if their settings section changed (when unheld)."""
        if self._holders or self._closed:
            return
        wanted, opened = self.settings, self._stores_settings
        if (wanted.memory, wanted.team) != (opened.memory, opened.team):
            self.memory.close()
            self.memory = _open_memory(self.root, wanted.memory, wanted.team)
        if (wanted.ledger, wanted.team) != (opened.ledger, opened.team) and self.sender:
            self.sender.close()
            self.sender = None
        if wanted.ledger != opened.ledger:
            self.ledger.close()
            self.ledger = _open_ledger(self.root, wanted.ledger)
            self.ledger.subscribe(self._budget_crossed)
        if (wanted.ledger, wanted.team) != (opened.ledger, opened.team):
            self.sender = _start_sender(self.root, wanted, self.ledger, self._budget_crossed)
        self._stores_settings = wanted

    def close(self) -> None:
        """Flush and close every store (ledger first: it may still write); safe twice."""
        if self._closed:
            return
        self._closed = True
        if self.sender is not None:  # before the ledger closes; what is left goes detached
            try:
                self.sender.close(self.root)
            except Exception:
                logger.exception("handing the team outbox over failed; the next sender sends it")
        try:  # while memory is open: links to unsaved symbols follow them away
            self.codemap.release_buffers()
        except Exception:
            logger.exception("putting unsaved buffers back to the disk's content failed")
        _close_all([self.ledger, self.docs, self.memory, self.codemap])


class DamagedStore:
    """Stands in for a memory or ledger whose database is damaged, so that one store's
    damage does not take the folder down: the code map keeps answering, and every use
    of this store raises the same one-line :class:`DatabaseDamagedError` (naming the
    file and how to repair it), which the doors show as a clear failure."""

    def __init__(self, error: DatabaseDamagedError) -> None:
        self.error = error

    def close(self) -> None:
        """Nothing was opened."""

    def subscribe(self, _listener: object) -> None:
        """A ledger that records nothing crosses no budget."""

    def __getattr__(self, name: str) -> Any:
        raise self.error


def _opened_or_damaged(opener: Callable[[], T], files: Sequence[Path], command: str) -> T:
    try:
        return opener()
    except sqlite3.DatabaseError as error:
        damage = explain_damage(error, files, f"stop the server and run `{command} --repair`")
        if damage is None:
            raise
        logger.error("%s", damage)
        return cast(T, DamagedStore(damage))


def store_files(root: Path) -> list[Path]:
    """The durable databases of folder ``root`` (the index is a cache, not among them)."""
    return [*MemoryService.files(root), state_dir(root) / DB_NAME]


def open_memory(root: Path, settings: MemorySettings, team: TeamSettings,
                user_dir: Path | None = None) -> MemoryService:
    """Memory with its team scope handed in: memory declares what it needs of the team
    (:class:`~codekeep.memory.team_scope.TeamScope`) and never imports the team area."""
    root = Path(root).resolve()
    if not team.dsn.strip():
        return MemoryService.open(root, user_dir, settings)
    from codekeep.team.memory import open_team_memory

    shared, refused = open_team_memory(team, settings, root)
    try:
        return MemoryService.open(root, user_dir, settings, team=shared, team_refused=refused)
    except BaseException:
        if shared is not None:
            shared.close()
        raise


def _open_memory(root: Path, settings: MemorySettings, team: TeamSettings) -> MemoryService:
    return _opened_or_damaged(lambda: open_memory(root, settings, team),
                              MemoryService.files(root), "codekeep memory list")


def _open_ledger(root: Path, settings: LedgerSettings) -> Ledger:
    return _opened_or_damaged(lambda: Ledger.open(root, settings),
                              [state_dir(root) / DB_NAME], "codekeep ledger report")


def _start_sender(root: Path, settings: Settings, ledger: Ledger,
                  on_budget: BudgetListener) -> TeamSender | None:
    """The background sender of this folder's ledger to the team database (None: no team
    database, or a ledger that could not be opened)."""
    if not settings.team.dsn.strip() or not isinstance(ledger, Ledger):
        return None
    from codekeep.team.config import team_config
    from codekeep.team.errors import TeamError
    from codekeep.team.ledger import TeamLedger
    from codekeep.team.sender import TeamSender

    config = team_config(settings.team, root)
    assert config is not None
    try:
        team = TeamLedger(config, root)
    except TeamError as exc:  # not a PostgreSQL DSN: the team doors say so when used
        logger.warning("team ledger not sent: %s", exc)
        return None
    return TeamSender(ledger, team, interval_s=settings.team.ship_interval_s,
                      daily_budget=settings.team.daily_budget,
                      warn_ratios=settings.ledger.warn_ratios, on_budget=on_budget).start()


def _run_now(update: Callable[[], Any]) -> None:
    update()


def _close_all(stores: Iterable[Any]) -> None:
    """Close each store even if an earlier one fails; re-raise the first failure."""
    failure: BaseException | None = None
    for store in stores:
        try:
            store.close()
        except BaseException as error:
            logger.exception("closing %s failed", type(store).__name__)
            failure = failure or error
    if failure is not None:
        raise failure
