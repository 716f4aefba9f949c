"""Questions the knowledge base refuses, each with a message a user can act on."""

from __future__ import annotations


class DocsError(ValueError):
    """Base of the knowledge base's refusals (a bad question, not a broken index)."""


class EmptyQueryError(DocsError):
    pass


class InvalidLimitError(DocsError):
    pass


class DocsClosedError(DocsError):
    """Asked after :meth:`DocsIndex.close` (a settings change reopened the knowledge base
    under a long task): asking the folder's current index again answers."""
