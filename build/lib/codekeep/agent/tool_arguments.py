"""Tolerant parsing of the JSON arguments a model writes for a tool call.

Smaller and local models often emit almost-JSON: raw newlines inside a ``write_file``
content string, a Markdown fence, trailing commas, single quotes, Python literals, or
a call cut off before the closing brace. Valid JSON with raw control characters in
strings is read as written (``strict=False``: the content stays byte for byte);
anything else goes to the maintained ``json-repair`` package. When no JSON object comes
out — or only an empty one guessed from text that was not ``{}`` — the caller sends
the model a tool error asking it to resend the call instead of guessing.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import json_repair

_EMPTY_OBJECT = re.compile(r"^\s*(?:```[a-zA-Z0-9_-]*\s*)?\{\s*\}\s*(?:```\s*)?$")


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
    loaded = _load(text)
    if isinstance(loaded, dict):
        return ParsedArguments(loaded)
    repaired, log = json_repair.repair_json(text, return_objects=True, logging=True)
    repairs = tuple(dict.fromkeys(str(entry.get("text", entry)) for entry in log)) or (
        "repaired by json-repair",
    )
    if isinstance(repaired, str) and repaired:  # a double-encoded object, repaired inside
        repaired = _load(repaired)
    if isinstance(repaired, dict) and (repaired or _EMPTY_OBJECT.match(text)):
        return ParsedArguments(repaired, repairs)
    return ParsedArguments(None, repairs, loaded)


def _load(text: str) -> dict[str, Any] | str:
    """The parsed object, or the error message (a non-object counts as an error)."""
    try:
        value = json.loads(text, strict=False)  # raw newlines and tabs inside strings
    except json.JSONDecodeError as exc:
        return f"{exc.msg} at line {exc.lineno} column {exc.colno}"
    if isinstance(value, str):  # double-encoded: "{\"a\": 1}"
        return _load(value)
    if not isinstance(value, dict):
        return f"expected a JSON object, got {type(value).__name__}"
    return value
