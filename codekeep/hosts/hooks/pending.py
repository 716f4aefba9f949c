"""What PostToolUse noted, waiting for the session's next memory hook.

PostToolUse runs after every tool call, far more often than any other hook, and opening
memory (importing its service, loading the settings) is most of a hook's run. So it
only appends one line per read, search or command to
``.codekeep/sessions/claude-code/<session>.pending.jsonl`` — secrets already redacted,
by the table memory's own event stream uses — and the next hook that opens memory
(an edit's PostToolUse, UserPromptSubmit, SessionStart, PreCompact, Stop, SessionEnd:
every turn ends with Stop) records those events first, in order. A line is one
``write`` to a file opened for appending, so tool hooks running at once never
interleave their lines; whoever takes the file renames it first, so a line appended
meanwhile waits in a new one for the next taker.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codekeep.common.secrets import redact_text, redact_value
from codekeep.common.workspace import state_dir


@dataclass(frozen=True, slots=True)
class Noted:
    """One tool use for memory's event stream."""

    event_type: str
    summary: str
    files: list[str] = field(default_factory=list)
    data: dict[str, Any] | None = None


def _path(root: Path, session: str) -> Path:
    return state_dir(root) / "sessions" / "claude-code" / f"{session}.pending.jsonl"


def note(root: Path, session: str, noted: Noted) -> None:
    """Append ``noted`` (redacted) for the session's next memory hook."""
    path = _path(root, session)
    path.parent.mkdir(parents=True, exist_ok=True)
    line = json.dumps({"type": noted.event_type, "summary": redact_text(noted.summary),
                       "files": noted.files,
                       "data": redact_value(noted.data) if noted.data else None},
                      ensure_ascii=False) + "\n"
    _append(path, line)


@contextmanager
def taken(root: Path, session: str) -> Iterator[list[Noted]]:
    """The tool uses noted since the last take, oldest first (a line that does not
    parse, from a hook killed mid-write, is skipped). They are gone once the block
    ends; if it fails they are put back for the next hook (whole: one recorded before
    the failure is recorded again then — a repeated event, never a lost one)."""
    path = _path(root, session)
    claimed = path.with_name(f"{path.name}.{os.getpid()}")
    try:
        path.rename(claimed)
    except FileNotFoundError:
        yield []
        return
    text = claimed.read_text(encoding="utf-8", errors="replace")
    try:
        yield [item for item in map(_parse, text.splitlines()) if item is not None]
    except BaseException:
        _append(path, text)
        raise
    finally:
        claimed.unlink(missing_ok=True)


def _parse(line: str) -> Noted | None:
    try:
        item = json.loads(line)
        return Noted(str(item["type"]), str(item["summary"]),
                     [str(f) for f in item.get("files") or []], item.get("data"))
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


def _append(path: Path, text: str) -> None:
    descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(descriptor, text.encode("utf-8"))
    finally:
        os.close(descriptor)
