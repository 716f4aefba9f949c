"""Column conversion between UTF-8 bytes (tree-sitter), UTF-16 code units (LSP default)
and code points (UTF-32).

An LSP ``character`` is never used to index a Python ``str`` directly: it is converted
here against the bytes of the line it refers to.
"""

from __future__ import annotations

from typing import Literal

PositionEncoding = Literal["utf-8", "utf-16", "utf-32"]


def _units(char: str, encoding: PositionEncoding) -> int:
    if encoding == "utf-8":
        return len(char.encode("utf-8"))
    if encoding == "utf-16":
        return 2 if ord(char) > 0xFFFF else 1
    return 1


def byte_to_column(line: bytes, byte_col: int, encoding: PositionEncoding) -> int:
    """A byte offset within ``line`` expressed in ``encoding`` units (clamped to the line)."""
    byte_col = max(0, min(byte_col, len(line)))
    if encoding == "utf-8":
        return byte_col
    prefix = line[:byte_col].decode("utf-8", errors="replace")
    return sum(_units(ch, encoding) for ch in prefix)


def column_to_byte(line: bytes, column: int, encoding: PositionEncoding) -> int:
    """A column in ``encoding`` units expressed as a byte offset within ``line``.

    Columns past the end of the line clamp to its end; a column that falls inside a
    surrogate pair or a multi-byte character moves to that character's start.
    """
    if column <= 0:
        return 0
    if encoding == "utf-8":
        return min(column, len(line))
    text = line.decode("utf-8", errors="replace")
    units = 0
    offset = 0
    for ch in text:
        width = _units(ch, encoding)
        if units + width > column:
            break
        units += width
        offset += len(ch.encode("utf-8"))
    return min(offset, len(line))


def convert_column(
    line: bytes, column: int, source: PositionEncoding, target: PositionEncoding
) -> int:
    """Re-express a column of ``line`` from one encoding in another."""
    if source == target:
        return column
    return byte_to_column(line, column_to_byte(line, column, source), target)
