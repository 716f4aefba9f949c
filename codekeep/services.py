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
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar, cast

from codekeep.analysis.codemap import CodeMap
from codekeep.analysis.model import ChangeSet
from codekeep.analysis.reads import symbol_read
from codekeep.analysis.settings import DEFAULT_MAX_FILE_BYTES, IndexSettings
from codekeep.common.sqlite import DatabaseDamagedError, explain_damage
from codekeep.common.workspace import state_dir
from codekeep.docs import DocsIndex, DocsSettings
from codekeep.ledger import BudgetEvent, Ledger
from codekeep.ledger.ledger import DB_NAME
from codekeep.ledger.settings import LedgerSettings
from codekeep.ledger.settings import settings_from_json as ledger_settings
from codekeep.memory import MemoryService, MemorySettings

logger = logging.getLogger(__name__)

# Runs a zero-argument update on the thread that owns the services.
OwnerRunner = Callable[[Callable[[], Any]], None]
BudgetListener = Callable[[BudgetEvent], None]
T = TypeVar("T")


class SettingsError(ValueError):
    """A setting has the wrong shape; the message names the key and what was expected."""


@dataclass(frozen=True, slots=True)
class WorkspaceSettings:
    """User-facing settings (the ``codekeep`` section of an editor's configuration).

    ``exclude`` adds gitignore-style globs to the built-in excludes, ``max_file_size``
    is the byte cap above which files are not indexed, ``languages`` limits indexing to
    the named languages (``None``: all). ``extra`` keeps the keys other areas read
    (memory, ledger, agent) so one settings object travels through the server.
    """

    exclude: tuple[str, ...] = ()
    max_file_size: int = DEFAULT_MAX_FILE_BYTES
    languages: tuple[str, ...] | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_json(cls, data: Any) -> WorkspaceSettings:
        """Parse ``{"exclude": [...], "maxFileSize": n, "languages": [...], ...}``."""
        if data is None:
            return cls()
        if not isinstance(data, Mapping):
            raise SettingsError(f"settings must be an object, got {type(data).__name__}")
        known = {"exclude", "maxFileSize", "languages"}
        settings = cls(
            exclude=_string_tuple(data, "exclude") or (),
            max_file_size=_positive_int(data, "maxFileSize", DEFAULT_MAX_FILE_BYTES),
            languages=_string_tuple(data, "languages"),
            extra={key: value for key, value in data.items() if key not in known},
        )
        try:  # reject a bad memory/ledger/docs section now, with the rest, not at open
            settings.memory_settings()
            settings.ledger_settings()
            settings.docs_settings()
        except ValueError as error:
            raise SettingsError(str(error)) from error
        return settings

    def to_json(self) -> dict[str, Any]:
        return {
            "exclude": list(self.exclude),
            "maxFileSize": self.max_file_size,
            "languages": None if self.languages is None else list(self.languages),
            **self.extra,
        }

    def memory_settings(self) -> MemorySettings:
        """The ``memory`` section (embedding endpoint; absent: from the environment)."""
        return MemorySettings.from_json(self.extra.get("memory"))

    def ledger_settings(self) -> LedgerSettings:
        """The ``ledger`` section (flush interval, retention, warn ratios, models ...)."""
        return ledger_settings(self.extra.get("ledger"))

    def docs_settings(self) -> DocsSettings:
        """The ``docs`` section (chunk sizes, expansion, embeddings; see DocsSettings)."""
        return DocsSettings.from_json(self.extra.get("docs"))

    def index_settings(self, base: IndexSettings | None = None) -> IndexSettings:
        return replace(
            base or IndexSettings(),
            extra_exclude=self.exclude,
            max_file_bytes=self.max_file_size,
            languages=self.languages,
        )


def _string_tuple(data: Mapping[str, Any], key: str) -> tuple[str, ...] | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
        raise SettingsError(f"'{key}' must be a list of strings, got {value!r}"[:120])
    return tuple(value)


def _positive_int(data: Mapping[str, Any], key: str, default: int) -> int:
    value = data.get(key)
    if value is None:
        return default
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise SettingsError(f"'{key}' must be a positive integer, got {value!r}"[:120])
    return value


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
        settings: WorkspaceSettings,
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

    @classmethod
    def open(
        cls,
        root: Path,
        settings: WorkspaceSettings | None = None,
        *,
        on_owner: OwnerRunner | None = None,
    ) -> WorkspaceServices:
        """Open (creating if needed) every store under ``<root>/.codekeep/``.

        Memory, the ledger and the docs read their sections of ``settings.extra``
        (``memory``, ``ledger``, ``docs``); absent sections mean the defaults (embeddings
        from the environment).
        """
        settings = settings or WorkspaceSettings()
        opened: list[Any] = []
        try:
            codemap = CodeMap.open(root, settings.index_settings())
            opened.append(codemap)
            memory = _open_memory(codemap.root, settings.memory_settings())
            opened.append(memory)
            ledger = _open_ledger(codemap.root, settings.ledger_settings())
            opened.append(ledger)
            docs = DocsIndex.open(codemap.root, settings.index_settings(),
                                  settings.docs_settings())
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

    def reconfigure(self, settings: WorkspaceSettings, open_paths: Sequence[str] = ()) -> bool:
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
        docs_changed = settings.docs_settings() != old.docs_settings()
        if docs_changed or settings.index_settings() != old.index_settings():
            self.docs.close()
            self.docs = DocsIndex.open(self.root, settings.index_settings(),
                                       settings.docs_settings())
        if settings.index_settings() == old.index_settings():
            return docs_changed
        buffers = {
            path: text
            for path in open_paths
            if self.codemap.is_open(path) and (text := self.codemap.document_text(path))
        }
        self.codemap.close()
        self.codemap = CodeMap.open(self.root, settings.index_settings())
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
        if wanted.memory_settings() != opened.memory_settings():
            self.memory.close()
            self.memory = _open_memory(self.root, wanted.memory_settings())
        if wanted.ledger_settings() != opened.ledger_settings():
            self.ledger.close()
            self.ledger = _open_ledger(self.root, wanted.ledger_settings())
            self.ledger.subscribe(self._budget_crossed)
        self._stores_settings = wanted

    def close(self) -> None:
        """Flush and close every store (ledger first: it may still write); safe twice."""
        if self._closed:
            return
        self._closed = True
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


def _open_memory(root: Path, settings: MemorySettings) -> MemoryService:
    return _opened_or_damaged(lambda: MemoryService.open(root, settings=settings),
                              MemoryService.files(root), "codekeep memory list")


def _open_ledger(root: Path, settings: LedgerSettings) -> Ledger:
    return _opened_or_damaged(lambda: Ledger.open(root, settings),
                              [state_dir(root) / DB_NAME], "codekeep ledger report")


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
