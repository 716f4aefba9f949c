"""Module and class docstrings of Python files as chunks: the docs that live in the code.

A module's docstring is headed by its path (``codekeep/docs/service.py``), a class's by
its path and qualified name (``codekeep/docs/service.py › DocsIndex``); spans are the
string literal's lines. Functions' docstrings are left to the code map's hover and
signatures: they describe one call, not how the project works. Python only (``ast``
gives exact docstrings and lines without another grammar); a file that does not parse
gives no chunks (the code map still indexes what tree-sitter recovers).
"""

from __future__ import annotations

import ast
import inspect

from codekeep.docs.mentions import mentions_in
from codekeep.docs.model import Block, Chunk, ParsedDocument

PYTHON_SUFFIXES = (".py", ".pyi")


def is_python(rel: str) -> bool:
    return rel.lower().endswith(PYTHON_SUFFIXES)


def parse_docstrings(rel: str, text: str) -> ParsedDocument:
    lines = text.count("\n") + (not text.endswith("\n"))
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return ParsedDocument(rel, "docstring", [], lines)
    chunks: list[Chunk] = []
    module = _docstring(tree, (rel,))
    if module is not None:
        chunks.append(module)
    stack: list[tuple[ast.AST, tuple[str, ...]]] = [(tree, ())]
    while stack:
        node, names = stack.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                qualified = (*names, child.name)
                chunk = _docstring(child, (rel, ".".join(qualified)))
                if chunk is not None:
                    chunks.append(chunk)
                stack.append((child, qualified))
    chunks.sort(key=lambda chunk: chunk.start_line)
    return ParsedDocument(rel, "docstring", chunks, lines)


def _docstring(node: ast.Module | ast.ClassDef, path: tuple[str, ...]) -> Chunk | None:
    body = node.body
    if not body or not isinstance(body[0], ast.Expr):
        return None
    literal = body[0].value
    if not isinstance(literal, ast.Constant) or not isinstance(literal.value, str):
        return None
    text = inspect.cleandoc(literal.value)
    if not text:
        return None
    start, end = literal.lineno, literal.end_lineno or literal.lineno
    return Chunk(path, start, end, text, mentions_in([Block("text", start, end, text)]))
