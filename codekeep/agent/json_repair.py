"""Tolerant parsing of the JSON arguments a model writes for a tool call.

Smaller and local models often emit almost-JSON: wrapped in a Markdown fence, with
trailing commas, single quotes, Python literals, or cut off before the closing brace.
Each repair here fixes one such breakage; when none gives a JSON object the caller
sends the model a tool error asking it to resend the call instead of guessing.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

_FENCE = re.compile(r"^\s*```[a-zA-Z0-9_-]*\s*\n?(.*?)\n?\s*```\s*$", re.DOTALL)
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")
_PY_LITERALS = {"True": "true", "False": "false", "None": "null"}


@dataclass(frozen=True, slots=True)
class ParsedArguments:
    """``value`` is set when parsing succeeded; ``repairs`` names what had to be fixed."""

    value: dict[str, Any] | None
    repairs: tuple[str, ...] = ()
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.value is not None


def parse_tool_arguments(raw: str | dict[str, Any] | None) -> ParsedArguments:
    """Parse ``raw`` into an argument object, repairing common breakage."""
    if isinstance(raw, dict):
        return ParsedArguments(raw)
    text = (raw or "").strip()
    if not text:
        return ParsedArguments({}, ("empty arguments read as {}",))
    first_error = _load(text)
    if isinstance(first_error, dict):
        return ParsedArguments(first_error)
    repairs: list[str] = []
    for name, repair in _REPAIRS:
        fixed = repair(text)
        if fixed == text:
            continue
        text = fixed
        repairs.append(name)
        loaded = _load(text)
        if isinstance(loaded, dict):
            return ParsedArguments(loaded, tuple(repairs))
    return ParsedArguments(None, tuple(repairs), str(first_error))


def _load(text: str) -> dict[str, Any] | str:
    """The parsed object, or the error message (a non-object counts as an error)."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        return f"{exc.msg} at line {exc.lineno} column {exc.colno}"
    if isinstance(value, str):  # double-encoded: "{\"a\": 1}"
        inner = _load(value)
        return inner
    if not isinstance(value, dict):
        return f"expected a JSON object, got {type(value).__name__}"
    return value


def _strip_fence(text: str) -> str:
    match = _FENCE.match(text)
    return match.group(1).strip() if match else text


def _cut_to_object(text: str) -> str:
    """Drop prose before the first ``{`` and after the last ``}``."""
    start = text.find("{")
    if start < 0:
        return text
    end = text.rfind("}")
    return text[start : end + 1] if end > start else text[start:]


def _single_to_double_quotes(text: str) -> str:
    """Swap single-quoted strings for double-quoted ones outside double-quoted strings."""
    out: list[str] = []
    quote: str | None = None
    escaped = False
    for char in text:
        if quote is None:
            if char in "'\"":
                quote = char
                out.append('"')
                continue
            out.append(char)
            continue
        if escaped:
            escaped = False
            out.append(char)
            continue
        if char == "\\":
            escaped = True
            out.append(char)
            continue
        if char == quote:
            quote = None
            out.append('"')
            continue
        out.append('\\"' if char == '"' and quote == "'" else char)
    return "".join(out)


def _python_literals(text: str) -> str:
    return re.sub(
        r"(?<![\"\w])(True|False|None)(?![\"\w])", lambda m: _PY_LITERALS[m.group(1)], text
    )


def _drop_trailing_commas(text: str) -> str:
    return _TRAILING_COMMA.sub(r"\1", text)


def _close_open_structures(text: str) -> str:
    """Close an unterminated string and any braces/brackets still open at the end."""
    stack: list[str] = []
    in_string = False
    escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
            continue
        if char == '"':
            in_string = True
        elif char in "{[":
            stack.append("}" if char == "{" else "]")
        elif char in "}]" and stack and stack[-1] == char:
            stack.pop()
    closing = ('"' if in_string else "") + "".join(reversed(stack))
    return _drop_trailing_commas(text.rstrip().rstrip(",") + closing) if closing else text


_REPAIRS = (
    ("removed a Markdown code fence", _strip_fence),
    ("cut surrounding prose", _cut_to_object),
    ("replaced single quotes", _single_to_double_quotes),
    ("replaced Python literals", _python_literals),
    ("removed trailing commas", _drop_trailing_commas),
    ("closed unterminated braces", _close_open_structures),
)
