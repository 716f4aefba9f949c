"""Knobs of the token ledger, with the defaults the design documents call for."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class LedgerSettings:
    """How the ledger buffers, ages, budgets and prices calls.

    ``flush_interval_s`` is half a second so that a process killed with SIGKILL loses
    at most one second of records even when a flush itself takes a while.
    ``models`` entries (``{"pattern", "encoding", "context_window", "input", "output",
    "cached"}``, prices in USD per 1M tokens) are consulted before the bundled table,
    so a user can correct a price or add a model without editing package data.
    """

    flush_interval_s: float = 0.5
    task_idle_timeout_s: float = 300.0
    retention_days: int = 30
    store_content: bool = False
    warn_ratios: Sequence[float] = (0.75, 1.0)
    models: Sequence[Mapping[str, Any]] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        if self.flush_interval_s <= 0:
            raise ValueError("flush_interval_s must be positive")
        if self.task_idle_timeout_s <= 0:
            raise ValueError("task_idle_timeout_s must be positive")
        if self.retention_days < 1:
            raise ValueError("retention_days must be at least 1")
        if not self.warn_ratios or any(ratio <= 0 for ratio in self.warn_ratios):
            raise ValueError("warn_ratios must be positive fractions, e.g. (0.75, 1.0)")


_JSON_KEYS = {"flushIntervalS": "flush_interval_s", "taskIdleTimeoutS": "task_idle_timeout_s",
              "retentionDays": "retention_days", "storeContent": "store_content",
              "warnRatios": "warn_ratios", "models": "models"}


def settings_from_json(data: Any) -> LedgerSettings:
    """The ``ledger`` object of the editor settings (camelCase keys) as settings.

    Raises ``ValueError`` naming the key when a value has the wrong shape.
    """
    if data is None:
        return LedgerSettings()
    if not isinstance(data, Mapping):
        raise ValueError(f"ledger settings must be an object, got {type(data).__name__}")
    unknown = sorted(set(data) - set(_JSON_KEYS))
    if unknown:
        raise ValueError(f"unknown ledger settings: {', '.join(unknown)}")
    values = {_JSON_KEYS[key]: value for key, value in data.items()}
    for key in ("warn_ratios", "models"):
        if key in values:
            if not isinstance(values[key], list | tuple):
                raise ValueError(f"ledger setting {key} must be a list")
            values[key] = tuple(values[key])
    try:
        return LedgerSettings(**values)
    except TypeError as error:
        raise ValueError(f"bad ledger settings: {error}") from None
