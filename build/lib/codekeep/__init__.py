"""CodeKeep: a live code map, code-linked memory and a token ledger for AI coding agents."""

__version__ = "0.1.0"
