"""The MCP door: the tool registry, memory and ledger served to any MCP host.

``codekeep mcp`` serves one workspace over stdio (or streamable HTTP at ``/mcp``) with
the official ``mcp`` SDK's low-level server. It is a front door like the CLI and the
language server: tools run through the same :class:`~codekeep.tools.ToolPipeline` as
our own agent's (allow list, validation, path guard and command policy, cache,
observation, audit), on the same services, so nothing here knows how a tool works.

Modules: ``options`` (what the user chose on the command line), ``host`` (the
workspace's services on their own thread, kept live by the file watcher),
``sessions`` (each connected client's tool context and disclosure state), ``catalog``
(registry tools and results in MCP's shapes), ``resources`` (MEMORY.md, the repo map,
the ledger report), ``server`` (the SDK server and the stdio transport) and ``http``
(streamable HTTP with an optional bearer token).
"""
