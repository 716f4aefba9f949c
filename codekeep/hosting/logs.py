"""Logging for a long-lived door (the language server, the MCP server): everything to
stderr, never stdout, because stdout carries the protocol.
"""

from __future__ import annotations

import logging
import sys

FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def configure_stderr_logging(level: str = "INFO") -> None:
    """Everything (ours and pygls') to stderr; pygls' per-message chatter stays at WARNING."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(FORMAT))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.WARNING)
    logging.getLogger("codekeep").setLevel(level.upper())
