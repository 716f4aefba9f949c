"""AsciiDoc into blocks: ``=`` section titles, paragraphs, listing/literal blocks whole.

Only the structure chunking needs: titles (``= Title`` .. ``====== Title``), delimited
listing (``----``) and literal (``....``) blocks as code, other delimited blocks
(examples, sidebars, quotes) as prose, attribute entries and comments left out.
"""

from __future__ import annotations

import re

from codekeep.docs.model import Block, close_paragraph

_TITLE = re.compile(r"^(={1,6}|#{1,6})[ \t]+(\S.*?)[ \t]*$")
_CODE_DELIMITER = re.compile(r"^(-{4,}|\.{4,}|`{3,})[ \t]*$")
_COMMENT_BLOCK = re.compile(r"^/{4,}[ \t]*$")
_SKIPPED_LINE = re.compile(r"^(//(?!/)|:[\w-]+!?:|\[\[.*\]\]$|ifdef::|ifndef::|endif::|include::)")


def parse_asciidoc(text: str) -> list[Block]:
    lines = text.splitlines()
    blocks: list[Block] = []
    paragraph: list[int] = []


    i = 0
    while i < len(lines):
        line = lines[i]
        delimiter = _CODE_DELIMITER.match(line) or _COMMENT_BLOCK.match(line)
        if delimiter:
            close_paragraph(blocks, lines, paragraph)
            end = _closing(lines, i, delimiter.group(0).strip())
            if not _COMMENT_BLOCK.match(line):
                blocks.append(Block("code", i + 1, end + 1, "\n".join(lines[i : end + 1])))
            i = end + 1
            continue
        if not line.strip():
            close_paragraph(blocks, lines, paragraph)
        elif not paragraph and (title := _TITLE.match(line)):
            blocks.append(Block("heading", i + 1, i + 1, title.group(2), len(title.group(1))))
        elif not paragraph and _SKIPPED_LINE.match(line):
            pass
        else:
            paragraph.append(i)
        i += 1
    close_paragraph(blocks, lines, paragraph)
    return blocks


def _closing(lines: list[str], opening: int, marker: str) -> int:
    """The line closing a delimited block; an unclosed one ends with the document."""
    for number in range(opening + 1, len(lines)):
        if lines[number].strip() == marker:
            return number
    return len(lines) - 1
