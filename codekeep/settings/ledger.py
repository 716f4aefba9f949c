"""Knobs of the token ledger, with the defaults the design documents call for.

Every field is a user setting (``codekeep.ledger.*``, see docs/settings.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from codekeep.settings.fields import check_bounds, setting


@dataclass(frozen=True, slots=True)
class LedgerSettings:
    """How the ledger buffers, ages, budgets and prices calls.

    ``flush_interval_s`` is half a second so that a process killed with SIGKILL loses
    at most one second of records even when a flush itself takes a while.
    ``models`` entries (``{"pattern", "encoding", "context_window", "input", "output",
    "cached"}``, prices in USD per 1M tokens) are consulted before the bundled table,
    so a user can correct a price or add a model without editing package data.
    """

    flush_interval_s: float = setting(
        "Seconds between writes of buffered calls to `.codekeep/ledger.db`.",
        default=0.5, above=0)
    task_idle_timeout_s: float = setting(
        "A task without activity for this many seconds is closed.", default=300.0, above=0)
    retention_days: int = setting(
        "Raw call rows older than this are compacted into daily roll-ups.",
        default=30, minimum=1)
    store_content: bool = setting(
        "Store prompt and completion text (secrets redacted); off: counts and paths only.",
        default=False)
    warn_ratios: tuple[float, ...] = setting(
        "Fractions of a budget at which a warning is announced.",
        default=(0.75, 1.0), above=0, min_items=1)
    models: tuple[Mapping[str, Any], ...] = setting(
        "Extra or corrected model entries `{pattern, encoding, context_window, input, "
        "output, cached}` (USD per 1M tokens), consulted before the bundled table.",
        default=())

    def __post_init__(self) -> None:
        check_bounds(self)
