"""Argument normalisation: models spell parameter names differently; handlers see one spelling.

Order per argument: exact schema name -> snake/camel conversion -> alias table ->
left as is (validation then names it). Then the arguments are validated against the
tool's JSON Schema, with an error message the model can act on.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Mapping
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from codekeep.tools.spec import ToolSpec

# alias -> canonical names it may stand for, tried in order against the schema.
PARAM_ALIASES: dict[str, tuple[str, ...]] = {
    "file": ("path",),
    "filepath": ("path",),
    "file_path": ("path",),
    "filename": ("path",),
    "file_name": ("path",),
    "fname": ("path",),
    "dir": ("path", "directory"),
    "directory": ("path",),
    "folder": ("path",),
    "query": ("pattern", "name"),
    "search": ("pattern", "query"),
    "regex": ("pattern",),
    "term": ("query", "pattern"),
    "keyword": ("query", "pattern"),
    "symbol": ("name",),
    "symbol_name": ("name",),
    "identifier": ("name",),
    "fixed_string": ("literal",),
    "fixed_strings": ("literal",),
    "max_results": ("limit",),
    "max": ("limit",),
    "top_k": ("limit",),
    "count": ("limit",),
    "start": ("start_line",),
    "line_start": ("start_line",),
    "from_line": ("start_line",),
    "end": ("end_line",),
    "line_end": ("end_line",),
    "to_line": ("end_line",),
    "text": ("content",),
    "body": ("content",),
    "data": ("content",),
    "cmd": ("command",),
    "memory_id": ("id",),
    "task": ("task_id",),
    "budget": ("token_budget",),
    "tokens": ("token_budget",),
}

_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


class ArgumentError(ValueError):
    """Arguments that cannot be used; the message tells the model how to fix the call."""


def to_snake(name: str) -> str:
    return _CAMEL_BOUNDARY.sub("_", name).replace("-", "_").lower()


def to_camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def parse_arguments(arguments: Mapping[str, Any] | str | None) -> dict[str, Any]:
    """Function-calling APIs deliver arguments as a JSON string; accept both forms."""
    if arguments is None:
        return {}
    if isinstance(arguments, str):
        text = arguments.strip()
        if not text:
            return {}
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ArgumentError(
                f"arguments are not valid JSON ({exc.msg} at character {exc.pos}); "
                'send an object such as {"path": "src/app.py"}'
            ) from None
        arguments = value
    if not isinstance(arguments, Mapping):
        raise ArgumentError(f"arguments must be a JSON object, got {type(arguments).__name__}")
    return dict(arguments)


def normalise_arguments(spec: ToolSpec, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """Map each given name onto the schema's spelling; an exact name always wins."""
    known = spec.properties
    result: dict[str, Any] = {}
    deferred: list[tuple[str, Any]] = []
    for key, value in arguments.items():
        if key in known:
            result[key] = value
        else:
            deferred.append((key, value))
    for key, value in deferred:
        target = _canonical_name(key, value, known)
        if target is None or target in result:
            result.setdefault(key, value)  # unknown: validation will name it
        else:
            result[target] = value
    return result


def _canonical_name(key: str, value: Any, known: Mapping[str, Any]) -> str | None:
    for candidate in (to_snake(key), to_camel(key)):
        if candidate in known:
            return candidate
    for alias in (key, key.lower(), to_snake(key)):
        for target in PARAM_ALIASES.get(alias, ()):
            if target in known and _fits(value, known[target]):
                return target
    return None


_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list, tuple),
    "object": (dict,),
}


def _fits(value: Any, prop: Mapping[str, Any]) -> bool:
    """An alias only maps onto a parameter of a compatible type (``regex: true`` is no pattern)."""
    declared = prop.get("type")
    if not isinstance(declared, str) or declared not in _JSON_TYPES:
        return True
    if isinstance(value, bool) and declared != "boolean":
        return False
    return isinstance(value, _JSON_TYPES[declared]) or (
        declared != "string" and isinstance(value, str)
    )


def with_defaults(spec: ToolSpec, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """Fill in schema defaults, so equal calls look equal to the cache and the dedup check."""
    filled = dict(arguments)
    for name, prop in spec.properties.items():
        if name not in filled and "default" in prop:
            filled[name] = copy.deepcopy(prop["default"])
    return filled


def validate_arguments(spec: ToolSpec, arguments: dict[str, Any]) -> None:
    """Raise :class:`ArgumentError` describing every problem, with the expected parameters."""
    validator = Draft202012Validator(spec.parameters)
    errors = sorted(validator.iter_errors(arguments), key=lambda e: list(e.path))
    if not errors:
        return
    problems = "; ".join(_describe(error) for error in errors[:5])
    raise ArgumentError(
        f"invalid arguments for {spec.name}: {problems}. Expected: {signature(spec)}"
    )


def _describe(error: ValidationError) -> str:
    where = ".".join(str(p) for p in error.path)
    if error.validator == "additionalProperties":
        return f"{error.message} (remove them or use the names listed)"
    if error.validator == "enum" and isinstance(error.schema, dict) and \
            error.schema.get("description"):
        return f"{where}: {error.message} ({error.schema['description']})"
    return f"{where}: {error.message}" if where else error.message


def signature(spec: ToolSpec) -> str:
    """``name(required: type, optional?: type)`` — the shortest correct reminder for a model."""
    required = set(spec.parameters.get("required", []))
    parts = []
    for pname, prop in spec.properties.items():
        kind = prop.get("type", "any")
        parts.append(f"{pname}{'' if pname in required else '?'}: {kind}")
    return f"{spec.name}({', '.join(parts)})"
