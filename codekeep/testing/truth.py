"""What a prompt really carried, recomputed from a request the scripted model received.

The ledger bills each call to the files whose text its prompt carries, from the spans
the tools reported. Tests and ``bench/agent_bench.py`` check that against this
independent reading of the request log: every line of a tool message that is a line of
a workspace file *as it is on disk* (a numbered line of a read, a code line of a search
hit, or the head of one that compression cut) counts for that file. Nothing here uses
the tools' spans or the context window's bookkeeping.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from codekeep.agent.context_window import message_tokens
from codekeep.common.tokens import function_tokens, token_len

_READ_HEADER = re.compile(r"^(\S+) lines \d+-\d+ of \d+$")
_SEARCH_FILE = re.compile(r"^(\S+\.\w+) \(\d+\)$")
_READ_LINE = re.compile(r"^ *(\d+)  ")
_SEARCH_LINE = re.compile(r"^  (\d+): ")


class _Files:
    """Workspace files read once, line by line."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._lines: dict[str, list[str] | None] = {}

    def line(self, path: str, number: int) -> str | None:
        if path not in self._lines:
            try:
                text = (self.root / path).read_text(encoding="utf-8", errors="replace")
                self._lines[path] = text.splitlines()
            except OSError:
                self._lines[path] = None
        lines = self._lines[path]
        if lines is None or not 1 <= number <= len(lines):
            return None
        return lines[number - 1]


def carried_text(body: Mapping[str, Any], root: Path) -> dict[str, list[str]]:
    """``path -> the pieces of its text`` found in the tool messages of one request."""
    files = _Files(root)
    found: dict[str, list[str]] = {}
    for message in body.get("messages") or []:
        if message.get("role") != "tool":
            continue
        path: str | None = None
        mode = ""
        for line in str(message.get("content") or "").split("\n"):
            header = _READ_HEADER.match(line) or _SEARCH_FILE.match(line)
            if header is not None:
                path, mode = header.group(1), ("read" if header.re is _READ_HEADER else "search")
                continue
            if path is None:
                continue
            shown = _shown(files, path, mode, line)
            if shown is not None and line and shown.startswith(line):
                found.setdefault(path, []).append(line)
    return found


def _shown(files: _Files, path: str, mode: str, line: str) -> str | None:
    """How line ``n`` of ``path`` is displayed by a read or a search, if ``line`` names one."""
    numbered = (_READ_LINE if mode == "read" else _SEARCH_LINE).match(line)
    if numbered is None:
        return None
    number = int(numbered.group(1))
    text = files.line(path, number)
    if text is None:
        return None
    return f"{number:>5}  {text}" if mode == "read" else f"  {number}: {text.strip()[:160]}"


def carried_chars(body: Mapping[str, Any], root: Path) -> dict[str, int]:
    """``path -> characters`` of its text in one request."""
    return {path: sum(map(len, pieces)) for path, pieces in carried_text(body, root).items()}


def carried_tokens(body: Mapping[str, Any], root: Path) -> dict[str, int]:
    """``path -> tokens`` of its text in one request (each piece counted as sent)."""
    return {path: sum(token_len(piece) for piece in pieces)
            for path, pieces in carried_text(body, root).items()}


def overhead_tokens(body: Mapping[str, Any]) -> dict[str, int]:
    """Tokens of the system messages, the tool schemas and the rest of one request, counted
    the way the agent counts a prompt (file text is inside ``rest``; subtract
    :func:`carried_tokens` for the conversation)."""
    messages = body.get("messages") or []
    tools = body.get("tools") or []
    return {"system": sum(message_tokens(m) for m in messages if m.get("role") == "system"),
            "tools": function_tokens(tools),
            "rest": sum(message_tokens(m) for m in messages if m.get("role") != "system")}
