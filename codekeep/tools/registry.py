"""The tool registry: every tool declared once, exported to the model per capability.

Built-in tools are registered at start-up; forged tools are registered as temporary
entries with an expiry time and disappear on their own.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable
from typing import Any

from codekeep.tools.capabilities import Capability, capability
from codekeep.tools.normalize import to_snake
from codekeep.tools.spec import Handler, ToolSpec, tool

CATEGORY_DESCRIPTIONS: dict[str, str] = {
    "code_map": "Symbols, references, related code and a ranked map of the repository.",
    "files": "Read, search, list and write files inside the workspace.",
    "symbol_edits": "Change one symbol in place: replace, insert beside, delete.",
    "memory": "Long-term memory (remember, recall, forget) and the task scratchpad.",
    "ledger": "Token spending reports.",
    "docs": "Search the project's own documentation (Markdown, reST ...) by topic.",
    "system": "Run policy-checked commands in the workspace.",
    "meta": "Discover and load more tools.",
    "forge": "Create temporary tools from existing ones.",
    "forged": "Temporary tools created during this session.",
}

_WORD = re.compile(r"[a-z0-9]+")


class DuplicateToolError(ValueError):
    pass


class ToolRegistry:
    """Name -> :class:`ToolSpec`, with capability filtering and progressive disclosure."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._tools: dict[str, ToolSpec] = {}
        self._clock = clock

    # -- registration -------------------------------------------------------------------
    def register(self, spec: ToolSpec, *, replace: bool = False) -> ToolSpec:
        if spec.name in self._tools and not replace and not self._expired(self._tools[spec.name]):
            raise DuplicateToolError(f"a tool named {spec.name!r} is already registered")
        self._tools[spec.name] = spec
        return spec

    def register_all(self, specs: Iterable[ToolSpec]) -> None:
        for spec in specs:
            self.register(spec)

    def register_temporary(self, spec: ToolSpec, ttl_seconds: float) -> ToolSpec:
        """Register a forged tool that expires ``ttl_seconds`` from now."""
        spec.expires_at = self._clock() + ttl_seconds
        return self.register(
            spec, replace=spec.name in self._tools and self._is_temporary(spec.name)
        )

    def tool(self, **options: Any) -> Callable[[Handler], ToolSpec]:
        """Decorator: declare and register in one step (``@registry.tool(category=..., ...)``)."""

        def decorate(handler: Handler) -> ToolSpec:
            return self.register(tool(**options)(handler))

        return decorate

    def unregister(self, name: str) -> bool:
        return self._tools.pop(name, None) is not None

    # -- lookup -------------------------------------------------------------------------
    def get(self, name: str) -> ToolSpec | None:
        """The tool by exact name, or by its snake_case spelling (``readFile`` -> read_file)."""
        self.purge_expired()
        return self._tools.get(name) or self._tools.get(to_snake(name))

    def names(self) -> list[str]:
        self.purge_expired()
        return sorted(self._tools)

    def all(self) -> list[ToolSpec]:
        self.purge_expired()
        return [self._tools[n] for n in sorted(self._tools)]

    def purge_expired(self) -> list[str]:
        gone = [n for n, s in self._tools.items() if self._expired(s)]
        for name in gone:
            del self._tools[name]
        return gone

    def allowed(self, cap: Capability | str, name: str) -> bool:
        cap = capability(cap) if isinstance(cap, str) else cap
        spec = self.get(name)
        if spec is None:
            return False
        return cap.allows(spec.name, spec.forged_from)

    def allowed_names(self, cap: Capability | str) -> list[str]:
        cap = capability(cap) if isinstance(cap, str) else cap
        return [s.name for s in self.all() if cap.allows(s.name, s.forged_from)]

    # -- export -------------------------------------------------------------------------
    def schemas(
        self, cap: Capability | str, loaded: Iterable[str] | None = None
    ) -> list[dict[str, Any]]:
        """OpenAI function-calling schemas for the capability's core set plus ``loaded`` tools.

        ``loaded=None`` exports every allowed tool (for clients without disclosure).
        """
        return [spec.openai_schema() for spec in self.visible(cap, loaded)]

    def visible(self, cap: Capability | str, loaded: Iterable[str] | None = None) -> list[ToolSpec]:
        """The allowed tools a client is shown: the core set plus ``loaded`` (None: all)."""
        cap = capability(cap) if isinstance(cap, str) else cap
        allowed = self.allowed_names(cap)
        if loaded is not None:
            shown = cap.core | set(loaded)
            allowed = [n for n in allowed if n in shown]
        return [self._tools[n] for n in allowed]

    def categories(self, cap: Capability | str) -> dict[str, list[str]]:
        """Allowed tool names grouped by category (for ``list_tool_categories``)."""
        grouped: dict[str, list[str]] = {}
        for name in self.allowed_names(cap):
            grouped.setdefault(self._tools[name].category, []).append(name)
        return grouped

    def search(self, cap: Capability | str, query: str, limit: int = 5) -> list[ToolSpec]:
        """Allowed tools ranked by how many query words their name/description/category hold."""
        words = set(_WORD.findall(query.lower()))
        scored: list[tuple[int, str]] = []
        for name in self.allowed_names(cap):
            spec = self._tools[name]
            name_words = set(_WORD.findall(name.replace("_", " ")))
            text_words = set(_WORD.findall(f"{spec.description} {spec.category}".lower()))
            score = 3 * len(words & name_words) + len(words & text_words)
            if score:
                scored.append((score, name))
        scored.sort(key=lambda item: (-item[0], item[1]))
        return [self._tools[name] for _, name in scored[:limit]]

    # -- helpers ------------------------------------------------------------------------
    def _expired(self, spec: ToolSpec) -> bool:
        return spec.expires_at is not None and spec.expires_at <= self._clock()

    def _is_temporary(self, name: str) -> bool:
        return self._tools[name].expires_at is not None
