"""Editing a host's JSON config without disturbing the user's part of it.

The file is parsed keeping its key order, changed in place, and written back with the
indent it used (two spaces, four, a tab) and its final newline; unknown keys are never
touched. A file that is not plain JSON (VS Code allows comments) is refused with a
:class:`~codekeep.hosts.changes.ConfigError` rather than rewritten without them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from codekeep.hosts.changes import ConfigError

Document = dict[str, Any]
_INDENT = re.compile(r"^\{\s*?\n([ \t]+)\S", re.MULTILINE)


def parse(text: str | None, where: str) -> Document:
    if text is None or not text.strip():
        return {}
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise ConfigError(f"{where} is not plain JSON ({error.msg}, line {error.lineno}); "
                          f"left alone: fix it, or add CodeKeep by hand") from error
    if not isinstance(document, dict):
        raise ConfigError(f"{where} does not hold a JSON object; left alone")
    return document


def render(document: Document, like: str | None) -> str:
    """``document`` as text, indented like ``like`` (the file's old text; default 2)."""
    indent: str | int = 2
    match = _INDENT.match(like or "")
    if match:
        indent = match.group(1)
    newline = "\n" if like is None or like.endswith("\n") else ""
    return json.dumps(document, indent=indent, ensure_ascii=False) + newline


def edited(edit: Callable[[Document], None], where: str) -> Callable[[str | None], str | None]:
    """A text edit (for :func:`~codekeep.hosts.changes.planned`) that applies ``edit`` to
    the parsed document; the file is deleted when nothing is left in it, left as it was
    when ``edit`` changed nothing."""
    def apply(text: str | None) -> str | None:
        document = parse(text, where)
        before = json.dumps(document)
        edit(document)
        if json.dumps(document) == before:
            return text
        return render(document, text) if document else None
    return apply


def child(document: Document, key: str) -> Document:
    """``document[key]`` as an object, created when absent; refuses another type."""
    value = document.setdefault(key, {})
    if not isinstance(value, dict):
        raise ConfigError(f"{key!r} is not a JSON object; left alone")
    return value


def drop_if_empty(document: Document, key: str) -> None:
    if document.get(key) in ({}, []):
        del document[key]
