"""One typed settings model for every door (CLI, language server, agent, MCP).

``load_settings(root, flags=...)`` reads every layer of a folder — defaults < user
config < project config < environment < editor settings < command-line flags — and
``.settings`` is the :class:`Settings` tree (``.index``, ``.memory``, ``.ledger``,
``.tools``, ``.agent``); ``.reports`` says what was not accepted and why. The reference
of every key is docs/settings.md.
"""

from codekeep.settings.layers import Report, SettingsLayers, load_settings
from codekeep.settings.tree import EDITOR_ONLY, SECTION, Settings

__all__ = ["EDITOR_ONLY", "SECTION", "Report", "Settings", "SettingsLayers", "load_settings"]
