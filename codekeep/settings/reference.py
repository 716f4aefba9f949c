"""The settings reference, generated from the schema: what docs/settings.md shows and the
VS Code extension's ``contributes.configuration`` is tested against.

``codekeep settings --reference`` prints the Markdown table; a test keeps the copy in
docs/settings.md equal to it, so the documentation cannot drift from the code.
"""

from __future__ import annotations

import json
from typing import Any

from codekeep.settings.fields import Entry, describe, json_schema, leaves
from codekeep.settings.sources import SECTION
from codekeep.settings.tree import Settings


def properties() -> dict[str, dict[str, Any]]:
    """``{"codekeep.ledger.retentionDays": <JSON schema>}`` for every leaf setting."""
    return {".".join((SECTION, *key)): json_schema(entry) for key, entry in leaves(Settings)}


def markdown_table() -> str:
    """One row per setting: key, type, default, environment variables, meaning."""
    rows = ["| key | type | default | environment | meaning |", "|---|---|---|---|---|"]
    for key, entry in leaves(Settings):
        default = json_schema(entry)["default"]
        shown = "unset" if default is None else f"`{json.dumps(default)}`"
        if isinstance(default, list) and len(json.dumps(default)) > 40:
            shown = f"{len(default)} entries (see meaning)"
        env = ", ".join(f"`{name}`" for name in entry.spec.env)
        doc = entry.spec.doc.replace("|", "\\|")
        rows.append(f"| `{'.'.join(key)}` | {_kind(entry)} | {shown} | {env} | {doc} |")
    return "\n".join(rows) + "\n"


def _kind(entry: Entry) -> str:
    """The type with its bounds: ``a whole number, ≥ 1``."""
    spec = entry.spec
    parts = [describe(entry.type)]
    if spec.minimum is not None:
        parts.append(f"≥ {spec.minimum:g}")
    if spec.above is not None:
        parts.append(f"> {spec.above:g}")
    if spec.min_items is not None:
        parts.append(f"at least {spec.min_items} item(s)")
    return ", ".join(parts)
