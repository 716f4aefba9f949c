"""CodeKeep inside the agent hosts developers already run (Claude Code, Codex, Cursor,
Gemini CLI, VS Code's agent mode, Cline): a door, like the CLI and the MCP server.

``codekeep install HOST`` writes each host's MCP config and a short block in its
instruction file (and Claude Code's hooks) through :mod:`codekeep.hosts.catalog`, one
small module per file format (:mod:`~codekeep.hosts.jsonfile`,
:mod:`~codekeep.hosts.tomlfile`, :mod:`~codekeep.hosts.markdown`); every write is a
:class:`~codekeep.hosts.changes.Change` that can be shown as a diff first and is backed
up before it lands. :mod:`codekeep.hosts.hooks` answers Claude Code's hook events on
the same memory and ledger services the other doors use.
"""
