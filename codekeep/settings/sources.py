"""Where raw settings come from: TOML files and environment variables.

Each reader returns a plain mapping in wire form (camelCase keys, nested sections) and
the problems it met; it never raises, so one unreadable file cannot stop a command.
"""

from __future__ import annotations

import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from codekeep.common.workspace import STATE_DIR_NAME
from codekeep.settings.fields import Problem, leaves

SECTION = "codekeep"  # the editor's configuration section, and `[tool.codekeep]`

# Keys of the `codekeep` section that editors keep for themselves (the VS Code
# extension's own settings: how to start the server, how to show nudges ...). The
# server receives them with the rest and leaves them alone.
EDITOR_ONLY = frozenset({"serverCommand", "python", "apiKeyEnvVar", "taskBudget", "nudges",
                         "trace"})

CONFIG_FILE = "config.toml"
LEGACY_TOOLS_FILE = "tools.toml"

_TRUE, _FALSE = {"1", "true", "yes", "on"}, {"0", "false", "no", "off"}


def user_config_file(env: Mapping[str, str]) -> Path:
    """``$XDG_CONFIG_HOME/codekeep/config.toml`` (default ``~/.config/codekeep/config.toml``)."""
    base = env.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "codekeep" / CONFIG_FILE


def project_config(root: Path) -> tuple[Path | None, dict[str, Any], list[Problem]]:
    """The project file: ``.codekeep/config.toml``, else ``[tool.codekeep]`` in pyproject.toml.

    Returns the file used (None: neither has settings), its settings and problems.
    """
    problems: list[Problem] = []
    if (root / STATE_DIR_NAME / LEGACY_TOOLS_FILE).is_file():
        problems.append(Problem((), f"{STATE_DIR_NAME}/{LEGACY_TOOLS_FILE} is no longer read: "
                                f"move its settings under [tools] in {STATE_DIR_NAME}/"
                                f"{CONFIG_FILE}, in camelCase (command_allow_extra -> "
                                f"commandAllowExtra)"))
    own = root / STATE_DIR_NAME / CONFIG_FILE
    pyproject = root / "pyproject.toml"
    if own.is_file():
        data, problem = read_toml(own)
        if _may_hold_ours(pyproject) and _tool_section(read_toml(pyproject)[0]) is not None:
            problems.append(Problem((), f"[tool.{SECTION}] in pyproject.toml is ignored: "
                                    f"{STATE_DIR_NAME}/{CONFIG_FILE} exists and wins"))
        return own, data, problems + ([problem] if problem else [])
    if _may_hold_ours(pyproject):
        data, problem = read_toml(pyproject)
        settings = _tool_section(data)
        if problem is not None:
            return pyproject, {}, [*problems, problem]
        if settings is not None:
            if not isinstance(settings, dict):
                return pyproject, {}, [*problems, Problem((), f"[tool.{SECTION}] must be a table")]
            return pyproject, settings, problems
    return None, {}, problems


def _may_hold_ours(pyproject: Path) -> bool:
    """Whether ``pyproject`` exists and names this section at all: most projects' file
    holds none of our settings, and parsing it (and importing the TOML parser) is a
    noticeable share of a CLI query. Nor is a broken one ours to report, then."""
    try:
        return SECTION.encode() in pyproject.read_bytes()
    except OSError:
        return False


def read_toml(path: Path) -> tuple[dict[str, Any], Problem | None]:
    """A TOML file as a dict; an unreadable one gives ``{}`` and the reason."""
    import tomllib  # only when there is a file to read

    try:
        return tomllib.loads(path.read_text(encoding="utf-8")), None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        return {}, Problem((), f"cannot be read: {error}")


def environment(env: Mapping[str, str], tree: type) -> tuple[dict[str, Any], list[Problem]]:
    """The settings of ``tree`` environment variables give (``CODEKEEP_MODEL`` ...); empty
    means unset."""
    raw: dict[str, Any] = {}
    problems: list[Problem] = []
    for key, entry in leaves(tree):
        name = next((n for n in entry.spec.env if env.get(n, "").strip()), None)
        if name is None:
            continue
        value = env[name].strip()
        try:
            parsed = _parse(value, entry.type)
        except ValueError as error:
            problems.append(Problem(key, f"from ${name}: {error}"))
            continue
        target = raw
        for part in key[:-1]:
            target = target.setdefault(part, {})
        target[key[-1]] = parsed
    return raw, problems


def _parse(text: str, tp: Any) -> Any:
    """An environment string as the setting's type (numbers, switches, comma lists)."""
    kinds = [a for a in typing.get_args(tp) if a is not type(None)] or [tp]
    kind = kinds[0]
    if kind is bool:
        if text.lower() in _TRUE | _FALSE:
            return text.lower() in _TRUE
        raise ValueError(f"must be one of 1/0, true/false, yes/no, on/off, got {text!r}")
    if kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            raise ValueError(f"must be a number, got {text!r}") from None
    if typing.get_origin(kind) is tuple:
        return [part.strip() for part in text.split(",") if part.strip()]
    return text


def _tool_section(data: Mapping[str, Any]) -> Any:
    tool = data.get("tool")
    return tool.get(SECTION) if isinstance(tool, dict) else None
