"""Structure-following chunks: one section per heading, long sections split on
paragraph boundaries with a small overlap, code blocks never cut.

Sizes are in estimated tokens (one per four characters, one per CJK character): the
split only needs to be roughly even, and the estimate is fast enough for every keystroke
of a save. A section longer than ``chunk_tokens`` is filled paragraph by paragraph; the
next chunk then starts with the trailing paragraphs of the previous one, walked back
until they reach ``overlap_tokens`` (a last paragraph already longer than that is not
repeated). One paragraph longer than a chunk is cut between lines; one code block
longer than a chunk stays whole.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from codekeep.common.tokens import estimate_tokens
from codekeep.docs.asciidoc import parse_asciidoc
from codekeep.docs.formats import DocFormat
from codekeep.docs.markdown import parse_markdown
from codekeep.docs.mentions import mentions_in
from codekeep.docs.model import Block, Chunk, ParsedDocument, Section
from codekeep.docs.plaintext import parse_text
from codekeep.docs.rst import parse_rst
from codekeep.docs.text import heading_text


@dataclass(frozen=True, slots=True)
class ChunkSizes:
    chunk_tokens: int = 350
    overlap_tokens: int = 60


def parse_document(rel: str, text: str, fmt: DocFormat, sizes: ChunkSizes) -> ParsedDocument:
    """Parse ``text`` (the file ``rel``) in its format and cut it into chunks."""
    front_title: str | None = None
    if fmt == "markdown":
        blocks, front_title = parse_markdown(text, mdx=rel.lower().endswith(".mdx"))
    elif fmt == "rst":
        blocks = parse_rst(text)
    elif fmt == "asciidoc":
        blocks = parse_asciidoc(text)
    else:
        blocks = parse_text(text)
    headings = [block for block in blocks if block.kind == "heading"]
    title = front_title or (heading_text(headings[0].text) if headings else PurePosixPath(rel).name)
    chunks = [
        chunk
        for section in sections(blocks, title)
        for chunk in split_section(section, sizes)
    ]
    return ParsedDocument(title, fmt, chunks, text.count("\n") + (not text.endswith("\n")))


def sections(blocks: Sequence[Block], title: str) -> list[Section]:
    """Group body blocks under their heading path; text before any heading is headed
    by the document's title. Levels may skip (``#`` then ``###``): the path holds the
    headings actually above, whatever their depth."""
    stack: list[tuple[int, str]] = []
    current = Section((title,))
    found = [current]
    for block in blocks:
        if block.kind != "heading":
            current.blocks.append(block)
            continue
        while stack and stack[-1][0] >= block.level:
            stack.pop()
        stack.append((block.level, heading_text(block.text)))
        path = tuple(text for _level, text in stack)
        if path[0] != title:  # the first heading is not the title (front matter named it)
            path = (title, *path)
        current = Section(path)
        found.append(current)
    return [section for section in found if section.blocks]


def split_section(section: Section, sizes: ChunkSizes) -> list[Chunk]:
    units = [piece for block in section.blocks for piece in _fit(block, sizes.chunk_tokens)]
    costs = [estimate_tokens(unit.text) for unit in units]
    chunks: list[Chunk] = []
    start = 0
    while start < len(units):
        end, total = start, 0
        while end < len(units) and (end == start or total + costs[end] <= sizes.chunk_tokens):
            total += costs[end]
            end += 1
        chunks.append(_chunk(section.path, units[start:end]))
        if end >= len(units):
            break
        # The overlap must leave room for the unit that did not fit, or the next chunk
        # would repeat the overlap and stop at the same place.
        room = min(sizes.overlap_tokens, sizes.chunk_tokens - costs[end])
        start = _overlap_start(units, costs, start, end, room)
    return chunks


def _overlap_start(
    units: Sequence[Block], costs: Sequence[int], start: int, end: int, overlap: int
) -> int:
    """Where the next chunk starts: back from ``end`` over text paragraphs until they
    fit in ``overlap`` tokens, never back to ``start`` (every chunk moves on)."""
    begin, total = end, 0
    while begin - 1 > start and total < overlap:
        unit = units[begin - 1]
        if unit.kind == "code" or total + costs[begin - 1] > overlap:
            break
        total += costs[begin - 1]
        begin -= 1
    return begin


def _fit(block: Block, limit: int) -> list[Block]:
    """A paragraph longer than a chunk, cut between lines; code and short text as is."""
    if block.kind == "code" or estimate_tokens(block.text) <= limit:
        return [block]
    pieces: list[Block] = []
    lines = block.text.split("\n")
    first = 0
    total = 0
    for number, line in enumerate(lines):
        cost = estimate_tokens(line) + 1
        if number > first and total + cost > limit:
            pieces.append(_piece(block, lines, first, number))
            first, total = number, 0
        total += cost
    pieces.append(_piece(block, lines, first, len(lines)))
    return pieces


def _piece(block: Block, lines: list[str], first: int, end: int) -> Block:
    return Block("text", block.start_line + first, block.start_line + end - 1,
                 "\n".join(lines[first:end]))


def _chunk(path: tuple[str, ...], units: Sequence[Block]) -> Chunk:
    text = "\n\n".join(unit.text for unit in units)
    return Chunk(path, units[0].start_line, units[-1].end_line, text, mentions_in(units))
