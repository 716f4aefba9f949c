"""The per-workspace bundle of services that both front doors (CLI and server) open.

A workspace folder has one code map, and (as those areas land) one memory store and
one ledger, all under ``<root>/.codekeep/``. Opening them, wiring them together (memory
follows code changes) and closing them in the right order lives here once, so the
``codekeep`` commands and ``codekeep serve`` cannot drift apart.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from codekeep.analysis.codemap import CodeMap
from codekeep.analysis.settings import DEFAULT_MAX_FILE_BYTES, IndexSettings

logger = logging.getLogger(__name__)


class SettingsError(ValueError):
    """A setting has the wrong shape; the message names the key and what was expected."""


@dataclass(frozen=True, slots=True)
class WorkspaceSettings:
    """User-facing settings (the ``codekeep`` section of an editor's configuration).

    ``exclude`` adds gitignore-style globs to the built-in excludes, ``max_file_size``
    is the byte cap above which files are not indexed, ``languages`` limits indexing to
    the named languages (``None``: all). ``extra`` keeps the keys other areas read
    (memory, ledger, agent) so one settings object travels through the server.
    """

    exclude: tuple[str, ...] = ()
    max_file_size: int = DEFAULT_MAX_FILE_BYTES
    languages: tuple[str, ...] | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_json(cls, data: Any) -> WorkspaceSettings:
        """Parse ``{"exclude": [...], "maxFileSize": n, "languages": [...], ...}``."""
        if data is None:
            return cls()
        if not isinstance(data, Mapping):
            raise SettingsError(f"settings must be an object, got {type(data).__name__}")
        known = {"exclude", "maxFileSize", "languages"}
        return cls(
            exclude=_string_tuple(data, "exclude") or (),
            max_file_size=_positive_int(data, "maxFileSize", DEFAULT_MAX_FILE_BYTES),
            languages=_string_tuple(data, "languages"),
            extra={key: value for key, value in data.items() if key not in known},
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "exclude": list(self.exclude),
            "maxFileSize": self.max_file_size,
            "languages": None if self.languages is None else list(self.languages),
            **self.extra,
        }

    def index_settings(self, base: IndexSettings | None = None) -> IndexSettings:
        return replace(
            base or IndexSettings(),
            extra_exclude=self.exclude,
            max_file_bytes=self.max_file_size,
            languages=self.languages,
        )


def _string_tuple(data: Mapping[str, Any], key: str) -> tuple[str, ...] | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
        raise SettingsError(f"'{key}' must be a list of strings, got {value!r}"[:120])
    return tuple(value)


def _positive_int(data: Mapping[str, Any], key: str, default: int) -> int:
    value = data.get(key)
    if value is None:
        return default
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise SettingsError(f"'{key}' must be a positive integer, got {value!r}"[:120])
    return value


class WorkspaceServices:
    """The open services of one workspace folder. Not thread-safe: one owner thread."""

    def __init__(self, root: Path, settings: WorkspaceSettings, codemap: CodeMap) -> None:
        self.root = root
        self.settings = settings
        self.codemap = codemap
        self._closed = False

    @classmethod
    def open(cls, root: Path, settings: WorkspaceSettings | None = None) -> WorkspaceServices:
        """Open (creating if needed) every store under ``<root>/.codekeep/``."""
        settings = settings or WorkspaceSettings()
        codemap = CodeMap.open(root, settings.index_settings())
        return cls(root, settings, codemap)

    def reconfigure(self, settings: WorkspaceSettings, open_paths: Sequence[str] = ()) -> bool:
        """Apply new settings; returns True when the index must be brought up to date.

        The code map's settings are fixed per instance, so a change reopens it: the
        database is kept (the next ``index()`` is a warm one) and the editor's buffers
        (``open_paths``, unsaved text included) move to the new instance.
        """
        if settings == self.settings:
            return False
        old_index = self.settings.index_settings()
        self.settings = settings
        if settings.index_settings() == old_index:
            return False
        buffers = {
            path: text
            for path in open_paths
            if self.codemap.is_open(path) and (text := self.codemap.document_text(path))
        }
        self.codemap.close()
        self.codemap = CodeMap.open(self.root, settings.index_settings())
        for path, data in buffers.items():
            self.codemap.open_document(path, data.decode("utf-8", "surrogatepass"))
        return True

    def close(self) -> None:
        """Flush and close every store; safe to call twice."""
        if self._closed:
            return
        self._closed = True
        self.codemap.close()
