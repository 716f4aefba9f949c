"""Jupyter notebooks: their Markdown cells are documentation, their code cells are not.

A notebook is JSON; its Markdown cells are joined (a blank line between cells) and
parsed as Markdown, so headings in any cell head the chunks that follow them, as they
do when the notebook is rendered. Lines are the notebook file's own: Jupyter writes a
cell's ``source`` as a JSON list, one source line per file line, so each Markdown line
is placed on the file line that holds it, and a hit opens the editor where the text is.
A cell whose source is one string (hand-written JSON) is placed on its ``"source"`` line.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass


class NotebookError(ValueError):
    """The file is not a notebook (not JSON, or no ``cells`` list)."""


@dataclass(frozen=True, slots=True)
class NotebookText:
    """The Markdown of a notebook and, for each of its lines, the notebook file's line."""

    markdown: str
    file_lines: list[int]

    def file_line(self, line: int) -> int:
        """The notebook file's line (1-based) for a line of :attr:`markdown` (1-based)."""
        if not self.file_lines:
            return 1
        return self.file_lines[min(max(line, 1), len(self.file_lines)) - 1]


def notebook_markdown(text: str) -> NotebookText:
    """The Markdown cells of a notebook's JSON text, placed on the file's lines."""
    try:
        notebook = json.loads(text)
    except json.JSONDecodeError as error:
        raise NotebookError(f"not JSON: {error.msg} at line {error.lineno}") from None
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    if not isinstance(cells, list):
        raise NotebookError("no 'cells' list")
    places = _source_lines(text.splitlines())
    markdown: list[str] = []
    file_lines: list[int] = []
    for cell in cells:
        place = next(places, None)  # every cell has a "source", so they pair in order
        if not isinstance(cell, dict) or cell.get("cell_type") != "markdown":
            continue
        source = cell.get("source", "")
        pieces = source if isinstance(source, list) else [source]
        cell_lines = "".join(p for p in pieces if isinstance(p, str)).splitlines()
        if not cell_lines:
            continue
        if markdown:
            markdown.append("")
            file_lines.append(file_lines[-1])
        first, listed = place if place is not None else (1, False)
        markdown.extend(cell_lines)
        file_lines.extend(first + n if listed and len(cell_lines) == len(pieces) else first
                          for n in range(len(cell_lines)))
    return NotebookText("\n".join(markdown), file_lines)


def _source_lines(lines: list[str]) -> Iterator[tuple[int, bool]]:
    """For each cell's ``"source"`` key in file order: the line of its first source
    line (1-based) and whether the source is written as a list, one line per entry."""
    for number, line in enumerate(lines, start=1):
        stripped = line.lstrip()
        if not stripped.startswith('"source":'):
            continue
        rest = stripped[len('"source":'):].strip()
        if rest == "[":
            yield number + 1, True
        else:
            yield number, False
