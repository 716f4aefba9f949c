"""The facts extraction yields about one file: definitions, references and imports.

Plain named tuples, shared by extraction (whole file and live-edit window), the store's
encoding and the writer: worker processes send them to the parent cheaply, and "did
this file's rows change?" is a tuple comparison. Positions are 0-based lines with UTF-8
byte columns plus UTF-16 columns (equal on ASCII text).
"""

from __future__ import annotations

from typing import NamedTuple

# A file's status when it is not indexed starts with one of these (then the detail).
TOO_LARGE = "too large"
FAILED = "failed"


def same_size_verdict(size: int, status: str, max_bytes: int) -> bool:
    """Would the size cap decide today as it did for a file stored with ``status``? (It
    may have been raised or lowered since.)"""
    return (size > max_bytes) == status.startswith(TOO_LARGE)


class Span(NamedTuple):
    line: int
    col: int
    ucol: int
    end_line: int
    end_col: int
    end_ucol: int


class SymbolFact(NamedTuple):
    qual: str  # Container.name plus "#n" when needed: the part of the id after "::"
    name: str
    kind: str
    container: str | None
    signature: str
    span: Span
    name_span: Span


class RefFact(NamedTuple):
    name: str
    kind: str
    span: Span
    # A member use (`x.m()`): the receiver's text when it is one identifier, "" when it
    # is an expression; None for a plain use (`m()`). Go adds ":" and the receiver's type
    # expression when its declaration is in sight (go_scopes.py). See receivers.py.
    receiver: str | None = None


class ImportFact(NamedTuple):
    module: str
    name: str | None
    alias: str | None
    line: int


class FileFacts(NamedTuple):
    symbols: tuple[SymbolFact, ...]
    refs: tuple[RefFact, ...]
    imports: tuple[ImportFact, ...]


EMPTY_FACTS = FileFacts((), (), ())
