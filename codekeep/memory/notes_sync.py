"""Keeping ``.codekeep/MEMORY.md`` and the memory database in step.

The file is the user's source of truth for the rows that came from it
(``source = user_markdown``): a sync replaces exactly those — preferences by key,
notes by their verbatim text — and leaves stated-with-``remember`` and inferred
memories alone. The digest of the last synced text is stored, so checking for an
edit costs one small read.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import codekeep.memory.notes as notes
import codekeep.memory.safety as safety
from codekeep.memory.catalog import PreferenceCatalog
from codekeep.memory.model import MARKDOWN_SOURCE, Memory
from codekeep.memory.store import MemoryFilter, MemoryStore
from codekeep.memory.write import WritePath, WriteRequest

NOTES_FILE = "MEMORY.md"


class NotesSync:
    def __init__(
        self,
        path: Path,
        store: MemoryStore,
        write: WritePath,
        catalog: PreferenceCatalog,
        clock: Callable[[], float],
        effective_preferences: Callable[[], dict[str, str]],
    ) -> None:
        self.path = path
        self.store = store
        self.write = write
        self.catalog = catalog
        self.clock = clock
        self.effective_preferences = effective_preferences

    def sync(self) -> dict[str, Any]:
        """Re-read MEMORY.md into memory and report what changed and which lines were unusable.

        A deleted file counts as an empty one once it has been synced before: its
        preferences and notes stop being in force.
        """
        path = self.path
        text = self._notes_text()
        if text is None:
            if self._synced_notes_digest() is None:
                return {
                    "path": str(path),
                    "exists": False,
                    "preferences": {},
                    "added": [],
                    "removed": [],
                    "notes": 0,
                    "invalid": [],
                }
            text = ""
        parsed = notes.parse(text)
        report: dict[str, Any] = {
            "path": str(path),
            "exists": path.exists(),
            "added": [],
            "removed": [],
            "invalid": parsed.invalid,
        }
        now = self.clock()
        store = self.store
        with store.transaction():
            self._sync_preferences(parsed, report, now)
            self._sync_note_items(parsed, report, now)
            store.notes.put(NOTES_FILE, _digest(text), text, now)
        report["invalid"] = sorted(report["invalid"], key=lambda item: item["line"])
        report["preferences"] = self.effective_preferences()
        return report

    def refresh(self) -> dict[str, Any] | None:
        """Sync MEMORY.md if it changed since the last sync (one small read and a hash).

        Called on every read of preferences and every recall, so an edit saved in any
        editor is in force for the very next use, whichever door (CLI, server, agent)
        it comes through.
        """
        text = self._notes_text()
        synced = self._synced_notes_digest()
        if (text is None and synced is None) or (text is not None and _digest(text) == synced):
            return None
        if text is None and synced == _digest(""):
            return None
        return self.sync()

    def _notes_text(self) -> str | None:
        try:
            return self.path.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return None
        except OSError:
            return None  # unreadable right now (permissions, a directory): keep what we have

    def _synced_notes_digest(self) -> str | None:
        return self.store.notes.get(NOTES_FILE)

    def _markdown_rows(self, kind: str) -> list[Memory]:
        where = MemoryFilter(
            statuses=("active",), sources=(MARKDOWN_SOURCE,), kinds=(kind,), scope="project"
        )
        return self.store.load_many(self.store.ids(where))

    def _sync_preferences(
        self, parsed: notes.ParsedNotes, report: dict[str, Any], now: float
    ) -> None:
        wanted: dict[str, tuple[int, str]] = {}
        for line, key, value in parsed.preferences:
            problem = self.catalog.validate(key, value)
            if problem:
                parsed.reject(line, f"{key}: {value}", problem)
                continue
            if key in wanted:
                parsed.reject(
                    wanted[key][0], f"{key}: {wanted[key][1]}", f"overridden by line {line}"
                )
            wanted[key] = (line, value)
        current = {m.key: m for m in self._markdown_rows("preference") if m.key}
        for key, (line, value) in wanted.items():
            existing = current.get(key)
            if existing and existing.value == value:
                continue
            result = self.write.remember(
                "project",
                WriteRequest(
                    f"{key}: {value}",
                    "preference",
                    key,
                    value,
                    importance=8,
                    source=MARKDOWN_SOURCE,
                ),
            )
            if result.rejected:
                parsed.reject(line, f"{key}: {value}", result.reason or "rejected")
            else:
                report["added"].append(
                    {
                        "id": result.id,
                        "action": result.action,
                        "line": line,
                        "key": key,
                        "value": value,
                    }
                )
        for stale_key, existing in current.items():
            if stale_key not in wanted:
                self.store.update(existing.id, status="disabled")
                self.store.log(existing.id, now, "FORGET", {"reason": "removed from MEMORY.md"})
                report["removed"].append({"id": existing.id, "key": stale_key})

    def _sync_note_items(
        self, parsed: notes.ParsedNotes, report: dict[str, Any], now: float
    ) -> None:
        current = {m.content: m for m in self._markdown_rows("note")}
        kept: set[str] = set()
        for note in parsed.notes:
            stored_form = safety.redact(note.text)[0].strip()
            kept.add(stored_form)
            if stored_form in current:
                continue
            result = self.write.insert_verbatim(
                "project",
                WriteRequest(note.text, "note", importance=6, source=MARKDOWN_SOURCE),
            )
            if result.rejected:
                parsed.reject(note.line, note.text.splitlines()[0], result.reason or "rejected")
                continue
            if result.redactions:
                parsed.reject(
                    note.line,
                    note.text.splitlines()[0],
                    f"contains a {result.redactions[0]}: stored redacted; remove it from "
                    "MEMORY.md, "
                    "which is meant to be committed",
                )
            report["added"].append(
                {"id": result.id, "action": result.action, "line": note.line, "kind": "note"}
            )
        for content, existing in current.items():
            if content not in kept:
                self.store.update(existing.id, status="disabled")
                self.store.log(existing.id, now, "FORGET", {"reason": "removed from MEMORY.md"})
                report["removed"].append({"id": existing.id, "kind": "note"})
        report["notes"] = len(parsed.notes)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
