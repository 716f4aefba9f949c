"""The identifiers a chunk names as code, so the code map can link docs and symbols.

Only text marked as code counts: Markdown/AsciiDoc code spans (`` `Foo.bar()` ``),
reST literals and roles (````Foo````, ``:func:`~pkg.Foo.bar```), and calls or class
names inside code blocks. Prose words never count: "save the file" must not link a
chunk to every ``save`` method. Each mention keeps the dotted component before the
name (``Foo`` for ``Foo.bar``) so a lookup can prefer the right container.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from codekeep.docs.model import Block

_SPAN = re.compile(
    r"``([^`\n]+?)``"  # reST literal
    r"|:[\w:.-]+:`~?([^`<\n]+?)(?:\s*<([^>`\n]+)>)?`"  # reST role, optional <target>
    r"|(?<![`\w])`([^`\n]+?)`(?!`)"  # Markdown / AsciiDoc code span
)
_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_CALL_OR_CLASS = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s*\(|"
                            r"\b([A-Z][a-z0-9]+(?:[A-Z][A-Za-z0-9]*)+)\b")
MIN_NAME = 3
# Names every language's examples use; they would link docs to unrelated symbols.
_COMMON = frozenset(
    {"self", "cls", "None", "True", "False", "null", "true", "false", "print", "len",
     "str", "int", "dict", "list", "set", "tuple", "bool", "float", "object", "type",
     "range", "open", "super", "isinstance", "return", "import", "from", "def", "class",
     "function", "var", "let", "const", "new", "this", "console", "log", "require",
     "http", "https", "www", "com", "org", "html", "json", "yaml", "toml", "txt"}
)  # fmt: skip
MAX_MENTIONS = 64


def mentions_in(blocks: Iterable[Block]) -> tuple[tuple[str, str | None], ...]:
    found: dict[tuple[str, str | None], None] = {}
    for block in blocks:
        if block.kind == "code":
            for match in _CALL_OR_CLASS.finditer(block.text):
                _add(found, match.group(1) or match.group(2))
        else:
            for match in _SPAN.finditer(block.text):
                for span in filter(None, match.groups()):
                    for dotted in _DOTTED.findall(span):
                        _add(found, dotted)
        if len(found) >= MAX_MENTIONS:
            break
    return tuple(list(found)[:MAX_MENTIONS])


def _add(found: dict[tuple[str, str | None], None], dotted: str) -> None:
    """``Foo.bar`` names ``bar`` (in ``Foo``) and ``Foo`` itself."""
    parts = dotted.split(".")
    for depth in (1, 2)[: len(parts)]:
        name = parts[-depth]
        if len(name) < MIN_NAME or name in _COMMON or name.isdigit():
            continue
        found[(name, parts[-depth - 1] if len(parts) > depth else None)] = None
