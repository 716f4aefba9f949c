"""Primitives shared by every service: SQLite access, workspace paths, tokens, positions.

Nothing here knows about the code map, memory, ledger, tools, agent or server.
"""
