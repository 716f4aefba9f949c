"""Questions the knowledge base refuses, each with a message a user can act on."""

from __future__ import annotations


class DocsError(ValueError):
    """Base of the knowledge base's refusals (a bad question, not a broken index)."""


class EmptyQueryError(DocsError):
    pass


class InvalidLimitError(DocsError):
    pass
