"""The model table: model name -> tokenizer encoding, context window and prices.

One table serves three needs — counting tokens offline, pricing a call, and telling the
agent how large its context window is — so they can never disagree about a model. The
bundled ``models.json`` is ordered most-specific-first; settings entries come before it.
"""

from __future__ import annotations

import fnmatch
import functools
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

PER_MILLION = 1_000_000


@dataclass(frozen=True, slots=True)
class Price:
    """USD per 1M tokens; stored with every record so old reports never change."""

    input: float
    output: float
    cached: float
    cache_write: float | None = None  # writing the prompt cache (None: the input price)

    def cost(
        self, input_tokens: int, output_tokens: int, cached_tokens: int, cache_write_tokens: int = 0
    ) -> float:
        """Cost of one call: cached input reads are billed at the cached rate, input written
        to the prompt cache at the cache-write rate, the rest of the input at input."""
        plain = input_tokens - cached_tokens - cache_write_tokens
        write_price = self.input if self.cache_write is None else self.cache_write
        return (
            plain * self.input
            + cached_tokens * self.cached
            + cache_write_tokens * write_price
            + output_tokens * self.output
        ) / PER_MILLION


@dataclass(frozen=True, slots=True)
class ModelInfo:
    model: str
    pattern: str
    encoding: str
    context_window: int
    price: Price


@dataclass(frozen=True, slots=True)
class _Entry:
    pattern: str
    encoding: str
    context_window: int
    price: Price

    @classmethod
    def parse(cls, raw: Mapping[str, Any]) -> _Entry:
        try:
            entry = cls(
                pattern=str(raw["pattern"]).lower(),
                encoding=str(raw.get("encoding", "cl100k_base")),
                context_window=int(raw["context_window"]),
                price=Price(float(raw["input"]), float(raw["output"]),
                            float(raw.get("cached", raw["input"])),
                            float(raw["cache_write"]) if "cache_write" in raw else None),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"bad model table entry {dict(raw)!r}: {exc}") from exc
        if entry.context_window <= 0 or min(entry.price.input, entry.price.output,
                                            entry.price.cached,
                                            entry.price.cache_write or 0.0) < 0:
            raise ValueError(f"bad model table entry {dict(raw)!r}: negative price or window")
        return entry


class ModelTable:
    """First matching pattern wins; the bundled table ends with a ``*`` catch-all."""

    def __init__(self, entries: Iterable[Mapping[str, Any]]) -> None:
        self._entries = tuple(_Entry.parse(raw) for raw in entries)
        if not self._entries:
            raise ValueError("the model table is empty")

    @classmethod
    def with_overrides(cls, overrides: Sequence[Mapping[str, Any]] = ()) -> ModelTable:
        return cls([*overrides, *_bundled_entries()])

    @functools.lru_cache(maxsize=256)  # noqa: B019 - tables live as long as the process
    def lookup(self, model: str) -> ModelInfo:
        name = model.lower()
        for entry in self._entries:
            if fnmatch.fnmatchcase(name, entry.pattern):
                return ModelInfo(model, entry.pattern, entry.encoding, entry.context_window,
                                 entry.price)
        last = self._entries[-1]  # overrides without a catch-all still price unknown models
        return ModelInfo(model, last.pattern, last.encoding, last.context_window, last.price)


@functools.cache
def _bundled_entries() -> tuple[Mapping[str, Any], ...]:
    text = resources.files(__package__).joinpath("models.json").read_text(encoding="utf-8")
    return tuple(json.loads(text)["models"])


@functools.cache
def default_table() -> ModelTable:
    return ModelTable.with_overrides()


def model_info(model: str) -> ModelInfo:
    """Encoding, context window and prices of ``model`` from the bundled table."""
    return default_table().lookup(model)
