"""Forgetting: demotion, archiving, disabling and the per-scope capacity (seed 000).

All time limits count from the last time a memory was *used*: seen again (reinforced)
or returned by a recall, whichever is later. Preferences and notes are configuration
the user controls (``MEMORY.md``, ``remember --kind preference``) and are exempt.
Nothing here deletes a row; statuses change and each change is written to history.
"""

from __future__ import annotations

from dataclasses import dataclass

from codekeep.memory.model import LONG_TERM_KINDS, OBSERVING_SOURCES
from codekeep.memory.settings import DAY, MemorySettings
from codekeep.memory.store import MemoryStore

EXEMPT_KINDS = ("preference", "note")
DECAYING_KINDS = tuple(k for k in (*LONG_TERM_KINDS, "summary") if k not in EXEMPT_KINDS)
CAPACITY_KINDS = tuple(k for k in LONG_TERM_KINDS if k not in EXEMPT_KINDS)
_LAST_USED = "max(last_seen_at, coalesce(last_accessed_at, 0))"


@dataclass(frozen=True, slots=True)
class MaintenanceReport:
    demoted: int = 0
    archived: int = 0
    disabled: int = 0
    evicted: int = 0

    def __add__(self, other: MaintenanceReport) -> MaintenanceReport:
        return MaintenanceReport(
            self.demoted + other.demoted,
            self.archived + other.archived,
            self.disabled + other.disabled,
            self.evicted + other.evicted,
        )


def _kinds(kinds: tuple[str, ...]) -> str:
    """An SQL list literal of known constant names (never user input)."""
    return ",".join(f"'{k}'" for k in kinds)


def _transition(
    store: MemoryStore,
    now: float,
    action: str,
    where: str,
    params: tuple[object, ...],
    assignments: str,
) -> int:
    """Apply ``assignments`` to the rows matching ``where`` and log each one."""
    store.conn.execute(
        "INSERT INTO history(memory_id, at, action, detail) SELECT id, ?, ?, NULL FROM "
        f"memories WHERE {where}",
        (now, action, *params),
    )
    return store.conn.execute(f"UPDATE memories SET {assignments} WHERE {where}", params).rowcount


def maintain(store: MemoryStore, settings: MemorySettings, now: float) -> MaintenanceReport:
    """Run every time-based rule once, then enforce capacity for each scope of ``store``."""
    with store.transaction():
        disabled = _transition(
            store,
            now,
            "DISABLE_UNUSED",
            f"status IN ('active','archived','observed') AND kind IN ({_kinds(DECAYING_KINDS)}) "
            f"AND {_LAST_USED} < ?",
            (now - settings.disable_after_days * DAY,),
            "status = 'disabled'",
        )
        demoted = _transition(
            store,
            now,
            "DEMOTE",
            "status = 'active' AND kind IN ('fact','insight') "
            f"AND source IN ({_kinds(OBSERVING_SOURCES)}) "
            f"AND {_LAST_USED} < ?",
            (now - settings.demote_after_days * DAY,),
            "status = 'observed', support_count = 1",
        )
        archived = _transition(
            store,
            now,
            "ARCHIVE_UNUSED",
            f"status IN ('active','confirmed_resolved') AND kind IN ({_kinds(DECAYING_KINDS)}) "
            f"AND {_LAST_USED} < ?",
            (now - settings.archive_after_days * DAY,),
            "status = 'archived'",
        )
        archived += _transition(
            store,
            now,
            "EXPIRE",
            "status IN ('active','observed','confirmed_resolved') AND expires_at IS NOT NULL "
            "AND expires_at <= ?",
            (now,),
            "status = 'archived'",
        )
        evicted = sum(
            enforce_capacity(store, scope, settings.capacity_per_scope, now)
            for scope in store.scopes
        )
    return MaintenanceReport(demoted, archived, disabled, evicted)


def enforce_capacity(store: MemoryStore, scope: str, capacity: int, now: float) -> int:
    """Archive the least valuable active memories over capacity.

    Value is access_count × importance as in seed 000, with access_count counted from 1
    so that never-recalled memories still differ by importance instead of all tying at 0.
    """
    live = (
        "status IN ('active','confirmed_resolved') AND scope = ? "
        f"AND kind IN ({_kinds(CAPACITY_KINDS)})"
    )
    (count,) = store.conn.execute(
        f"SELECT count(*) FROM memories WHERE {live}", (scope,)
    ).fetchone()
    excess = count - capacity
    if excess <= 0:
        return 0
    with store.transaction():
        value = "(access_count + 1) * importance"
        victims = store.ids_where(
            live, (scope,), order=f"{value} ASC, last_seen_at ASC", limit=excess
        )
        marks = ",".join("?" * len(victims))
        return _transition(
            store, now, "EVICT_CAPACITY", f"id IN ({marks})", tuple(victims), "status = 'archived'"
        )
