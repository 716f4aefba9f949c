"""Claude Code's ``settings.json`` ``hooks``: the entries that run ``codekeep hook EVENT``.

Each event gets one matcher group of CodeKeep's own (``{"matcher": ..., "hooks":
[{"type": "command", "command": ...}]}``) appended after the user's groups; a hook is
recognised as CodeKeep's by its command (a ``codekeep`` executable run with ``hook``),
so uninstall removes those and the groups, events and ``hooks`` key they leave empty,
and nothing of the user's. ``PostToolUse`` matches only the tools whose results say
which files entered the context or changed.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from codekeep.hosts.changes import ConfigError
from codekeep.hosts.jsonfile import Document, child, drop_if_empty

#: event -> matcher (None: the event takes no matcher; every source / trigger runs it)
HOOK_EVENTS: dict[str, str | None] = {
    "SessionStart": None,
    "UserPromptSubmit": None,
    "PostToolUse": "Read|Edit|Write|MultiEdit|NotebookEdit|Grep|Glob|Bash|mcp__codekeep__.*",
    "PreCompact": None,
    "Stop": None,
    "SessionEnd": None,
}
#: Seconds Claude Code waits before it kills a hook (ours answer in well under one).
HOOK_TIMEOUT = 10


def hook_command(launcher: Sequence[str], event: str, root: Path | None) -> str:
    words = [*launcher, "hook", event, *(["--root", str(root)] if root else [])]
    return shlex.join(words)


def is_ours(command: Any) -> bool:
    """A hook command that runs ``codekeep hook`` (directly or as ``python -m codekeep``)."""
    try:
        words = shlex.split(str(command))
    except ValueError:
        return False
    for index, word in enumerate(words[:-1]):
        if Path(word).name == "codekeep" and words[index + 1] == "hook":
            return True
    return False


def _groups(hooks: Document, event: str) -> list[Any]:
    groups = hooks.setdefault(event, [])
    if not isinstance(groups, list):
        raise ConfigError(f"settings.json hooks.{event} is not a list; left alone")
    return groups


def add_hooks(document: Document, launcher: Sequence[str], root: Path | None) -> None:
    remove_hooks(document)
    hooks = child(document, "hooks")
    for event, matcher in HOOK_EVENTS.items():
        group: dict[str, Any] = {} if matcher is None else {"matcher": matcher}
        group["hooks"] = [{"type": "command", "command": hook_command(launcher, event, root),
                           "timeout": HOOK_TIMEOUT}]
        _groups(hooks, event).append(group)


def remove_hooks(document: Document) -> None:
    hooks = document.get("hooks")
    if not isinstance(hooks, dict):
        return
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        for group in list(groups):
            entries = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(entries, list):
                continue
            kept = [e for e in entries if not (isinstance(e, dict) and is_ours(e.get("command")))]
            if len(kept) != len(entries):
                if kept:
                    group["hooks"] = kept
                else:
                    groups.remove(group)
        drop_if_empty(hooks, event)
    drop_if_empty(document, "hooks")


def our_commands(document: Document) -> list[str]:
    """Every CodeKeep hook command in the settings (for doctor's stale-path check)."""
    hooks = document.get("hooks")
    found = []
    for groups in (hooks.values() if isinstance(hooks, dict) else ()):
        for group in groups if isinstance(groups, list) else ():
            for entry in (group.get("hooks") or []) if isinstance(group, dict) else ():
                if isinstance(entry, dict) and is_ours(entry.get("command")):
                    found.append(str(entry["command"]))
    return found
