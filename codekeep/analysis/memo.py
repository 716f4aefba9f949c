"""Answers a code map keeps while its index is unchanged.

A question asked again of the same index (the next page of a name used 10k times, an
impact's callers when the editor's view refreshes) is a lookup instead of a decode. The
memo is keyed by ``IndexStore.version``: any write, by this process or another, forgets
everything, so what it answers is always what the index gives now. Bounded: past
``capacity`` entries the least recently asked goes first.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class IndexMemo(Generic[K, V]):
    """``get(version, key, compute)``: the kept answer for ``key`` at ``version``, else
    ``compute()``'s, kept. Not locked: the code map calls it under its own lock."""

    def __init__(self, capacity: int) -> None:
        self._capacity = capacity
        self._version: object = None
        self._kept: dict[K, V] = {}  # least recently asked first

    def get(self, version: object, key: K, compute: Callable[[], V]) -> V:
        if version != self._version:
            self._kept.clear()
            self._version = version
        if key in self._kept:
            found = self._kept.pop(key)
        else:
            found = compute()
            while len(self._kept) >= self._capacity:
                self._kept.pop(next(iter(self._kept)))
        self._kept[key] = found
        return found
