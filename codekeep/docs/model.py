"""The values the knowledge base hands out: parsed blocks, sections, chunks and hits.

Lines are 1-based and inclusive everywhere in this package (as editors show them and
as ``codekeep docs search`` prints them); parsers count from 0 internally and convert
once, when a block is made.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from codekeep.common.uris import path_to_uri

BlockKind = Literal["heading", "text", "code"]
HEADING_SEPARATOR = " › "


@dataclass(frozen=True, slots=True)
class Block:
    """One structural unit of a document: a heading, a paragraph, or a code block.

    ``level`` is the heading depth (1 = the document title) and 0 for other blocks.
    """

    kind: BlockKind
    start_line: int
    end_line: int
    text: str
    level: int = 0


def close_paragraph(blocks: list[Block], lines: list[str], paragraph: list[int]) -> None:
    """Turn the open paragraph (0-based line numbers) into a text block and empty it.

    Every format's parser collects a paragraph line by line and closes it at a blank line,
    a heading or a code block; this is the one place that converts its span to 1-based.
    """
    if paragraph:
        first, last = paragraph[0], paragraph[-1]
        blocks.append(Block("text", first + 1, last + 1, "\n".join(lines[first : last + 1])))
        paragraph.clear()


@dataclass(slots=True)
class Section:
    """The body blocks under one heading, with the path of headings above it."""

    path: tuple[str, ...]
    blocks: list[Block] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Chunk:
    """What the index stores and searches: a span of one section, whole code blocks.

    ``text`` is the source text of the span (markup kept, for display); ``mentions``
    are the identifiers its code spans and code blocks name, resolved against the code
    map when asked (so renames in the code need no re-chunking).
    """

    heading_path: tuple[str, ...]
    start_line: int
    end_line: int
    text: str
    mentions: tuple[tuple[str, str | None], ...] = ()

    @property
    def heading(self) -> str:
        return HEADING_SEPARATOR.join(self.heading_path)


@dataclass(frozen=True, slots=True)
class ParsedDocument:
    title: str
    format: str
    chunks: list[Chunk]
    lines: int


@dataclass(frozen=True, slots=True)
class DocHit:
    """One search result."""

    path: str
    heading: str
    start_line: int
    end_line: int
    text: str
    score: float

    def to_json(self, root: Path | None = None) -> dict[str, Any]:
        """``{path, heading, startLine, endLine, text, score}`` (+ ``uri`` given a root)."""
        payload: dict[str, Any] = {"path": self.path}
        if root is not None:
            payload["uri"] = path_to_uri(root / self.path)
        payload.update(
            heading=self.heading,
            startLine=self.start_line,
            endLine=self.end_line,
            text=self.text,
            score=round(self.score, 6),
        )
        return payload


@dataclass(frozen=True, slots=True)
class SearchOutcome:
    """The hits of a search, and why there are none when that is the case."""

    hits: list[DocHit]
    reason: str | None = None

    def to_json(self, root: Path | None = None) -> dict[str, Any]:
        payload: dict[str, Any] = {"results": [hit.to_json(root) for hit in self.hits]}
        if self.reason is not None:
            payload["reason"] = self.reason
        return payload


@dataclass(frozen=True, slots=True)
class DocLink:
    """A place in the docs that mentions a symbol: "documented in docs/deploy.md › Static"."""

    path: str
    heading: str
    start_line: int

    def label(self) -> str:
        return f"{self.path} › {self.heading}" if self.heading else self.path

    def to_json(self, root: Path) -> dict[str, Any]:
        return {"path": self.path, "uri": path_to_uri(root / self.path),
                "heading": self.heading, "startLine": self.start_line}


@dataclass(frozen=True, slots=True)
class DocsStats:
    files: int
    chunks: int
    parsed: int
    unchanged: int
    removed: int
    seconds: float
    formats: dict[str, int]
    skipped: dict[str, int]
    from_cache: int = 0  # of ``parsed``: pages the facts cache held (not read again)

    def summary(self) -> str:
        """What ``codekeep index`` / ``codekeep docs index`` print."""
        formats = ", ".join(f"{name} {count}" for name, count in sorted(self.formats.items()))
        cached = f" ({self.from_cache} from the cache)" if self.from_cache else ""
        text = (f"docs: {self.files} files ({formats or 'none'}), {self.chunks} chunks in "
                f"{self.seconds:.2f}s; parsed {self.parsed}{cached}, unchanged "
                f"{self.unchanged}, removed {self.removed}")
        if self.skipped:
            text += "\ndocs skipped: " + ", ".join(
                f"{reason} {count}" for reason, count in sorted(self.skipped.items()))
        return text

    def to_json(self) -> dict[str, Any]:
        return {
            "files": self.files,
            "chunks": self.chunks,
            "parsed": self.parsed,
            "fromCache": self.from_cache,
            "unchanged": self.unchanged,
            "removed": self.removed,
            "seconds": round(self.seconds, 3),
            "formats": self.formats,
            "skipped": self.skipped,
        }
