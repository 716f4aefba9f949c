"""reStructuredText (Sphinx) into blocks: section titles, paragraphs, whole code blocks.

Titles are a text line under an adornment line, optionally over one too; their levels
come from the order in which adornment styles first appear, as in docutils. A literal
block (after ``::``) or a code directive (``code-block``, ``code``, ``sourcecode``,
``doctest``, ``console``) is one code block. Comments, link targets and the bodies of
``toctree``-like directives are not prose and are left out.

Broken input never raises: an underline shorter than its title still makes a title
(docutils warns and does the same), an overline without a matching underline is
read as text.
"""

from __future__ import annotations

import re

from codekeep.docs.model import Block, close_paragraph

_ADORNMENT = re.compile(r"^([!-/:-@\[-`{-~])\1{2,}[ \t]*$")
_DIRECTIVE = re.compile(r"^(\s*)\.\.[ \t]+([\w:.-]+)[ \t]*::(.*)$")
_EXPLICIT = re.compile(r"^(\s*)\.\.(?:[ \t]|$)")
_CODE_DIRECTIVES = frozenset(
    {"code-block", "code", "sourcecode", "doctest", "console", "testcode", "testoutput",
     "ipython", "highlight-block", "parsed-literal", "prompt"}
)  # fmt: skip
_SKIPPED_DIRECTIVES = frozenset(
    {"toctree", "contents", "raw", "image", "include", "literalinclude", "highlight",
     "currentmodule", "default-role", "role", "only", "csv-table", "autosummary",
     "automodule", "autoclass", "autofunction", "automethod", "autodata", "tabularcolumns",
     "figure", "meta", "sectionauthor", "moduleauthor", "codeauthor", "spelling"}
)  # fmt: skip


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def parse_rst(text: str) -> list[Block]:
    lines = text.splitlines()
    styles: list[tuple[str, bool]] = []  # adornment (char, overlined) in order of use
    blocks: list[Block] = []
    paragraph: list[int] = []


    def heading(first: int, last: int, title: str, style: tuple[str, bool]) -> None:
        if style not in styles:
            styles.append(style)
        blocks.append(Block("heading", first + 1, last + 1, title, styles.index(style) + 1))

    i = 0
    n = len(lines)
    while i < n:
        line = lines[i]
        if not line.strip():
            close_paragraph(blocks, lines, paragraph)
            i += 1
            continue
        over = _ADORNMENT.match(line)
        if over and not paragraph and i + 2 < n and lines[i + 1].strip():
            under = _ADORNMENT.match(lines[i + 2])
            if under and under.group(1) == over.group(1):
                heading(i, i + 2, lines[i + 1].strip(), (over.group(1), True))
                i += 3
                continue
        if over and not paragraph:
            i += 1  # a transition, or an overline whose title is broken: not prose
            continue
        if not paragraph and _indent(line) == 0 and i + 1 < n:
            under = _ADORNMENT.match(lines[i + 1])
            if under and not _ADORNMENT.match(line):
                heading(i, i + 1, line.strip(), (under.group(1), False))
                i += 2
                continue
        if not paragraph and (directive := _DIRECTIVE.match(line)):
            i = _directive(lines, i, directive, blocks)
            continue
        if not paragraph and (explicit := _EXPLICIT.match(line)):
            i = _block_end(lines, i, len(explicit.group(1)))
            continue  # a comment or a link target
        paragraph.append(i)
        i += 1
        if line.rstrip().endswith("::") and (i >= n or not lines[i].strip()):
            close_paragraph(blocks, lines, paragraph)
            i = _literal_block(lines, i, _indent(line), blocks)
    close_paragraph(blocks, lines, paragraph)
    return blocks


def _block_end(lines: list[str], start: int, indent: int) -> int:
    """The line after an explicit-markup block: its first line plus everything indented
    deeper than ``indent`` (blank lines included)."""
    i = start + 1
    while i < len(lines) and (not lines[i].strip() or _indent(lines[i]) > indent):
        i += 1
    return i


def _literal_block(lines: list[str], start: int, indent: int, blocks: list[Block]) -> int:
    """The indented block after a ``::`` paragraph, as one code block."""
    i = start
    while i < len(lines) and not lines[i].strip():
        i += 1
    first = i
    while i < len(lines) and (not lines[i].strip() or _indent(lines[i]) > indent):
        i += 1
    last = i - 1
    while last >= first and not lines[last].strip():
        last -= 1
    if last >= first:
        blocks.append(Block("code", first + 1, last + 1, "\n".join(lines[first : last + 1])))
    return i


def _directive(lines: list[str], start: int, match: re.Match[str], blocks: list[Block]) -> int:
    """A directive: code ones become one code block, skipped ones vanish, and the rest
    (notes, warnings, ``.. setting:: STATIC_ROOT`` ...) keep their line and body as text."""
    name = match.group(2).lower().split(":")[-1]
    end = _block_end(lines, start, len(match.group(1)))
    last = end - 1
    while last > start and not lines[last].strip():
        last -= 1
    if name in _CODE_DIRECTIVES:
        blocks.append(Block("code", start + 1, last + 1, "\n".join(lines[start : last + 1])))
        return end
    if name in _SKIPPED_DIRECTIVES:
        return end
    blocks.append(Block("text", start + 1, start + 1, lines[start]))
    return start + 1  # the body is read as ordinary (indented) paragraphs
