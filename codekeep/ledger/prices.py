"""The model table: model name -> tokenizer encoding, context window and prices.

One table serves three needs — counting tokens offline, pricing a call, and telling the
agent how large its context window is — so they can never disagree about a model. The
bundled ``models.json`` is ordered most-specific-first; settings entries come before it.

A model no entry names (the bundled table's last entry, ``*``, has no prices) is
*unpriced*: its calls are booked with cost 0 and ``priced`` false, and every report says
so instead of showing a silent $0.

Claude prices follow the rules Claude Code applies to its own ``total_cost_usd``:
5-minute and 1-hour prompt-cache writes at their own rates (1.25x and 2x input), a
long-prompt tier above a prompt size where a model has one, fast mode at its own
rates, US-only inference (``inference_geo: "us"``) at 1.1x, and web searches per
request.
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
US_ONLY_MULTIPLIER = 1.1


@dataclass(frozen=True, slots=True)
class Price:
    """USD per 1M tokens; stored with every record so old reports never change."""

    input: float
    output: float
    cached: float
    cache_write: float | None = None     # 5-minute prompt-cache writes (None: the input price)
    cache_write_1h: float | None = None  # 1-hour prompt-cache writes (None: as cache_write)

    def cost(
        self, input_tokens: int, output_tokens: int, cached_tokens: int,
        cache_write_tokens: int = 0, cache_write_1h_tokens: int = 0,
    ) -> float:
        """Cost of one call: cached input reads are billed at the cached rate, input written
        to the prompt cache at the cache-write rate of its lifetime (``cache_write_tokens``
        5 minutes, ``cache_write_1h_tokens`` one hour), the rest of the input at input."""
        plain = input_tokens - cached_tokens - cache_write_tokens - cache_write_1h_tokens
        write_5m = self.input if self.cache_write is None else self.cache_write
        write_1h = write_5m if self.cache_write_1h is None else self.cache_write_1h
        return (
            plain * self.input
            + cached_tokens * self.cached
            + cache_write_tokens * write_5m
            + cache_write_1h_tokens * write_1h
            + output_tokens * self.output
        ) / PER_MILLION


@dataclass(frozen=True, slots=True)
class Bill:
    """One call's usage as a provider bills it (the parts of ``input_tokens`` separately)."""

    input_tokens: int          # the whole prompt: fresh + cache reads + cache writes
    output_tokens: int         # thinking included
    cached_tokens: int = 0     # prompt-cache reads
    cache_write_5m: int = 0
    cache_write_1h: int = 0
    web_searches: int = 0
    fast: bool = False         # Claude fast mode (usage.speed == "fast")
    us_only: bool = False      # Claude US-only inference (usage.inference_geo == "us")


@dataclass(frozen=True, slots=True)
class Tiers:
    """A model's prices beyond the base one: a long-prompt tier and fast mode."""

    long_prompt_above: int | None = None
    long_prompt: Price | None = None
    fast: Price | None = None
    web_search: float = 0.0    # USD per web search request


@dataclass(frozen=True, slots=True)
class ModelInfo:
    model: str
    pattern: str
    encoding: str
    context_window: int
    price: Price
    priced: bool = True        # False: no table entry prices this model (booked unpriced)
    tiers: Tiers = Tiers()

    def cost(self, bill: Bill) -> float:
        """USD of one call, as the provider (and Claude Code's ``total_cost_usd``) bills it."""
        price = self.price
        tiers = self.tiers
        if tiers.long_prompt is not None and tiers.long_prompt_above is not None \
                and bill.input_tokens > tiers.long_prompt_above:
            price = tiers.long_prompt
        if bill.fast and tiers.fast is not None:
            price = tiers.fast
        tokens = price.cost(bill.input_tokens, bill.output_tokens, bill.cached_tokens,
                            bill.cache_write_5m, bill.cache_write_1h)
        multiplier = US_ONLY_MULTIPLIER if bill.us_only else 1.0
        return tokens * multiplier + bill.web_searches * tiers.web_search


def _price(raw: Mapping[str, Any]) -> Price:
    return Price(float(raw["input"]), float(raw["output"]),
                 float(raw.get("cached", raw["input"])),
                 float(raw["cache_write"]) if "cache_write" in raw else None,
                 float(raw["cache_write_1h"]) if "cache_write_1h" in raw else None)


def _negative(price: Price) -> bool:
    return min(price.input, price.output, price.cached, price.cache_write or 0.0,
               price.cache_write_1h or 0.0) < 0


@dataclass(frozen=True, slots=True)
class _Entry:
    pattern: str
    encoding: str
    context_window: int
    price: Price
    priced: bool
    tiers: Tiers

    @classmethod
    def parse(cls, raw: Mapping[str, Any]) -> _Entry:
        try:
            priced = "input" in raw or "output" in raw
            long_prompt = raw.get("long_prompt")
            entry = cls(
                pattern=str(raw["pattern"]).lower(),
                encoding=str(raw.get("encoding", "cl100k_base")),
                context_window=int(raw["context_window"]),
                price=_price(raw) if priced else Price(0.0, 0.0, 0.0),
                priced=priced,
                tiers=Tiers(
                    long_prompt_above=int(long_prompt["above"]) if long_prompt else None,
                    long_prompt=_price(long_prompt) if long_prompt else None,
                    fast=_price(raw["fast"]) if raw.get("fast") else None,
                    web_search=float(raw.get("web_search", 0.0)),
                ),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"bad model table entry {dict(raw)!r}: {exc}") from exc
        prices = [entry.price, entry.tiers.long_prompt, entry.tiers.fast]
        if entry.context_window <= 0 or entry.tiers.web_search < 0 or any(
                price is not None and _negative(price) for price in prices):
            raise ValueError(f"bad model table entry {dict(raw)!r}: negative price or window")
        return entry

    def info(self, model: str, priced: bool = True) -> ModelInfo:
        return ModelInfo(model, self.pattern, self.encoding, self.context_window, self.price,
                         self.priced and priced, self.tiers)


class ModelTable:
    """First matching pattern wins; the bundled table ends with an unpriced ``*``."""

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
                return entry.info(model)
        # No entry names it: the last entry's encoding and window, and no price.
        return self._entries[-1].info(model, priced=False)


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
