"""MCP resources: the workspace's MEMORY.md, its repo map and its ledger report.

Each is read fresh from the services on every ``resources/read`` (they change while the
server runs); an unknown URI is a protocol error naming the URIs that exist.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import mcp.types as types
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from codekeep.common.secrets import find as find_secrets
from codekeep.ledger.reports import render_text
from codekeep.memory.safety import reads_as_order
from codekeep.services import WorkspaceServices

REPO_MAP_TOKENS = 2_048


@dataclass(frozen=True, slots=True)
class WorkspaceResource:
    uri: str
    name: str
    description: str
    mime_type: str
    read: Callable[[WorkspaceServices], str]
    needs_index: bool = False  # answered from the code map: wait for the first index

    def listing(self) -> types.Resource:
        return types.Resource(
            uri=self.uri,
            name=self.name,
            title=self.name,
            description=self.description,
            mime_type=self.mime_type,
        )


def _memory_notes(services: WorkspaceServices) -> str:
    """The notes as the file holds them, but for the lines that read like an order to
    the model or hold a secret: a host puts the resource in the model's context, and a
    cloned repository's MEMORY.md is anybody's words (the hooks and ``recall`` withhold
    the same lines)."""
    path = services.memory.notes_path
    if not path.is_file():
        return (
            "# MEMORY.md\n\nThis workspace has no .codekeep/MEMORY.md yet; it is created "
            "the first time a preference or note is written.\n"
        )
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines(keepends=True)
    kept = [line for line in lines if reads_as_order(line) is None and not find_secrets(line)]
    withheld = len(lines) - len(kept)
    if not withheld:
        return "".join(lines)
    return "".join(kept) + (f"\n<!-- {withheld} line(s) withheld: they read like "
                            "instructions to the model or hold a secret -->\n")


def _repo_map(services: WorkspaceServices) -> str:
    text = services.codemap.repo_map(REPO_MAP_TOKENS).text
    return text or "(the code map is empty: nothing indexed yet)"


def _ledger(services: WorkspaceServices) -> str:
    return render_text(services.ledger.report())


RESOURCES: tuple[WorkspaceResource, ...] = (
    WorkspaceResource(
        "codekeep://memory/MEMORY.md",
        "MEMORY.md",
        "The workspace's editable memory notes: preferences and notes (Markdown).",
        "text/markdown",
        _memory_notes,
    ),
    WorkspaceResource(
        "codekeep://codemap/repo-map",
        "Repository map",
        f"A ranked outline of the repository's most important files and symbols "
        f"(about {REPO_MAP_TOKENS:,} tokens).",
        "text/plain",
        _repo_map,
        needs_index=True,
    ),
    WorkspaceResource(
        "codekeep://ledger/report",
        "Token ledger report",
        "Model tokens spent in this workspace by call type, top files and budget state.",
        "text/plain",
        _ledger,
    ),
)
_BY_URI = {resource.uri: resource for resource in RESOURCES}


def resource(uri: str) -> WorkspaceResource:
    """The resource at ``uri`` or an INVALID_PARAMS error listing the known ones."""
    found = _BY_URI.get(uri)
    if found is None:
        raise MCPError(
            code=INVALID_PARAMS,
            message=f"unknown resource {uri!r}; resources: {', '.join(_BY_URI)}",
        )
    return found
