"""The VS Code extension's settings (client-vscode/package.json) against the one schema:
every server setting it contributes has the server's type, default and bounds, and every
other key is one the extension keeps for itself."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from codekeep.settings import EDITOR_ONLY, SECTION
from codekeep.settings.reference import properties

PACKAGE = Path(__file__).resolve().parents[2] / "client-vscode" / "package.json"


def contributed() -> dict[str, dict[str, Any]]:
    manifest = json.loads(PACKAGE.read_text(encoding="utf-8"))
    return dict(manifest["contributes"]["configuration"]["properties"])


def types_of(schema: dict[str, Any]) -> set[str]:
    kind = schema["type"]
    return {kind} if isinstance(kind, str) else set(kind)


def test_every_contributed_key_is_a_server_setting_or_the_extensions_own() -> None:
    server = properties()
    for key in contributed():
        top = key.removeprefix(f"{SECTION}.").split(".")[0]
        assert key in server or top in EDITOR_ONLY, f"{key}: neither a setting nor editor-only"


def test_contributed_server_settings_match_the_schema() -> None:
    server = properties()
    shared = {key: value for key, value in contributed().items() if key in server}
    assert {"codekeep.exclude", "codekeep.maxFileSize", "codekeep.agent.model"} <= set(shared)
    for key, theirs in shared.items():
        ours = server[key]
        # "null" in VS Code means unset: the server's lower layers decide.
        assert types_of(theirs) - {"null"} == types_of(ours) - {"null"}, key
        # VS Code answers workspace/configuration with its defaults filled in, so any
        # default but null would override the project's .codekeep/config.toml.
        assert "null" in types_of(theirs) and theirs["default"] is None, key
        if "items" in ours:
            assert theirs.get("items", {}).get("type") == ours["items"]["type"], key
        for bound in ("minimum", "exclusiveMinimum", "enum"):
            if bound in ours:
                assert theirs.get(bound) == ours[bound], f"{key}: {bound}"
