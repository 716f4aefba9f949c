"""Tolerant parsing of the JSON arguments a model writes for a tool call.

Smaller and local models often emit almost-JSON: raw newlines inside a ``write_file``
content string, a Markdown fence, trailing commas, single quotes, Python literals, or
a call cut off before the closing brace. Valid JSON with raw control characters in
strings is read as written (``strict=False``: the content stays byte for byte);
anything else goes to the maintained ``json-repair`` package. When no JSON object comes
out — or only an empty one guessed from text that was not ``{}`` — the caller sends
the model a tool error asking it to resend the call instead of guessing.

Then :func:`coerce_to_schema` takes what the tool's schema allows without guessing —
``"limit": "5"`` for an integer, ``"true"`` for a boolean, one value for an array — so
an unambiguous call does not cost a round trip; anything else is left to validation,
which refuses it with the expected signature.
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


_INTEGER = re.compile(r"^\s*[+-]?\d+\s*$")


def coerce_to_schema(arguments: dict[str, Any], schema: dict[str, Any]
                     ) -> tuple[dict[str, Any], tuple[str, ...]]:
    """What the schema allows without guessing: ``"5"`` for an integer or a number,
    ``"true"``/``"false"`` for a boolean, a single value for an array (each item
    coerced the same way). Anything else is left for validation to refuse with the
    expected signature. Returns the arguments and what was coerced."""
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return arguments, ()
    coerced = dict(arguments)
    notes: list[str] = []
    for name, value in arguments.items():
        prop = properties.get(name)
        if not isinstance(prop, dict):
            continue
        fixed = _coerce(value, prop)
        if fixed is not _UNCHANGED:
            coerced[name] = fixed
            notes.append(f"{name}: {value!r} -> {fixed!r}")
    return coerced, tuple(notes)


_UNCHANGED: Any = object()


def _types(prop: dict[str, Any]) -> list[str]:
    declared = prop.get("type")
    if isinstance(declared, str):
        return [declared]
    if isinstance(declared, list):
        return [t for t in declared if isinstance(t, str)]
    return [t for option in prop.get("anyOf") or [] if isinstance(option, dict)
            for t in _types(option)]


def _coerce(value: Any, prop: dict[str, Any]) -> Any:
    types = _types(prop)
    if not types or _matches(value, types):
        return _UNCHANGED
    if isinstance(value, str):
        text = value.strip()
        if "integer" in types and _INTEGER.match(text):
            return int(text)
        if "number" in types:
            try:
                number = float(text)
            except ValueError:
                number = None
            if number is not None and number == number and abs(number) != float("inf"):
                return int(number) if number.is_integer() and _INTEGER.match(text) else number
        if "boolean" in types and text.lower() in ("true", "false"):
            return text.lower() == "true"
    if "array" in types and not isinstance(value, list):
        items = prop.get("items")
        item = _coerce(value, items) if isinstance(items, dict) else _UNCHANGED
        one = value if item is _UNCHANGED else item
        if not isinstance(items, dict) or _matches(one, _types(items) or ["any"]):
            return [one]
    return _UNCHANGED


def _matches(value: Any, types: list[str]) -> bool:
    checks = {"string": lambda v: isinstance(v, str),
              "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
              "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
              "boolean": lambda v: isinstance(v, bool), "array": lambda v: isinstance(v, list),
              "object": lambda v: isinstance(v, dict), "null": lambda v: v is None,
              "any": lambda v: True}
    return any(checks.get(t, lambda v: True)(value) for t in types)
