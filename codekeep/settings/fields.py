"""One way to declare, read and check a setting, shared by every area.

An area's settings are a frozen dataclass in its own ``settings.py`` (the descriptions
below are named tuples: every CLI query imports this module). A field users may
set is declared with :func:`setting` (what it means, its environment variable, its
bounds) or, for a nested group, :func:`section`; a field without either is an internal
knob that no configuration source can reach. Everything else follows from the
declaration: the camelCase name on the wire (``retention_days`` -> ``retentionDays``),
type checking, the JSON schema the VS Code extension is tested against, and the table
in ``docs/settings.md``. Adding a setting is adding one field.

:func:`structure` turns a plain mapping (editor settings, a TOML file, flags) into the
dataclass and never raises: each value that does not fit is reported as a
:class:`Problem` with its dotted key and left at its default, so a caller can keep the
previous value for exactly that key. The one converter is cattrs with strict hooks (a
string is never read as a number, a list of strings never from a string). It is built
on first use: a folder with no settings set never converts a value, and a CLI query
must not pay cattrs' import (a quarter of its start-up) for nothing.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from collections.abc import Mapping
from dataclasses import MISSING, field
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, TypeVar, Union

if TYPE_CHECKING:
    import cattrs

T = TypeVar("T")
_KEY = "codekeep.setting"


class SettingsError(ValueError):
    """A setting has the wrong type or value; the message names the key."""


class SettingSpec(NamedTuple):
    """What a settings field means to users (stored in the field's metadata)."""

    doc: str
    wire: str | None = None  # name on the wire; default: camelCase of the field name
    env: tuple[str, ...] = ()  # environment variables read for it, first one set wins
    minimum: float | None = None  # numbers (and each item of a list of numbers): >= this
    above: float | None = None  # numbers (and each item): > this
    min_items: int | None = None  # lists: at least this many items
    secret: bool = False  # never echoed back (logs, `codekeep settings`)
    is_section: bool = False
    flat: bool = False  # a section whose keys sit at its parent's level


def setting(
    doc: str,
    *,
    default: Any = MISSING,
    default_factory: Any = MISSING,
    wire: str | None = None,
    env: tuple[str, ...] = (),
    minimum: float | None = None,
    above: float | None = None,
    min_items: int | None = None,
    secret: bool = False,
) -> Any:
    """A dataclass field users may set (give ``default`` or ``default_factory``)."""
    spec = SettingSpec(doc, wire, env, minimum, above, min_items, secret)
    if default_factory is not MISSING:
        return field(default_factory=default_factory, metadata={_KEY: spec})
    return field(default=default, metadata={_KEY: spec})


def section(factory: Any, doc: str, *, flat: bool = False, wire: str | None = None) -> Any:
    """A field holding a nested settings dataclass (``flat``: its keys at this level)."""
    spec = SettingSpec(doc, wire=wire, is_section=True, flat=flat)
    return field(default_factory=factory, metadata={_KEY: spec})


def camel(name: str) -> str:
    """``task_idle_timeout_s`` -> ``taskIdleTimeoutS``."""
    head, *rest = name.split("_")
    return head + "".join(word[:1].upper() + word[1:] for word in rest)


class Entry(NamedTuple):
    """One user-settable field of a settings class, as the wire and the docs see it."""

    name: str  # Python field name
    wire: str
    type: Any
    spec: SettingSpec
    default: Any  # the default value (for a section: its default instance)


def entries(cls: type) -> tuple[Entry, ...]:
    """The user-settable fields of ``cls`` (sections included), in declaration order."""
    return _entries(cls)


@functools.cache
def _entries(cls: Any) -> tuple[Entry, ...]:
    hints = typing.get_type_hints(cls)
    found = []
    for f in dataclasses.fields(cls):
        spec = f.metadata.get(_KEY)
        if spec is None:
            continue
        default = f.default_factory() if f.default_factory is not MISSING else f.default
        found.append(Entry(f.name, spec.wire or camel(f.name), hints[f.name], spec, default))
    return tuple(found)


class Problem(NamedTuple):
    """A value that was not accepted: ``key`` is dotted wire names (``ledger.retentionDays``)."""

    key: tuple[str, ...]
    message: str
    settled: bool = False  # the message already says what happens instead

    @property
    def dotted(self) -> str:
        return ".".join(self.key)

    def __str__(self) -> str:
        return f"{self.dotted or 'settings'}: {self.message}"


def structure(cls: type[T], raw: Any, prefix: tuple[str, ...] = (), *,
              strict_keys: bool = True,
              siblings: frozenset[str] = frozenset()) -> tuple[T, list[Problem]]:
    """``raw`` (wire names) as ``cls``; what does not fit is reported and left at default.

    ``None`` anywhere means "not set here". Unknown keys are problems too (a typo must
    not silently do nothing), except in a flat section (``strict_keys=False``), whose
    parent holds the other sections' keys and judges them, and except ``siblings``:
    keys at this level that other sections, not built here, own.
    """
    problems: list[Problem] = []
    if raw is None:
        raw = {}
    if not isinstance(raw, Mapping):
        return cls(), [Problem(prefix, f"must be an object, got {_show(raw)}")]
    values: dict[str, Any] = {}
    known: set[str] = set(siblings)
    for entry in entries(cls):
        if entry.spec.is_section and entry.spec.flat:
            values[entry.name], nested = structure(entry.type, raw, prefix, strict_keys=False)
            known.update(flat_keys(entry.type))
            problems.extend(nested)
            continue
        known.add(entry.wire)
        value = raw.get(entry.wire)
        if value is None:
            continue
        key = (*prefix, entry.wire)
        if entry.spec.is_section:
            values[entry.name], nested = structure(entry.type, value, key)
            problems.extend(nested)
            continue
        try:
            values[entry.name] = check_value(entry, _structured(value, entry.type))
        except (TypeError, ValueError) as error:
            detail = str(error) if isinstance(error, SettingsError) else (
                f"must be {describe(entry.type)}, got {_show(value)}")
            problems.append(Problem(key, detail))
    if strict_keys:
        problems.extend(_unknown((*prefix, str(key)), known) for key in raw if key not in known)
    try:
        return cls(**values), problems
    except SettingsError as error:  # values that fit one by one but not together
        return cls(), [*problems, Problem(prefix, str(error))]


def _unknown(key: tuple[str, ...], known: set[str]) -> Problem:
    import difflib  # only to word a typo's hint

    close = difflib.get_close_matches(key[-1], sorted(known), n=1)
    hint = f" (did you mean {'.'.join((*key[:-1], close[0]))}?)" if close else ""
    return Problem(key, f"is not a setting{hint}; ignored", settled=True)


def flat_keys(cls: type) -> set[str]:
    """The wire keys ``cls`` reads at its own level (flat sections included)."""
    keys: set[str] = set()
    for entry in entries(cls):
        if entry.spec.is_section and entry.spec.flat:
            keys |= flat_keys(entry.type)
        else:
            keys.add(entry.wire)
    return keys


def check_value(entry: Entry, value: Any) -> Any:
    """Apply the field's bounds; raises :class:`SettingsError` with a readable reason."""
    spec = entry.spec
    items = value if isinstance(value, tuple) else (value,)
    if spec.min_items is not None and isinstance(value, tuple) and len(value) < spec.min_items:
        raise SettingsError(f"needs at least {spec.min_items} item(s)")
    for item in items:
        if not isinstance(item, int | float) or isinstance(item, bool):
            continue
        if spec.minimum is not None and item < spec.minimum:
            raise SettingsError(f"must be at least {_number(spec.minimum)}, got {item!r}")
        if spec.above is not None and item <= spec.above:
            raise SettingsError(f"must be more than {_number(spec.above)}, got {item!r}")
    return value


def check_bounds(instance: Any) -> None:
    """Raise :class:`SettingsError` if a field of ``instance`` is out of its bounds.

    For settings built in Python (``LedgerSettings(retention_days=0)``), which do not go
    through :func:`structure`.
    """
    for entry in entries(type(instance)):
        if entry.spec.is_section:
            continue
        try:
            check_value(entry, getattr(instance, entry.name))
        except SettingsError as error:
            raise SettingsError(f"{entry.wire} {error}") from None


def unstructure(instance: Any, *, reveal: bool = False) -> dict[str, Any]:
    """The user-settable values of ``instance`` with wire names (secrets hidden)."""
    out: dict[str, Any] = {}
    for entry in entries(type(instance)):
        value = getattr(instance, entry.name)
        if entry.spec.is_section:
            nested = unstructure(value, reveal=reveal)
            if entry.spec.flat:
                out.update(nested)
            else:
                out[entry.wire] = nested
        elif entry.spec.secret and value and not reveal:
            out[entry.wire] = "<set>"
        else:
            out[entry.wire] = _converter().unstructure(value)
    return out


def json_schema(entry: Entry) -> dict[str, Any]:
    """The JSON schema of one leaf setting (type, default, bounds, description)."""
    schema = _type_schema(entry.type)
    schema["default"] = _converter().unstructure(entry.default)
    bound = "items" if schema.get("type") == "array" else None
    target = schema[bound] if bound else schema
    if entry.spec.minimum is not None:
        target["minimum"] = entry.spec.minimum
    if entry.spec.above is not None:
        target["exclusiveMinimum"] = entry.spec.above
    if entry.spec.min_items is not None:
        schema["minItems"] = entry.spec.min_items
    schema["description"] = entry.spec.doc
    return schema


def leaves(cls: type, prefix: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Entry]]:
    """Every leaf setting under ``cls`` with its full wire key, depth first."""
    found: list[tuple[tuple[str, ...], Entry]] = []
    for entry in entries(cls):
        if entry.spec.is_section:
            found.extend(leaves(entry.type, prefix if entry.spec.flat else (*prefix, entry.wire)))
        else:
            found.append(((*prefix, entry.wire), entry))
    return found


