"""Plain text into paragraphs: no headings, so every chunk is headed by the file's name."""

from __future__ import annotations

from codekeep.docs.model import Block


def parse_text(text: str) -> list[Block]:
    lines = text.splitlines()
    blocks: list[Block] = []
    first: int | None = None
    for number, line in enumerate([*lines, ""]):
        if line.strip():
            first = number if first is None else first
        elif first is not None:
            blocks.append(Block("text", first + 1, number, "\n".join(lines[first:number])))
            first = None
    return blocks
