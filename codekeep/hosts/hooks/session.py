"""What one Claude Code session's hooks remember between calls, in
``.codekeep/sessions/claude-code/<session id>.json``: the last request, the user's
corrections (re-injected after a compaction, which loses them), how often each file
was read, and which files changed."""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from codekeep.common.atomic import write_atomically
from codekeep.common.workspace import state_dir

_SESSION_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
MAX_CORRECTIONS = 5
REQUEST_CHARS = 1_200

# A prompt that corrects the agent: what a compaction must not lose.
_CORRECTION = re.compile(
    r"^\s*(?:no\b|nope\b|wrong\b|stop\b|wait\b|actually\b|that's not|that is not|not that\b)"
    r"|\b(?:don't|do not|never|instead(?: of)?|rather than|i said|i told you|you forgot"
    r"|undo|revert)\b", re.IGNORECASE)


class HookInputError(ValueError):
    """The hook's JSON lacks what the event needs (logged; the session goes on)."""


def session_id(payload: dict[str, Any]) -> str:
    value = payload.get("session_id")
    if not isinstance(value, str) or not _SESSION_ID.match(value):
        raise HookInputError("the hook input has no usable session_id")
    return value


def task_id(session: str) -> str:
    """The memory and ledger task of a Claude Code session (what the importer uses)."""
    return f"claude-code:{session}"


def is_correction(prompt: str) -> bool:
    return bool(_CORRECTION.search(prompt))


@dataclass(slots=True)
class SessionState:
    last_request: str = ""
    corrections: list[str] = field(default_factory=list)
    reads: dict[str, int] = field(default_factory=dict)
    changed: list[str] = field(default_factory=list)

    @staticmethod
    def path(root: Path, session: str) -> Path:
        return state_dir(root) / "sessions" / "claude-code" / f"{session}.json"

    @classmethod
    def load(cls, root: Path, session: str) -> SessionState:
        try:
            data = json.loads(cls.path(root, session).read_text(encoding="utf-8"))
        except (FileNotFoundError, ValueError):
            return cls()
        known = {name: data[name] for name in cls.__dataclass_fields__ if name in data}
        return cls(**known)

    def save(self, root: Path, session: str) -> None:
        path = self.path(root, session)
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, json.dumps(asdict(self)).encode("utf-8"))

    def asked(self, prompt: str) -> None:
        self.last_request = prompt.strip()[:REQUEST_CHARS]
        if is_correction(prompt):
            self.corrections = [*self.corrections, self.last_request][-MAX_CORRECTIONS:]

    def read(self, path: str) -> int:
        """Count a read of ``path``; how many times it was read in this session."""
        self.reads[path] = self.reads.get(path, 0) + 1
        return self.reads[path]

    def edited(self, path: str) -> None:
        if path not in self.changed:
            self.changed.append(path)
