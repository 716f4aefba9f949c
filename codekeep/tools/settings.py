"""Tool settings: the command policy, caps and the forge switch, from ``.codekeep/tools.toml``.

A project tunes what the agent may run without touching code::

    # .codekeep/tools.toml
    command_allow_extra = ["npm test", "cargo test"]   # added to the default allow list
    command_timeout = 120
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from codekeep.common.workspace import STATE_DIR_NAME

SETTINGS_FILE = "tools.toml"
FORGE_GENERATE_ENV = "CODEKEEP_FORGE_GENERATE"

# Programs (or program + leading arguments) the agent may run by default: read-only
# inspection, version control queries and the usual test/lint runners.
# fmt: off
DEFAULT_COMMAND_ALLOW: tuple[str, ...] = (
    "ls", "cat", "head", "tail", "wc", "grep", "rg", "find", "echo", "pwd", "sort", "uniq",
    "diff", "stat", "file", "tree", "true", "false", "which",
    "git status", "git log", "git diff", "git show", "git blame", "git grep", "git ls-files",
    "git rev-parse", "git branch --list", "git branch --show-current",
    "pytest", "python -m pytest", "python3 -m pytest", "ruff", "mypy",
)
# fmt: on


class SettingsError(ValueError):
    """``tools.toml`` is malformed; the message names the key."""


@dataclass(frozen=True, slots=True)
class ToolSettings:
    command_allow: tuple[str, ...] = DEFAULT_COMMAND_ALLOW
    command_allow_extra: tuple[str, ...] = ()
    allow_shell: bool = False
    # Run commands without a sandbox when the machine has no working bubblewrap.
    allow_unsandboxed: bool = False
    command_timeout: float = 60.0
    output_cap: int = 20_000  # characters of command output kept
    read_cap: int = 10_000  # characters (with line numbers) one read_file may return
    search_max_matches: int = 2_000
    search_max_file_bytes: int = 1_000_000
    search_timeout: float = 10.0  # seconds a model-written regex may run in total
    result_chars: int = 12_000  # compression target for what enters the context
    forge_ttl_seconds: float = 30 * 60.0
    forge_generate: bool = False
    sandbox_timeout: float = 10.0

    @property
    def allowed_commands(self) -> tuple[str, ...]:
        return self.command_allow + self.command_allow_extra

    @classmethod
    def load(cls, root: Path, overrides: Mapping[str, Any] | None = None) -> ToolSettings:
        """Defaults < ``<root>/.codekeep/tools.toml`` < ``overrides`` < the env switch."""
        values: dict[str, Any] = {}
        path = root / STATE_DIR_NAME / SETTINGS_FILE
        if path.is_file():
            try:
                values.update(tomllib.loads(path.read_text(encoding="utf-8")))
            except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
                raise SettingsError(f"{path}: {exc}") from exc
        values.update(overrides or {})
        settings = cls.from_mapping(values)
        if os.environ.get(FORGE_GENERATE_ENV, "").lower() in {"1", "true", "yes"}:
            settings = replace(settings, forge_generate=True)
        return settings

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> ToolSettings:
        known = {f.name: f for f in fields(cls)}
        kwargs: dict[str, Any] = {}
        for key, value in values.items():
            if key not in known:
                raise SettingsError(f"unknown tools setting {key!r}; known: {sorted(known)}")
            default = getattr(cls(), key)
            if isinstance(default, tuple):
                if not isinstance(value, list | tuple) or not all(
                    isinstance(v, str) for v in value
                ):
                    raise SettingsError(f"{key} must be a list of strings")
                value = tuple(value)
            elif isinstance(default, bool):
                if not isinstance(value, bool):
                    raise SettingsError(f"{key} must be true or false")
            elif isinstance(default, int | float):
                if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
                    raise SettingsError(f"{key} must be a positive number")
                value = type(default)(value)
            kwargs[key] = value
        return cls(**kwargs)
