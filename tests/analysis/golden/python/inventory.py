"""A small inventory service: realistic Python for the golden test."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Iterable

from .storage import Backend as StorageBackend

LOG = logging.getLogger(__name__)
DEFAULT_LIMIT = 50
registry: dict[str, "Item"] = {}


@dataclass
class Item:
    sku: str
    quantity: int = 0
    tags: list[str] = field(default_factory=list)

    def restock(self, amount: int) -> Item:
        if amount < 0:
            raise ValueError("negative restock")
        self.quantity += amount
        return self


class Inventory:
    """Items by SKU."""

    class Error(Exception):
        pass

    def __init__(self, backend: StorageBackend) -> None:
        self.backend = backend
        self.items: dict[str, Item] = {}

    @property
    def size(self) -> int:
        return len(self.items)

    def add(self, item: Item) -> None:
        def log_added(sku: str) -> None:
            LOG.info("added %s", sku)

        self.items[item.sku] = item
        log_added(item.sku)

    def restock_all(self, skus: Iterable[str], amount: int = DEFAULT_LIMIT) -> list[Item]:
        restocked = [self.items[sku].restock(amount) for sku in skus]
        self.backend.save(restocked)
        return restocked


def load(backend: StorageBackend) -> Inventory:
    inventory = Inventory(backend)
    for row in backend.rows():
        inventory.add(Item(row["sku"], int(row["quantity"])))
    return inventory
