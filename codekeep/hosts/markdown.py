"""CodeKeep's block in a host's instruction file (CLAUDE.md, AGENTS.md, GEMINI.md ...),
between two HTML comments a Markdown renderer hides."""

from __future__ import annotations

from codekeep.hosts.blocks import MarkedBlock

INSTRUCTIONS = MarkedBlock(
    "<!-- codekeep:begin (written by `codekeep install`; `codekeep uninstall` removes it) -->",
    "<!-- codekeep:end -->",
)
