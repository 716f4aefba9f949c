"""LSP positions <-> the code map's (line, byte column), against a document's bytes.

An LSP ``character`` counts UTF-8 bytes or UTF-16 code units depending on the
negotiated encoding; the code map speaks bytes. Conversion needs the text of the line,
which we take from the code map's view of the document (the editor buffer when open).
"""

from __future__ import annotations

from lsprotocol import types

from codekeep.analysis.model import Encoding, Range
from codekeep.common.positions import column_to_byte


def line_of(text: bytes, line: int) -> bytes | None:
    """Line ``line`` (0-based) of ``text`` without its line break; None past the end."""
    if line < 0:
        return None
    parts = text.split(b"\n", line + 1)
    if line >= len(parts):
        return None
    return parts[line].removesuffix(b"\r")


def byte_position(
    text: bytes, line: int, character: int, encoding: Encoding
) -> tuple[int, int] | None:
    """``(line, byte col)`` for an LSP position; None when the line does not exist.

    A character past the end of its line clamps to the line's end (clients do that
    when the cursor sits after the last character).
    """
    content = line_of(text, line)
    if content is None:
        return None
    return line, column_to_byte(content, character, encoding)


def lsp_range(value: Range, encoding: Encoding) -> types.Range:
    """A code-map range as an lsprotocol range in the negotiated encoding."""
    start, end = value.start.to_json(encoding), value.end.to_json(encoding)
    return types.Range(
        start=types.Position(line=start["line"], character=start["character"]),
        end=types.Position(line=end["line"], character=end["character"]),
    )
