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
from codekeep.memory.store import MemoryFilter, MemoryStore

EXEMPT_KINDS = ("preference", "note")
DECAYING_KINDS = tuple(k for k in (*LONG_TERM_KINDS, "summary") if k not in EXEMPT_KINDS)
CAPACITY_KINDS = tuple(k for k in LONG_TERM_KINDS if k not in EXEMPT_KINDS)


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


def maintain(store: MemoryStore, settings: MemorySettings, now: float) -> MaintenanceReport:
    """Run every time-based rule once, then enforce capacity for each scope of ``store``."""
    with store.transaction():
        disabled = store.transition(
            MemoryFilter(
                statuses=("active", "archived", "observed"),
                kinds=DECAYING_KINDS,
                last_used_before=now - settings.disable_after_days * DAY,
            ),
            "DISABLE_UNUSED",
            now,
            status="disabled",
        )
        demoted = store.transition(
            MemoryFilter(
                statuses=("active",),
                kinds=("fact", "insight"),
                sources=OBSERVING_SOURCES,
                last_used_before=now - settings.demote_after_days * DAY,
            ),
            "DEMOTE",
            now,
            status="observed",
            support_count=1,
        )
        archived = store.transition(
            MemoryFilter(
                statuses=("active", "confirmed_resolved"),
                kinds=DECAYING_KINDS,
                last_used_before=now - settings.archive_after_days * DAY,
            ),
            "ARCHIVE_UNUSED",
            now,
            status="archived",
        )
        archived += store.transition(
            MemoryFilter(statuses=("active", "observed", "confirmed_resolved"), expires_by=now),
            "EXPIRE",
            now,
            status="archived",
        )
        evicted = sum(
            enforce_capacity(store, scope, settings.capacity_per_scope, now)
            for scope in store.scopes
        )
    return MaintenanceReport(demoted, archived, disabled, evicted)


def enforce_capacity(store: MemoryStore, scope: str, capacity: int, now: float) -> int:
    """Archive the least valuable active memories over capacity.

    Value is access_count × importance as in seed 000 (``least_valuable`` order).
    """
    live = MemoryFilter(
        statuses=("active", "confirmed_resolved"), scope=scope, kinds=CAPACITY_KINDS
    )
    excess = store.count(live) - capacity
    if excess <= 0:
        return 0
    with store.transaction():
        victims = store.ids(live, order="least_valuable", limit=excess)
        return store.transition(MemoryFilter(ids=victims), "EVICT_CAPACITY", now, status="archived")
