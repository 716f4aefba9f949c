"""The layers of one workspace folder's settings and what they resolve to.

Lowest first: defaults < user config (``$XDG_CONFIG_HOME/codekeep/config.toml``) <
project config (``.codekeep/config.toml`` or ``[tool.codekeep]`` in ``pyproject.toml``)
< environment (``CODEKEEP_MODEL`` ...) < editor settings (``initializationOptions``
and ``workspace/configuration`` for this folder) < command-line flags. A layer is kept
raw (wire names); a higher layer's value replaces a lower one's, objects merge key by
key, lists are replaced whole, and ``null`` means "not set here".

A value that does not fit its setting is reported and not taken: the layer keeps its
previous accepted value for that key (for a file read at start, that means the key
falls through to the layers below), so a typo never resets other settings and never
stops a command.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Literal, NamedTuple, TypeVar

from codekeep.settings import sources
from codekeep.settings.fields import Problem, structure
from codekeep.settings.sources import EDITOR_ONLY, SECTION

if TYPE_CHECKING:
    from codekeep.settings.codemap import IndexSettings
    from codekeep.settings.tree import Settings  # noqa: F401 - SettingsLayers' base names it

Source = Literal["user", "project", "environment", "editor", "flags"]
SOURCES: tuple[Source, ...] = ("user", "project", "environment", "editor", "flags")
T = TypeVar("T")

# The keys of the nested sections (``codekeep.memory`` ...) at the top of the settings
# object. A code map query resolves only the code map's (flat) keys and leaves these to
# their sections, but still knows them, so a typo at the top is reported there too. A
# test holds this equal to the fields of :class:`~codekeep.settings.tree.Settings`.
NESTED_SECTIONS = frozenset({"memory", "ledger", "tools", "agent", "docs", "team", "hosts"})


class Report(NamedTuple):
    """A problem with the place it came from, worded for the person who can fix it."""

    origin: str  # "~/.config/codekeep/config.toml", "editor settings", "command line" ...
    problem: Problem

    def __str__(self) -> str:
        key = self.problem.dotted
        where = f"{SECTION}.{key} " if key else ""
        kept = "; ignored" if key and not self.problem.settled else ""
        return f"{self.origin}: {where}{self.problem.message}{kept}"


class LayerStack(Generic[T]):
    """Every layer of one folder resolved to ``tree`` (re-resolved whenever a layer
    changes). ``tree`` is the whole :class:`Settings` tree, or one flat section (its keys
    at the top) with ``siblings``, the top-level keys it leaves to the other sections."""

    def __init__(self, tree: type[T], root: Path | None = None, *,
                 env: Mapping[str, str] | None = None,
                 flags: Mapping[str, Any] | None = None,
                 siblings: frozenset[str] = frozenset()) -> None:
        self.root = root
        self._tree = tree
        self._siblings = siblings
        self._env = os.environ if env is None else env
        self._raw: dict[Source, dict[str, Any]] = {source: {} for source in SOURCES}
        self._reports: dict[Source, list[Report]] = {source: [] for source in SOURCES}
        self._settings: T | None = None
        self._combined: list[Report] = []
        self.reload_files()
        raw, problems = sources.environment(self._env, tree)
        self._set("environment", raw, "environment", problems)
        if flags:
            self.set_flags(flags)

    @property
    def settings(self) -> T:
        """The settings every layer resolves to (cached until a layer changes)."""
        if self._settings is None:
            merged: dict[str, Any] = {}
            for source in SOURCES:
                merged = _merge(merged, self._raw[source])
            # Each layer is clean on its own; only values that clash across layers
            # (docs.overlapTokens from one, docs.chunkTokens from another) are left.
            settings, problems = structure(self._tree, merged, siblings=self._siblings)
            self._combined = [
                Report("combined settings", problem._replace(
                    settled=True,
                    message=f"{problem.message} (set in different places); this section's "
                            "defaults apply"))
                for problem in problems]
            self._settings = settings
            return settings
        return self._settings

    @property
    def reports(self) -> list[Report]:
        """What was not accepted, from every layer (lowest first), then across layers."""
        self.settings  # noqa: B018 - resolving is what finds clashes across layers
        return [report for source in SOURCES for report in self._reports[source]] + self._combined

    def source_of(self, key: tuple[str, ...]) -> str:
        """Which layer the value of ``key`` (wire names) comes from (``defaults`` if none)."""
        for source in reversed(SOURCES):
            value: Any = self._raw[source]
            for part in key:
                value = value.get(part) if isinstance(value, dict) else None
            if value is not None:
                return source
        return "defaults"

    def reload_files(self) -> list[Report]:
        """Read the user and project files again (after they changed)."""
        user = sources.user_config_file(self._env)
        data, problem = sources.read_toml(user) if user.is_file() else ({}, None)
        found = list(self._set("user", data, _shown(user), [problem] if problem else []))
        if self.root is not None:
            path, data, problems = sources.project_config(self.root)
            origin = _shown(path) if path is not None else str(self.root)
            found += self._set("project", data, origin, problems)
        return found

    def set_editor(self, *payloads: Any) -> list[Report]:
        """The editor's settings for this folder, merged in order (later wins).

        Each payload is the ``codekeep`` object, or an object wrapping it
        (``{"codekeep": {...}}``, as some clients send it); ``None`` adds nothing.
        Typically ``initializationOptions`` then the folder's ``workspace/configuration``.
        """
        merged: Any = {}
        for payload in payloads:
            raw = _plain(payload)
            if isinstance(raw, dict) and isinstance(raw.get(SECTION), dict):
                raw = raw[SECTION]
            if isinstance(raw, dict):
                raw = {key: value for key, value in raw.items() if key not in EDITOR_ONLY}
                merged = _merge(merged, raw) if isinstance(merged, dict) else raw
            elif raw is not None:
                merged = raw  # not an object: reported by _set
        return self._set("editor", merged, "editor settings")

    def set_flags(self, raw: Mapping[str, Any]) -> list[Report]:
        """Command-line flags, already in wire form (``{"exclude": [...]}``)."""
        return self._set("flags", raw, "command line")

    def _set(self, source: Source, raw: Any, origin: str,
             problems: list[Problem] | None = None) -> list[Report]:
        found = list(problems or [])
        if raw is None:
            raw = {}
        if not isinstance(raw, dict):
            found.append(Problem((), f"settings must be an object, got {type(raw).__name__}"))
            raw = copy.deepcopy(self._raw[source])
        clean = _without_nulls(raw)
        _, invalid = structure(self._tree, clean, siblings=self._siblings)
        for problem in invalid:
            _restore(clean, self._raw[source], problem.key)
        found += invalid
        self._reports[source] = [Report(origin, problem) for problem in found]
        if clean != self._raw[source]:
            self._raw[source] = clean
            self._settings = None
        return list(self._reports[source])


class SettingsLayers(LayerStack["Settings"]):
    """Every layer of one folder resolved to the whole settings tree."""

    def __init__(self, root: Path | None = None, *, env: Mapping[str, str] | None = None,
                 flags: Mapping[str, Any] | None = None) -> None:
        from codekeep.settings.tree import Settings  # every section's module

        super().__init__(Settings, root, env=env, flags=flags)


def load_settings(root: Path | None, *, flags: Mapping[str, Any] | None = None,
                  env: Mapping[str, str] | None = None) -> SettingsLayers:
    """The layers of ``root`` (files, environment, ``flags``): what the CLI uses."""
    return SettingsLayers(root, env=env, flags=flags)


def load_index_settings(root: Path | None, *, flags: Mapping[str, Any] | None = None,
                        env: Mapping[str, str] | None = None) -> LayerStack[IndexSettings]:
    """Only the code map's settings of ``root``: what a code map query reads.

    The same layers and the same reports for the code map's keys and for unknown keys
    at the top; the nested sections (``memory`` ...) are neither built nor checked,
    which spares a query importing and resolving every area's settings (a fifth of its
    start-up). ``codekeep settings``, ``doctor``, ``index`` and the server check them.
    """
    from codekeep.settings.codemap import IndexSettings

    return LayerStack(IndexSettings, root, env=env, flags=flags, siblings=NESTED_SECTIONS)


def _merge(low: dict[str, Any], high: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(low)
    for key, value in high.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def _without_nulls(raw: Mapping[str, Any]) -> dict[str, Any]:
    return {key: _without_nulls(value) if isinstance(value, dict) else copy.deepcopy(value)
            for key, value in raw.items() if value is not None}


def _restore(raw: dict[str, Any], previous: Mapping[str, Any], key: tuple[str, ...]) -> None:
    """Put ``previous``'s value at ``key`` back into ``raw`` (or drop the key)."""
    if not key:
        raw.clear()
        raw.update(copy.deepcopy(dict(previous)))
        return
    *parents, last = key
    target: Any = raw
    source: Any = previous
    for part in parents:
        target = target.get(part) if isinstance(target, dict) else None
        source = source.get(part) if isinstance(source, Mapping) else None
        if not isinstance(target, dict):
            return
    if isinstance(source, Mapping) and last in source:
        target[last] = copy.deepcopy(source[last])
    else:
        target.pop(last, None)


def _plain(raw: Any) -> Any:
    """lsprotocol / cattrs objects from a client payload as plain JSON values."""
    if isinstance(raw, Mapping):
        return {str(key): _plain(value) for key, value in raw.items()}
    if isinstance(raw, list | tuple):
        return [_plain(value) for value in raw]
    return raw


def _shown(path: Path) -> str:
    """A path as a user recognises it (``~/...`` under the home directory)."""
    try:
        return "~/" + path.relative_to(Path.home()).as_posix()
    except ValueError:
        return str(path)
