"""Markdown (CommonMark + GFM, MDX) into blocks: headings, paragraphs, whole code blocks.

Line-based on purpose: chunking needs structure and line spans, not a rendered tree.
Fenced code follows CommonMark, so an unterminated fence runs to the end of the file,
as every renderer shows it. Front matter is skipped (its ``title:`` names the page);
MDX ``import``/``export`` lines are not prose and are left out.
"""

from __future__ import annotations

import re

from codekeep.docs.model import Block, close_paragraph

_FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})(.*)$")
_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_THEMATIC = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_MDX_LINE = re.compile(r"^(import|export)\s")
_FRONT_TITLE = re.compile(r"""^title:\s*["']?(.*?)["']?\s*$""")
FRONT_MATTER_MAX_LINES = 200


def parse_markdown(text: str, *, mdx: bool = False) -> tuple[list[Block], str | None]:
    """The blocks of a Markdown document and the title its front matter gives, if any."""
    lines = text.splitlines()
    blocks: list[Block] = []
    title: str | None = None
    start = 0
    if lines and lines[0].strip() == "---":
        end = _front_matter_end(lines)
        if end is not None:
            for line in lines[1:end]:
                if match := _FRONT_TITLE.match(line):
                    title = match.group(1) or None
            start = end + 1
    paragraph: list[int] = []  # line numbers of the open paragraph


    i = start
    while i < len(lines):
        line = lines[i]
        fence = _FENCE.match(line)
        if fence and not (fence.group(2)[0] == "`" and "`" in fence.group(3)):
            close_paragraph(blocks, lines, paragraph)
            end = _fence_end(lines, i, fence.group(2))
            blocks.append(Block("code", i + 1, end + 1, "\n".join(lines[i : end + 1])))
            i = end + 1
            continue
        if not line.strip():
            close_paragraph(blocks, lines, paragraph)
        elif atx := _ATX.match(line):
            close_paragraph(blocks, lines, paragraph)
            heading = (atx.group(2) or "").strip()
            if heading:
                blocks.append(Block("heading", i + 1, i + 1, heading, len(atx.group(1))))
        elif paragraph and _SETEXT.match(line) and not _is_list_or_quote(lines[paragraph[0]]):
            first = paragraph[0]
            heading = " ".join(lines[n].strip() for n in paragraph)
            paragraph.clear()
            level = 1 if line.strip().startswith("=") else 2
            blocks.append(Block("heading", first + 1, i + 1, heading, level))
        elif not paragraph and _THEMATIC.match(line):
            pass  # a horizontal rule separates, it says nothing
        elif mdx and not paragraph and _MDX_LINE.match(line):
            pass
        else:
            paragraph.append(i)
        i += 1
    close_paragraph(blocks, lines, paragraph)
    return blocks, title


def _front_matter_end(lines: list[str]) -> int | None:
    for number in range(1, min(len(lines), FRONT_MATTER_MAX_LINES)):
        if lines[number].strip() in {"---", "..."}:
            return number
    return None


def _fence_end(lines: list[str], opening: int, marker: str) -> int:
    """The closing fence's line; an unterminated fence ends with the document."""
    closing = re.compile(rf"^ {{0,3}}{re.escape(marker[0])}{{{len(marker)},}}[ \t]*$")
    for number in range(opening + 1, len(lines)):
        if closing.match(lines[number]):
            return number
    return len(lines) - 1


def _is_list_or_quote(line: str) -> bool:
    """A "text\\n---" under a list item or quote is not a setext heading here."""
    return bool(re.match(r"^\s*([-*+>]|\d+[.)])\s", line))
