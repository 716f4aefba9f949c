"""Forgetting: demotion, archiving, disabling and the per-scope capacity.

All time limits count from the last time a memory was *used*: seen again (reinforced)
or returned by a recall, whichever is later. Preferences and notes are configuration
the user controls (``MEMORY.md``, ``remember --kind preference``) and are exempt.
Nothing here deletes a row; statuses change and each change is written to history.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from codekeep.memory.model import LONG_TERM_KINDS, OBSERVING_SOURCES
from codekeep.memory.store import MemoryFilter, MemoryStore
from codekeep.settings.memory import DAY, MemorySettings

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


@dataclass(frozen=True, slots=True)
class _Rule:
    """One time-based transition: the rows it selects, what it sets, which count it adds to."""

    action: str
    where: MemoryFilter
    fields: Mapping[str, object]
    counts_as: str  # a MaintenanceReport field


def _rules(settings: MemorySettings, now: float) -> tuple[_Rule, ...]:
    """In order: disable the long unused, demote unconfirmed observations, archive the
    unused, archive what expired."""
    unused_for = {  # last used before
        "disable": now - settings.disable_after_days * DAY,
        "demote": now - settings.demote_after_days * DAY,
        "archive": now - settings.archive_after_days * DAY,
    }
    archived = {"status": "archived"}
    return (
        _Rule(
            "DISABLE_UNUSED",
            MemoryFilter(
                statuses=("active", "archived", "observed"),
                kinds=DECAYING_KINDS,
                last_used_before=unused_for["disable"],
            ),
            {"status": "disabled"},
            "disabled",
        ),
        _Rule(
            "DEMOTE",
            MemoryFilter(
                statuses=("active",),
                kinds=("fact", "insight"),
                sources=OBSERVING_SOURCES,
                last_used_before=unused_for["demote"],
            ),
            {"status": "observed", "support_count": 1},
            "demoted",
        ),
        _Rule(
            "ARCHIVE_UNUSED",
            MemoryFilter(
                statuses=("active", "confirmed_resolved"),
                kinds=DECAYING_KINDS,
                last_used_before=unused_for["archive"],
            ),
            archived,
            "archived",
        ),
        _Rule(
            "EXPIRE",
            MemoryFilter(statuses=("active", "observed", "confirmed_resolved"), expires_by=now),
            archived,
            "archived",
        ),
    )


def maintain(store: MemoryStore, settings: MemorySettings, now: float) -> MaintenanceReport:
    """Run every time-based rule once, then enforce capacity for each scope of ``store``."""
    counts = {"demoted": 0, "archived": 0, "disabled": 0, "evicted": 0}
    with store.transaction():
        for rule in _rules(settings, now):
            counts[rule.counts_as] += store.transition(rule.where, rule.action, now, **rule.fields)
        counts["evicted"] = sum(
            enforce_capacity(store, scope, settings.capacity_per_scope, now)
            for scope in store.scopes
        )
    return MaintenanceReport(**counts)


def enforce_capacity(store: MemoryStore, scope: str, capacity: int, now: float) -> int:
    """Archive the least valuable active memories over capacity.

    Value is access_count × importance (``least_valuable`` order).
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
