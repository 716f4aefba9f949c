"""One typed settings model for every door (CLI, language server, agent, MCP).

``load_settings(root, flags=...)`` reads every layer of a folder — defaults < user
config < project config < environment < editor settings < command-line flags — and
``.settings`` is the :class:`Settings` tree (``.index``, ``.memory``, ``.ledger``,
``.tools``, ``.agent``); ``.reports`` says what was not accepted and why. The reference
of every key is docs/settings.md.

The names below load on first use: importing one section's module
(``codekeep.settings.codemap``) must not import every area's settings, which a code map
query never reads (see ``layers.load_index_settings``).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from codekeep.settings.layers import Report, SettingsLayers, load_settings
    from codekeep.settings.sources import EDITOR_ONLY, SECTION
    from codekeep.settings.tree import Settings

__all__ = ["EDITOR_ONLY", "SECTION", "Report", "Settings", "SettingsLayers", "load_settings"]
_HOME = {"Report": "layers", "SettingsLayers": "layers", "load_settings": "layers",
         "EDITOR_ONLY": "sources", "SECTION": "sources", "Settings": "tree"}


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_HOME[name]}"), name)
