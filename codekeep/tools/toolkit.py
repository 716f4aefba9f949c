"""One object that wires the registry, the pipeline, the forge and the audit log together.

The agent and the server build one ``ToolKit`` per workspace and one ``ToolContext``
per task (``toolkit.context(task_id, capability)``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from codekeep.common.sqlite import DatabaseDamagedError
from codekeep.settings.tools import ToolSettings
from codekeep.tools.audit import AuditLog
from codekeep.tools.builtin import builtin_tools
from codekeep.tools.builtin.memory import remember_for
from codekeep.tools.builtin.meta import disclosure_tools
from codekeep.tools.capabilities import Capability
from codekeep.tools.context import ToolContext
from codekeep.tools.forge import ToolForge
from codekeep.tools.forge.tool import forge_tools
from codekeep.tools.middleware.contract import ToolMiddleware
from codekeep.tools.pipeline import ToolPipeline
from codekeep.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from codekeep.analysis.codemap import CodeMap
    from codekeep.docs import DocsIndex
    from codekeep.ledger import Ledger
    from codekeep.memory import MemoryService


def _offers_team(memory: MemoryService | None) -> bool:
    """Whether ``memory`` has a team scope (a damaged memory store, which answers every
    use with its damage, has none)."""
    try:
        return memory is not None and memory.team is not None
    except DatabaseDamagedError:
        return False


def default_registry() -> ToolRegistry:
    """A registry holding every built-in tool plus the disclosure tools."""
    registry = ToolRegistry()
    registry.register_all(builtin_tools())
    registry.register_all(disclosure_tools(registry))
    return registry


@dataclass
class ToolKit:
    root: Path
    registry: ToolRegistry
    pipeline: ToolPipeline
    audit: AuditLog
    settings: ToolSettings
    forge: ToolForge
    codemap: CodeMap | None = None
    memory: MemoryService | None = None
    ledger: Ledger | None = None
    docs: DocsIndex | None = None

    @classmethod
    def open(
        cls,
        root: Path,
        *,
        codemap: CodeMap | None = None,
        memory: MemoryService | None = None,
        ledger: Ledger | None = None,
        docs: DocsIndex | None = None,
        settings: ToolSettings | None = None,
        extra_after: Sequence[ToolMiddleware] = (),
    ) -> ToolKit:
        root = root.resolve()
        registry = default_registry()
        remember = registry.get("remember")
        if remember is not None:  # the team scope is offered only where it exists
            registry.register(remember_for(remember, _offers_team(memory)), replace=True)
        audit = AuditLog.open(root)
        pipeline = ToolPipeline.default(registry, audit=audit, extra_after=extra_after)
        settings = settings or ToolSettings()
        forge = ToolForge(registry, pipeline, settings)
        registry.register_all(forge_tools(forge))
        return cls(
            root=root,
            registry=registry,
            pipeline=pipeline,
            audit=audit,
            settings=settings,
            forge=forge,
            codemap=codemap,
            memory=memory,
            ledger=ledger,
            docs=docs,
        )

    def context(
        self,
        task_id: str,
        capability: str | Capability = "chat",
        actor: str = "agent",
        client: str | None = None,
    ) -> ToolContext:
        """A fresh per-task context (its own cache, disclosure state and exploration sets)
        under a preset (by name) or a door's own capability; ``client`` names an external
        client (an MCP host) that drives it."""
        return ToolContext.create(
            self.root,
            task_id,
            capability,
            settings=self.settings,
            codemap=self.codemap,
            memory=self.memory,
            ledger=self.ledger,
            docs=self.docs,
            actor=actor,
            client=client,
        )

    def close(self) -> None:
        self.audit.close()
