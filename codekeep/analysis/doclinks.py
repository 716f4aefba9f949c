"""Names a documentation comment refers to: JSDoc/TSDoc ``{@link X}``, ``@see X`` and the
types of ``@param {X}``, ``@returns {X}``, ``@type {X}``, ``@throws {X}``.

The TypeScript LanguageService counts these as references of ``X`` (renaming ``X``
rewrites them), so the code map does too, as ``doc`` uses: like ``value`` uses they
count only where the file's scope or imports lead to ``X`` (``receivers.py``), since a
comment may name anything.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import tree_sitter as ts

from codekeep.analysis.facts import RefFact, Span

_IDENTIFIER = rb"[A-Za-z_$][\w$]*"
# group 1: the first name of a link or @see target; group 2: a braced JSDoc type
_TAG = re.compile(
    rb"\{@link(?:code|plain)?\s+(" + _IDENTIFIER + rb")"
    rb"|@see\s+(?!\{)(" + _IDENTIFIER + rb")"
    rb"|@(?:param|returns?|type|typedef|throws|template)\s*\{([^}\n]*)\}")
_NAME = re.compile(_IDENTIFIER)


def _names(text: bytes) -> Iterator[tuple[int, int]]:
    """(start, end) offsets of every referenced name in a comment's bytes."""
    for match in _TAG.finditer(text):
        for group in (1, 2):
            if match.group(group):
                yield match.start(group), match.end(group)
        if match.group(3):
            base = match.start(3)
            for name in _NAME.finditer(match.group(3)):
                yield base + name.start(), base + name.end()


def doc_uses(
    src: bytes, comment: ts.Node, ucol: Callable[[int, int], int]
) -> Iterator[tuple[int, RefFact]]:
    """(start byte, ``doc`` use) of each name the comment refers to. ``ucol(byte, col)``
    gives a position's UTF-16 column (``extract.Positions.ucol``)."""
    start = comment.start_byte
    text = src[start:comment.end_byte]
    if b"@" not in text:
        return
    line = comment.start_point[0]
    counted = 0  # newlines seen up to `counted` (bytes into the comment)
    for begin, end in _names(text):
        line += text.count(b"\n", counted, begin)
        counted = begin
        at = start + begin
        col = at - (src.rfind(b"\n", 0, at) + 1)
        end_col = col + (end - begin)
        u = ucol(at, col)
        name = text[begin:end].decode("utf-8", "replace")
        yield at, RefFact(name, "doc", Span(line, col, u, line, end_col, u + end - begin), None)
