"""Errors the code map raises on bad requests; callers turn them into clear messages."""

from __future__ import annotations


class CodeMapError(Exception):
    """Base class: a request the code map cannot answer, with a message for the user."""


class UnknownPathError(CodeMapError, KeyError):
    """The path is not in the index (or the root is not a directory)."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class DocumentNotOpenError(CodeMapError, KeyError):
    """An edit arrived for a document that was never opened."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""
