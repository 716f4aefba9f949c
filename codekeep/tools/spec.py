"""How a tool is declared: once, as an async function with annotated parameters.

The JSON Schema the model sees is derived from the handler's signature, so the
declaration and the schema can never drift apart. ``Param`` carries the
model-readable description and any extra schema keywords (``minimum``, ``enum`` ...).
"""

from __future__ import annotations

import inspect
import re
import types
import typing
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

JSON_SCHEMA_DRAFT = "https://json-schema.org/draft/2020-12/schema"
_SNAKE_CASE = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$")


def is_snake_case(name: str) -> bool:
    return bool(_SNAKE_CASE.match(name))


PathAccess = Literal["read", "write"]
Compression = Literal["search", "references", "file", "symbols", "text", "json"]


@dataclass(frozen=True, slots=True)
class Param:
    """Description and extra JSON Schema keywords for one handler parameter.

    ``path`` marks a parameter the safety gate must check as a workspace path
    (``"read"`` or ``"write"``); ``command`` marks a shell command string.
    """

    description: str
    path: PathAccess | None = None
    command: bool = False
    schema: Mapping[str, Any] = field(default_factory=dict)


Handler = Callable[..., Awaitable[Any]]


@dataclass(slots=True)
class ToolSpec:
    """Everything the registry, the pipeline and the model need to know about one tool."""

    name: str
    description: str
    category: str
    handler: Handler
    parameters: dict[str, Any]
    read_only: bool
    compression: Compression = "json"
    path_params: dict[str, PathAccess] = field(default_factory=dict)
    command_param: str | None = None
    writes: bool = False  # subject to the duplicate-write check
    destructive: bool = False  # may overwrite or run something that cannot be undone
    # changes workspace files without a write path parameter (symbol edits): doors that
    # keep file writes off keep these off too
    edits_files: bool = False
    dedup_on: tuple[str, ...] | None = None  # arguments that identify a write (None: all)
    cacheable: bool = True  # read-only results may be reused within a task
    # The argument whose text the tool embeds with memory's embeddings endpoint: a caller
    # running tools on the services' thread sends that request off it first.
    embeds: str | None = None
    expires_at: float | None = None  # temporary (forged) tools only
    forged_from: frozenset[str] | None = None  # the tools a forged tool runs

    def openai_schema(self) -> dict[str, Any]:
        """The OpenAI function-calling shape of this tool."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }

    @property
    def properties(self) -> dict[str, Any]:
        props = self.parameters.get("properties", {})
        return props if isinstance(props, dict) else {}


def tool(
    *,
    category: str,
    read_only: bool,
    name: str | None = None,
    description: str | None = None,
    compression: Compression = "json",
    writes: bool = False,
    destructive: bool = False,
    edits_files: bool = False,
    dedup_on: tuple[str, ...] | None = None,
    cacheable: bool | None = None,
    parameters: dict[str, Any] | None = None,
    paths: dict[str, PathAccess] | None = None,
    command: str | None = None,
    embeds: str | None = None,
) -> Callable[[Handler], ToolSpec]:
    """Declare a tool from an async handler ``async def f(ctx, *, arg: Annotated[T, Param(..)])``.

    The description defaults to the handler's docstring; the parameter schema is derived
    from the signature unless written out explicitly with ``parameters=``. ``read_only``
    tools change nothing in the workspace or memory; they are cached unless
    ``cacheable=False`` (results that depend on task state, like the tool listing).
    ``destructive`` tools may overwrite data or run programs (doors such as MCP tell
    their clients so, and keep them off unless enabled).
    With an explicit ``parameters`` schema, ``paths`` / ``command`` name the parameters
    the safety gate must check (``Param(path=..., command=...)`` does it otherwise).
    ``embeds`` names the argument the tool sends to memory's embeddings endpoint (the
    server's agent sends that request off the folder's worker before the call and hands
    the outcome over in ``ToolContext.embedded``).
    """

    def decorate(handler: Handler) -> ToolSpec:
        if not inspect.iscoroutinefunction(handler):
            raise TypeError(f"tool handler {handler.__name__} must be async")
        tool_name = name or handler.__name__
        if not is_snake_case(tool_name):
            raise ValueError(f"tool name {tool_name!r} is not snake_case")
        text = description or inspect.getdoc(handler) or ""
        if not text:
            raise ValueError(f"tool {tool_name} needs a description (docstring)")
        if parameters is None:
            schema, path_params, command_param = derive_parameters(handler)
        else:  # written beside the handler: the safety markers are given explicitly too
            schema, path_params, command_param = parameters, dict(paths or {}), command
        return ToolSpec(
            name=tool_name,
            description=" ".join(text.split()),
            category=category,
            handler=handler,
            parameters=schema,
            read_only=read_only,
            compression=compression,
            path_params=path_params,
            command_param=command_param,
            writes=writes,
            destructive=destructive and not read_only,
            edits_files=edits_files,
            dedup_on=dedup_on,
            cacheable=read_only if cacheable is None else cacheable and read_only,
            embeds=embeds,
        )

    return decorate


def derive_parameters(
    handler: Callable[..., Any],
) -> tuple[dict[str, Any], dict[str, PathAccess], str | None]:
    """JSON Schema (draft 2020-12) of the handler's keyword parameters after ``ctx``."""
    hints = typing.get_type_hints(handler, include_extras=True)
    properties: dict[str, Any] = {}
    required: list[str] = []
    path_params: dict[str, PathAccess] = {}
    command_param: str | None = None
    for index, (pname, parameter) in enumerate(inspect.signature(handler).parameters.items()):
        if index == 0:
            continue  # the ToolContext
        annotation = hints.get(pname, Any)
        meta: Param | None = None
        if typing.get_origin(annotation) is typing.Annotated:
            base, *extras = typing.get_args(annotation)
            meta = next((e for e in extras if isinstance(e, Param)), None)
            annotation = base
        if meta is None:
            raise TypeError(
                f"{handler.__name__}.{pname} needs Annotated[..., Param('description')]"
            )
        prop = {**_type_schema(annotation), "description": meta.description, **meta.schema}
        if parameter.default is inspect.Parameter.empty:
            required.append(pname)
        elif parameter.default is not None:
            prop["default"] = parameter.default
        properties[pname] = prop
        if meta.path:
            path_params[pname] = meta.path
        if meta.command:
            command_param = pname
    schema: dict[str, Any] = {
        "$schema": JSON_SCHEMA_DRAFT,
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
    }
    if required:
        schema["required"] = required
    return schema, path_params, command_param


_SCALARS: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}


def _type_schema(annotation: Any) -> dict[str, Any]:
    """JSON Schema for the small set of Python types tool parameters use."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in args if a is not type(None)]
        if len(options) == 1:
            return _type_schema(options[0])
        return {"anyOf": [_type_schema(a) for a in options]}
    if origin is Literal:
        kinds = {_SCALARS[type(v)] for v in args}
        return (
            {"type": kinds.pop(), "enum": list(args)} if len(kinds) == 1 else {"enum": list(args)}
        )
    if origin in (list, tuple) or annotation in (list, tuple):
        item = _type_schema(args[0]) if args else {}
        return {"type": "array", "items": item} if item else {"type": "array"}
    if origin is dict or annotation is dict:
        return {"type": "object"}
    if annotation in _SCALARS:
        return {"type": _SCALARS[annotation]}
    if annotation is Any:
        return {}
    raise TypeError(f"unsupported tool parameter type: {annotation!r}")
