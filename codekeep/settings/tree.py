"""The settings tree: every setting of every area, under one root.

Each area owns its section (a dataclass in ``<area>/settings.py``); this root only
says where each section sits in the ``codekeep`` object. To add a setting, add a
field to the area's section with ``setting(...)``; to add a section, add one line here
(see docs/settings.md, "Adding a setting"), and its key to
``layers.NESTED_SECTIONS``.
"""

from __future__ import annotations

from dataclasses import dataclass

from codekeep.settings.agent import ModelSettings
from codekeep.settings.codemap import IndexSettings
from codekeep.settings.docs import DocsSettings
from codekeep.settings.fields import section
from codekeep.settings.hosts import HostSettings
from codekeep.settings.ledger import LedgerSettings
from codekeep.settings.memory import MemorySettings
from codekeep.settings.team import TeamSettings
from codekeep.settings.tools import ToolSettings


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything a user can set; the same tree for the CLI, the server, the agent and MCP."""

    index: IndexSettings = section(
        IndexSettings, "The code map: what is indexed (at the top of `codekeep`).", flat=True)
    memory: MemorySettings = section(MemorySettings, "Memory (`codekeep.memory`).")
    ledger: LedgerSettings = section(LedgerSettings, "The token ledger (`codekeep.ledger`).")
    tools: ToolSettings = section(ToolSettings, "The agent's tools (`codekeep.tools`).")
    agent: ModelSettings = section(ModelSettings, "The agent's model (`codekeep.agent`).")
    docs: DocsSettings = section(DocsSettings, "The docs knowledge base (`codekeep.docs`).")
    team: TeamSettings = section(TeamSettings, "The team database (`codekeep.team`).")
    hosts: HostSettings = section(
        HostSettings, "CodeKeep inside agent hosts: Claude Code's hooks (`codekeep.hosts`).")
