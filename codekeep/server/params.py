"""Reading custom-request parameters: one place that turns the wire shape into a dict
and explains malformed input as a JSON-RPC ``InvalidParams`` error.

Custom methods (``codekeep/...``) are not in lsprotocol, so their params arrive as
plain JSON values (our converter keeps them as dicts; older pygls converters produce
namedtuples, which we also accept). ``workspace/executeCommand`` passes the same
object as its single argument, so both doors share :func:`as_object`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from pygls.exceptions import JsonRpcInvalidParams

T = TypeVar("T")


class InvalidParams(JsonRpcInvalidParams):
    """Malformed params: the client gets code -32602 and a message naming the field."""

    def __init__(self, message: str) -> None:
        super().__init__(message=f"Invalid params: {message}")


def to_plain(value: Any) -> Any:
    """Recursively turn namedtuple-like objects into dicts (lists stay lists)."""
    if hasattr(value, "_asdict"):
        return {key: to_plain(item) for key, item in value._asdict().items()}
    if isinstance(value, Mapping):
        return {str(key): to_plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [to_plain(item) for item in value]
    return value


def as_object(params: Any) -> dict[str, Any]:
    """The params of a custom request as a dict; ``null``/absent means ``{}``."""
    if params is None:
        return {}
    plain = to_plain(params)
    if plain == []:
        return {}  # Lua clients encode an empty table {} as []
    if isinstance(plain, list) and len(plain) == 1 and isinstance(plain[0], dict):
        return plain[0]  # by-position params: [ {...} ]
    if not isinstance(plain, dict):
        raise InvalidParams(f"'params': expected a JSON object, got {type(plain).__name__}")
    return plain


def command_object(arguments: Sequence[Any]) -> dict[str, Any]:
    """The single object argument of a ``codekeep.<name>`` command (none means ``{}``)."""
    if len(arguments) == 0:
        return {}
    if len(arguments) > 1:
        raise InvalidParams(f"'arguments': expected one object argument, got {len(arguments)}")
    return as_object(arguments[0])


def _typed(params: Mapping[str, Any], key: str, kind: type | tuple[type, ...], label: str) -> Any:
    value = params.get(key)
    # bool is an int subclass; a flag is never a valid count.
    if not isinstance(value, kind) or (isinstance(value, bool) and bool not in _as_tuple(kind)):
        raise InvalidParams(f"'{key}' must be {label}, got {_describe(value)}")
    return value


def _as_tuple(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def _describe(value: Any) -> str:
    return "nothing" if value is None else f"{type(value).__name__} {value!r}"[:80]


def required_str(params: Mapping[str, Any], key: str) -> str:
    value = _typed(params, key, str, "a non-empty string")
    if not value:
        raise InvalidParams(f"'{key}' must be a non-empty string")
    return str(value)


def optional_str(params: Mapping[str, Any], key: str) -> str | None:
    return None if params.get(key) is None else required_str(params, key)


def optional_int(
    params: Mapping[str, Any], key: str, *, minimum: int = 0, maximum: int | None = None
) -> int | None:
    if params.get(key) is None:
        return None
    value = int(_typed(params, key, int, "an integer"))
    if value < minimum or (maximum is not None and value > maximum):
        upper = "" if maximum is None else f" and at most {maximum}"
        raise InvalidParams(f"'{key}' must be at least {minimum}{upper}, got {value}")
    return value


def optional_str_list(params: Mapping[str, Any], key: str) -> list[str]:
    if params.get(key) is None:
        return []
    values = _typed(params, key, list, "a list of strings")
    if not all(isinstance(item, str) for item in values):
        raise InvalidParams(f"'{key}' must be a list of strings")
    return list(values)


def position(params: Mapping[str, Any], key: str = "position") -> tuple[int, int]:
    """An LSP ``{line, character}`` as a tuple (both non-negative integers)."""
    value = _typed(params, key, dict, "an object {line, character}")
    line, character = value.get("line"), value.get("character")
    for name, number in (("line", line), ("character", character)):
        if not isinstance(number, int) or isinstance(number, bool) or number < 0:
            raise InvalidParams(f"'{key}.{name}' must be a non-negative integer")
    return int(line), int(character)
