"""``.codekeep/MEMORY.md``: the user's editable layer.

``## Preferences`` holds ``key: value`` lines validated against the catalog; ``##
Notes`` is free text kept exactly as written (each paragraph or bullet becomes one
``note`` memory). Other sections are ignored. Re-syncing replaces only the
preferences and notes that came from this file (``source = user_markdown``); ones the
agent inferred or the user stated with ``remember`` are left alone. Every line that
could not be used is reported with its line number and the reason — nothing is
dropped silently.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*$")
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_PREF_LINE = re.compile(r"^\s*(?:[-*+]\s+)?`?([A-Za-z][\w.-]*)`?\s*:\s*(.*?)\s*$")
_BULLET = re.compile(r"^\s*[-*+]\s+")


@dataclass(frozen=True, slots=True)
class NoteLine:
    line: int
    text: str


@dataclass(slots=True)
class ParsedNotes:
    preferences: list[tuple[int, str, str]] = field(default_factory=list)  # (line, key, value)
    notes: list[NoteLine] = field(default_factory=list)
    invalid: list[dict[str, object]] = field(default_factory=list)

    def reject(self, line: int, text: str, reason: str) -> None:
        self.invalid.append({"line": line, "text": text, "reason": reason})


def _strip_front_matter(lines: list[str]) -> int:
    """Index of the first body line (after a ``---`` front-matter block, if any)."""
    if lines and lines[0].strip() == "---":
        for index in range(1, len(lines)):
            if lines[index].strip() == "---":
                return index + 1
    return 0


def parse(markdown: str) -> ParsedNotes:
    """Split MEMORY.md into preference lines, verbatim notes and problems (1-based lines)."""
    parsed = ParsedNotes()
    # comments may span lines: blank them out but keep the line structure for numbering
    text = _COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), markdown)
    lines = text.splitlines()
    section = None
    paragraph: list[tuple[int, str]] = []
    original = markdown.splitlines()

    def flush() -> None:
        if paragraph:
            first = paragraph[0][0]
            last = paragraph[-1][0]
            parsed.notes.append(NoteLine(first, "\n".join(original[first - 1 : last]).strip()))
            paragraph.clear()

    for index in range(_strip_front_matter(lines), len(lines)):
        number, line = index + 1, lines[index]
        heading = _HEADING.match(line)
        if heading:
            flush()
            title = heading.group(2).strip().lower()
            section = (
                "preferences" if title == "preferences" else "notes" if title == "notes" else None
            )
            continue
        if section == "preferences":
            if not line.strip():
                continue
            match = _PREF_LINE.match(line)
            if not match:
                parsed.reject(number, line.strip(), "not a `key: value` line")
                continue
            key, value = match.group(1), match.group(2).strip().strip("`")
            if value:
                parsed.preferences.append((number, key, value))
        elif section == "notes":
            if not line.strip():
                flush()
            elif _BULLET.match(line):
                flush()
                paragraph.append((number, line))  # a bullet starts its own note
            else:
                paragraph.append((number, line))
    flush()
    return parsed
