"""References inside composed-tool arguments: ``$steps[0].data.symbols[0].path``, ``$args.name``.

A string that is exactly one reference is replaced by the value it points at (any JSON
type); references are checked when the tool is forged, so a typo fails early.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

_REFERENCE = re.compile(r"^\$(?:steps\[(\d+)\]|args)((?:\.[A-Za-z_][A-Za-z0-9_]*|\[\d+\])*)$")
_SEGMENT = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]")


class ReferenceResolutionError(ValueError):
    """A reference that is malformed, points forward, or finds nothing."""


def is_reference(value: Any) -> bool:
    return isinstance(value, str) and value.startswith("$") and bool(_REFERENCE.match(value))


def references_in(template: Any) -> list[str]:
    """Every reference string anywhere in ``template`` (dicts and lists walked)."""
    if isinstance(template, str):
        if template.startswith("$steps") or template.startswith("$args"):
            if not _REFERENCE.match(template):
                raise ReferenceResolutionError(
                    f"malformed reference {template!r}; use e.g. $steps[0].data.items[0].path"
                )
            return [template]
        return []
    if isinstance(template, Mapping):
        return [r for v in template.values() for r in references_in(v)]
    if isinstance(template, list | tuple):
        return [r for v in template for r in references_in(v)]
    return []


def step_index(reference: str) -> int | None:
    match = _REFERENCE.match(reference)
    assert match is not None
    return int(match.group(1)) if match.group(1) is not None else None


def resolve(template: Any, steps: Sequence[Mapping[str, Any]], args: Mapping[str, Any]) -> Any:
    """``template`` with every reference replaced by the value it names."""
    if isinstance(template, str) and is_reference(template):
        return _lookup(template, steps, args)
    if isinstance(template, Mapping):
        return {k: resolve(v, steps, args) for k, v in template.items()}
    if isinstance(template, list | tuple):
        return [resolve(v, steps, args) for v in template]
    return template


def _lookup(reference: str, steps: Sequence[Mapping[str, Any]], args: Mapping[str, Any]) -> Any:
    match = _REFERENCE.match(reference)
    assert match is not None
    index = match.group(1)
    if index is not None:
        if int(index) >= len(steps):
            raise ReferenceResolutionError(f"{reference}: step {index} has not run yet")
        value: Any = steps[int(index)]
    else:
        value = args
    walked = f"$steps[{index}]" if index is not None else "$args"
    for key, position in _SEGMENT.findall(match.group(2)):
        walked += f".{key}" if key else f"[{position}]"
        try:
            value = value[key] if key else value[int(position)]
        except (KeyError, IndexError, TypeError):
            raise ReferenceResolutionError(f"{reference}: nothing at {walked}") from None
    return value