def describe(tp: Any) -> str:
    """How a type reads in a message or a table: ``a list of strings``, ``a number``."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is Literal:
        return "one of " + ", ".join(repr(a) for a in args)
    if origin in (Union, types.UnionType):
        kept = [a for a in args if a is not type(None)]
        nullable = " or null" if len(kept) < len(args) else ""
        return " or ".join(describe(a) for a in kept) + nullable
    if origin is tuple:
        inner = describe(args[0])
        plural = {"a string": "strings", "a number": "numbers", "an object": "objects"}
        return f"a list of {plural.get(inner, inner)}"
    return _NAMES.get(origin or tp, getattr(tp, "__name__", str(tp)))


_NAMES: dict[Any, str] = {
    str: "a string", int: "a whole number", float: "a number", bool: "true or false",
    Mapping: "an object", dict: "an object", Any: "any value",
}
_JSON_TYPES: dict[Any, str] = {
    str: "string", int: "integer", float: "number", bool: "boolean", Mapping: "object",
    dict: "object",
}


def _type_schema(tp: Any) -> dict[str, Any]:
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is Literal:
        return {"type": "string", "enum": list(args)}
    if origin in (Union, types.UnionType):
        kept = [a for a in args if a is not type(None)]
        schema = _type_schema(kept[0])
        schema["type"] = [schema["type"], "null"]
        return schema
    if origin is tuple:
        return {"type": "array", "items": _type_schema(args[0])}
    return {"type": _JSON_TYPES.get(origin or tp, "object")}


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def _strict(kind: type, accepts: tuple[type, ...]) -> Any:
    def hook(value: Any, _tp: Any) -> Any:
        if isinstance(value, bool) and kind is not bool:
            raise SettingsError(f"must be {describe(kind)}, got {_show(value)}")
        if not isinstance(value, accepts):
            raise SettingsError(f"must be {describe(kind)}, got {_show(value)}")
        return kind(value)
    return hook


def _is_sequence(tp: Any) -> bool:
    return typing.get_origin(tp) is tuple


def _sequence_hook(tp: Any) -> Any:
    item = typing.get_args(tp)[0]

    def hook(value: Any, _tp: Any) -> tuple[Any, ...]:
        if not isinstance(value, list | tuple):
            raise SettingsError(f"must be {describe(tp)}, got {_show(value)}")
        try:
            return tuple(_converter().structure(v, item) for v in value)
        except SettingsError:
            raise SettingsError(f"must be {describe(tp)}, got {_show(value)}") from None
    return hook


def _mapping_hook(value: Any, _tp: Any) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise SettingsError(f"must be an object, got {_show(value)}")
    return dict(value)


def _structured(value: Any, tp: Any) -> Any:
    """``value`` as ``tp``; a value cattrs cannot convert is a TypeError."""
    converter = _converter()
    import cattrs  # loaded by _converter()

    try:
        return converter.structure(value, tp)
    except cattrs.errors.CattrsError as error:
        raise TypeError(str(error)) from error


@functools.cache
def _converter() -> cattrs.Converter:
    import cattrs

    converter = cattrs.Converter()
    converter.register_structure_hook(str, _strict(str, (str,)))
    converter.register_structure_hook(bool, _strict(bool, (bool,)))
    converter.register_structure_hook(int, _strict(int, (int,)))
    converter.register_structure_hook(float, _strict(float, (int, float)))
    converter.register_structure_hook_factory(_is_sequence, _sequence_hook)
    converter.register_structure_hook_func(
        lambda tp: typing.get_origin(tp) in (Mapping, dict) or tp in (Mapping, dict),
        _mapping_hook)
    converter.register_unstructure_hook_func(
        _is_sequence, lambda value: [_converter().unstructure(v) for v in value])
    return converter

