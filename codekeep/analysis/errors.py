"""Errors the code map raises on bad requests; callers turn them into clear messages."""

from __future__ import annotations


class CodeMapError(Exception):
    """Base class: a request the code map cannot answer, with a message for the user."""


class IndexCancelled(CodeMapError):
    """The index was stopped before it finished (its folder was removed, the server is
    exiting); what was written so far stays, the next index continues from there."""


class UnknownPathError(CodeMapError, KeyError):
    """The path is not in the index (or the root is not a directory)."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class DocumentNotOpenError(CodeMapError, KeyError):
    """An edit arrived for a document that was never opened."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class InvalidLimitError(CodeMapError, ValueError):
    """A result limit below 1: ``None`` means no limit, so 0 or -1 is always a mistake
    (0 would claim "nothing found", -1 meant "unbounded" in one method and "none" in
    another before this rule)."""


class LineOutOfRangeError(CodeMapError, IndexError):
    """A line the file does not have (the message counts lines from 1, as people do)."""
