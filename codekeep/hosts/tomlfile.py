"""Codex's ``config.toml``: CodeKeep's ``[mcp_servers.codekeep]`` table as a marked block.

TOML lets a table stand anywhere after the top-level keys, so install appends the
table between two comment lines and touches no other byte of the file (comments,
ordering and the user's spacing stay); uninstall cuts exactly that block out. No TOML
writer is needed (the standard library only reads TOML): every result is parsed back
with :mod:`tomllib` and must hold exactly the server install meant, so a file whose
shape the block cannot join (``mcp_servers`` written as an inline table, a
``[mcp_servers.codekeep]`` the user wrote by hand) is refused, not broken.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping, Sequence
from typing import Any

from codekeep.hosts.blocks import MarkedBlock
from codekeep.hosts.changes import ConfigError

SERVER_BLOCK = MarkedBlock(
    "# codekeep:begin (written by `codekeep install`; `codekeep uninstall` removes it)",
    "# codekeep:end",
)


def _string(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)  # a JSON string is a TOML basic string


def server_table(name: str, command: str, args: Sequence[str]) -> str:
    arguments = ", ".join(_string(arg) for arg in args)
    return f"[mcp_servers.{name}]\ncommand = {_string(command)}\nargs = [{arguments}]"


def _parsed(text: str, where: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{where} is not valid TOML ({error}); left alone") from error


def servers(text: str | None, where: str) -> Mapping[str, Any]:
    """The ``mcp_servers`` table of the file (empty when none)."""
    value = _parsed(text or "", where).get("mcp_servers", {})
    return value if isinstance(value, dict) else {}


def with_server(text: str | None, where: str, name: str, command: str,
                args: Sequence[str]) -> str:
    if not SERVER_BLOCK.present(text) and name in servers(text, where):
        raise ConfigError(f"{where} already has an [mcp_servers.{name}] table not written "
                          f"by CodeKeep; left alone (remove it to let install manage it)")
    result = SERVER_BLOCK.put(text, server_table(name, command, args))
    if servers(result, where).get(name) != {"command": command, "args": list(args)}:
        raise ConfigError(f"{where}: the [mcp_servers.{name}] table cannot be added to this "
                          f"file's layout (mcp_servers as an inline table?); left alone")
    return result
