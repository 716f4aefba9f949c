"""A block of text CodeKeep owns inside a user's file, between two marker lines.

Install puts the block at the end of the file (after a blank line) or replaces it where
it already is, so installing twice equals once; uninstall cuts out exactly the block and
the blank line install put before it, leaving every other byte of the file as it was.
Markdown instruction files mark it with HTML comments, Codex's TOML with ``#`` comments.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class MarkedBlock:
    begin: str
    end: str

    def span(self, text: str) -> tuple[int, int] | None:
        start = text.find(self.begin)
        stop = text.find(self.end, start) if start >= 0 else -1
        return None if stop < 0 else (start, stop + len(self.end))

    def present(self, text: str | None) -> bool:
        return text is not None and self.span(text) is not None

    def put(self, text: str | None, body: str) -> str:
        """``text`` with the block holding ``body``: replaced in place, else appended."""
        block = f"{self.begin}\n{body.strip()}\n{self.end}"
        text = text or ""
        span = self.span(text)
        if span is not None:
            return text[:span[0]] + block + text[span[1]:]
        if not text.strip():
            return block + "\n"
        ending = "" if text.endswith("\n") else "\n"
        return f"{text}{ending}\n{block}\n"

    def cut(self, text: str | None) -> str | None:
        """``text`` without the block; None (the file goes) when nothing else is left."""
        if text is None:
            return None
        span = self.span(text)
        if span is None:
            return text
        before, after = text[:span[0]], text[span[1]:]
        if after.startswith("\n"):
            after = after[1:]
        if before.endswith("\n\n") and not after:
            before = before[:-1]
        rest = before + after
        return rest if rest.strip() else None
