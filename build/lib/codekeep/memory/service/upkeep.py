"""Keeping the databases true and small: code links follow the code map's changes, and
``purge`` is the one physical delete there is (counting what it would take first)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import codekeep.memory.codelinks as codelinks
from codekeep.memory.model import STATUSES, MemoryInputError
from codekeep.memory.service.core import ServiceCore
from codekeep.memory.store import MemoryFilter

PURGEABLE_STATUSES = ("disabled", "superseded", "archived")


class Upkeep(ServiceCore):
    def apply_code_changes(self, changes: Any) -> dict[str, int]:
        """Relink, mark stale or restore memory links after a code map ``ChangeSet``."""
        now = self.settings.clock()
        totals: dict[str, int] = {}
        for store in self.stores:
            for name, count in codelinks.apply_changes(store, changes, now).items():
                totals[name] = totals.get(name, 0) + count
        return totals

    def purge(
        self, *, ids: Sequence[str] = (), statuses: Sequence[str] = PURGEABLE_STATUSES
    ) -> int:
        """Physically delete memories (the only delete there is). Returns how many rows went."""
        _check_statuses(statuses)
        total = 0
        now = self.settings.clock()
        for store in self.stores:
            if ids:
                where = MemoryFilter(ids=[i for i in ids if store.owns(i)])
            else:
                where = MemoryFilter(statuses=statuses)
            with store.transaction():
                total += store.purge(store.ids(where), now)
        return total

    def count(self, *, statuses: Sequence[str] | None = None) -> int:
        """How many memories have ``statuses`` (by default: what ``purge`` would take)."""
        where = MemoryFilter(statuses=tuple(statuses or PURGEABLE_STATUSES))
        return sum(store.count(where) for store in self.stores)


def _check_statuses(statuses: Sequence[str]) -> None:
    bad = [s for s in statuses if s not in STATUSES]
    if bad:
        raise MemoryInputError(f"unknown status {bad[0]!r}")
