"""Which files each agent host reads, per scope, and what CodeKeep puts in each.

A host is a list of :class:`Piece` s — one per file: its MCP config, its instruction
file, and for Claude Code its hooks. A piece knows how to put CodeKeep's part into the
file's text, take exactly that part out again, tell whether it is there, and name the
commands it starts (doctor checks those paths still exist). :func:`install_plan` and
:func:`uninstall_plan` turn pieces into :class:`~codekeep.hosts.changes.Change` s and
never write; the CLI shows or applies them.

Scopes: ``project`` writes the workspace's own files (``.mcp.json``, ``.cursor/``,
``AGENTS.md`` ...) and starts the server on that workspace; ``user`` writes the files
in the home folder, and the server and hooks work on whatever folder the host runs in.
Cline keeps MCP servers only in one global file, so its server always names the root.
"""

from __future__ import annotations

import itertools
import os
import shlex
import shutil
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codekeep.hosts import claude_settings, jsonfile, tomlfile
from codekeep.hosts.blocks import MarkedBlock
from codekeep.hosts.changes import Change, ConfigError, first_backup_matching, planned
from codekeep.hosts.guidance import CURSOR_FRONT_MATTER, GUIDANCE
from codekeep.hosts.markdown import INSTRUCTIONS

SERVER_NAME = "codekeep"
SCOPES = ("project", "user")
Edit = Callable[[str | None], str | None]


@dataclass(frozen=True, slots=True)
class Context:
    """Where an install goes: the workspace, the scope, the home folder, and the
    command that starts CodeKeep (an absolute path: hosts rarely share the shell's PATH)."""

    root: Path
    scope: str
    home: Path
    launcher: tuple[str, ...]

    @property
    def project(self) -> bool:
        return self.scope == "project"

    def server_args(self, always_root: bool = False) -> list[str]:
        rooted = self.project or always_root
        return [*self.launcher[1:], "mcp", *(["--root", str(self.root)] if rooted else [])]


@dataclass(frozen=True, slots=True)
class Piece:
    path: Path
    what: str
    put: Edit
    take: Edit
    present: Callable[[str | None], bool]
    same: Callable[[str, str | None], bool]  # a backup's text vs the uninstalled text
    commands: Callable[[str | None], list[list[str]]]


def launcher() -> tuple[str, ...]:
    """How a host starts this CodeKeep: the ``codekeep`` script beside this interpreter,
    else the one on PATH, else ``python -m codekeep``."""
    script = Path(sys.executable).parent / "codekeep"
    if script.is_file():
        return (str(script),)
    found = shutil.which("codekeep")
    return (str(Path(found).resolve()),) if found else (sys.executable, "-m", "codekeep")


# ---- the kinds of piece -----------------------------------------------------------------


def _same_json(backup: str, after: str | None) -> bool:
    try:
        return jsonfile.parse(backup, "backup") == jsonfile.parse(after, "file")
    except ConfigError:  # a backup that does not parse is simply not the one
        return False


def _same_text(backup: str, after: str | None) -> bool:
    return backup.rstrip() == (after or "").rstrip()


def mcp_json(path: Path, container: str, entry: dict[str, Any]) -> Piece:
    """``{container: {"codekeep": entry}}`` in a JSON file (``mcpServers``; VS Code:
    ``servers``)."""
    where = str(path)

    def put(document: jsonfile.Document) -> None:
        jsonfile.child(document, container)[SERVER_NAME] = entry

    def take(document: jsonfile.Document) -> None:
        servers = document.get(container)
        if isinstance(servers, dict) and SERVER_NAME in servers:
            del servers[SERVER_NAME]
            jsonfile.drop_if_empty(document, container)

    def ours(text: str | None) -> dict[str, Any] | None:
        servers = jsonfile.parse(text, where).get(container)
        found = servers.get(SERVER_NAME) if isinstance(servers, dict) else None
        return found if isinstance(found, dict) else None

    def commands(text: str | None) -> list[list[str]]:
        found = ours(text)
        if found is None:
            return []
        return [[str(found.get("command", "")), *map(str, found.get("args") or [])]]

    return Piece(path, "MCP server", jsonfile.edited(put, where), jsonfile.edited(take, where),
                 lambda text: ours(text) is not None, _same_json, commands)


def claude_hooks(path: Path, context: Context) -> Piece:
    where = str(path)
    root = context.root if context.project else None

    def put(document: jsonfile.Document) -> None:
        claude_settings.add_hooks(document, context.launcher, root)

    def commands(text: str | None) -> list[list[str]]:
        return [shlex.split(command) for command in
                claude_settings.our_commands(jsonfile.parse(text, where))]

    return Piece(path, "hooks", jsonfile.edited(put, where),
                 jsonfile.edited(claude_settings.remove_hooks, where),
                 lambda text: bool(commands(text)), _same_json, commands)


def instructions(path: Path, block: MarkedBlock = INSTRUCTIONS, body: str = GUIDANCE,
                 head: str = "") -> Piece:
    """CodeKeep's block in an instruction file; with ``head`` (a front matter) the file
    is CodeKeep's own and is created with it."""
    def put(text: str | None) -> str | None:
        return block.put(text if text or not head else head, body)

    def take(text: str | None) -> str | None:
        rest = block.cut(text)
        return None if head and rest is not None and rest.strip() == head.strip() else rest

    return Piece(path, "instructions", put, take, block.present, _same_text, lambda text: [])


def codex_toml(path: Path, context: Context) -> Piece:
    where = str(path)
    command, args = context.launcher[0], context.server_args()

    def put(text: str | None) -> str | None:
        return tomlfile.with_server(text, where, SERVER_NAME, command, args)

    def commands(text: str | None) -> list[list[str]]:
        if not tomlfile.SERVER_BLOCK.present(text):
            return []
        found = tomlfile.servers(text, where).get(SERVER_NAME) or {}
        return [[str(found.get("command", "")), *map(str, found.get("args") or [])]]

    return Piece(path, "MCP server", put, tomlfile.SERVER_BLOCK.cut,
                 tomlfile.SERVER_BLOCK.present, _same_text, commands)


# ---- the hosts ----------------------------------------------------------------------------


def _entry(context: Context, always_root: bool = False, **extra: Any) -> dict[str, Any]:
    return {**extra, "command": context.launcher[0],
            "args": context.server_args(always_root)}


def vscode_user_dir(home: Path) -> Path:
    if sys.platform == "darwin":
        return home / "Library" / "Application Support" / "Code" / "User"
    if sys.platform == "win32":
        return Path(os.environ.get("APPDATA") or home / "AppData" / "Roaming") / "Code" / "User"
    return Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config") / "Code" / "User"


def _claude_code(c: Context) -> list[Piece]:
    if c.project:
        return [mcp_json(c.root / ".mcp.json", "mcpServers", _entry(c)),
                claude_hooks(c.root / ".claude" / "settings.json", c),
                instructions(c.root / "CLAUDE.md")]
    return [mcp_json(c.home / ".claude.json", "mcpServers", _entry(c)),
            claude_hooks(c.home / ".claude" / "settings.json", c),
            instructions(c.home / ".claude" / "CLAUDE.md")]


def _codex(c: Context) -> list[Piece]:
    home = Path(os.environ.get("CODEX_HOME") or c.home / ".codex")
    if c.project:
        return [codex_toml(c.root / ".codex" / "config.toml", c),
                instructions(c.root / "AGENTS.md")]
    return [codex_toml(home / "config.toml", c), instructions(home / "AGENTS.md")]


def _cursor(c: Context) -> list[Piece]:
    base = c.root if c.project else c.home
    pieces = [mcp_json(base / ".cursor" / "mcp.json", "mcpServers", _entry(c))]
    if c.project:  # Cursor keeps user rules in its settings UI, not in a file
        pieces.append(instructions(c.root / ".cursor" / "rules" / "codekeep.mdc",
                                   head=CURSOR_FRONT_MATTER))
    return pieces


def _gemini(c: Context) -> list[Piece]:
    base = c.root if c.project else c.home
    return [mcp_json(base / ".gemini" / "settings.json", "mcpServers", _entry(c)),
            instructions((c.root if c.project else c.home / ".gemini") / "GEMINI.md")]


def _vscode(c: Context) -> list[Piece]:
    entry = _entry(c, type="stdio")
    if c.project:
        return [mcp_json(c.root / ".vscode" / "mcp.json", "servers", entry),
                instructions(c.root / ".github" / "copilot-instructions.md")]
    return [mcp_json(vscode_user_dir(c.home) / "mcp.json", "servers", entry)]


def _cline(c: Context) -> list[Piece]:
    settings = (vscode_user_dir(c.home) / "globalStorage" / "saoudrizwan.claude-dev"
                / "settings" / "cline_mcp_settings.json")
    rules = (c.root / ".clinerules" if c.project
             else c.home / "Documents" / "Cline" / "Rules") / "codekeep.md"
    return [mcp_json(settings, "mcpServers", _entry(c, always_root=True)), instructions(rules)]


@dataclass(frozen=True, slots=True)
class Host:
    name: str
    title: str
    pieces: Callable[[Context], list[Piece]]


HOSTS: dict[str, Host] = {host.name: host for host in (
    Host("claude-code", "Claude Code", _claude_code),
    Host("codex", "Codex CLI", _codex),
    Host("cursor", "Cursor", _cursor),
    Host("gemini-cli", "Gemini CLI", _gemini),
    Host("vscode", "VS Code (Copilot agent mode)", _vscode),
    Host("cline", "Cline", _cline),
)}


def install_plan(host: Host, context: Context) -> list[Change]:
    return [planned(piece.path, piece.put, piece.what) for piece in host.pieces(context)]


def uninstall_plan(host: Host, context: Context) -> list[Change]:
    """What takes out exactly what install put in: where a backup install made holds the
    same data as the file without CodeKeep's part, the backup's own bytes come back."""
    changes = []
    for piece in host.pieces(context):
        changes.append(_restored(piece, planned(piece.path, piece.take, piece.what)))
    return changes


def _restored(piece: Piece, change: Change) -> Change:
    if not change.changes_anything:
        return change
    restored = first_backup_matching(piece.path, lambda text: piece.same(text, change.after))
    return change if restored is None else Change(change.path, change.before, restored,
                                                  change.note)


@dataclass(frozen=True, slots=True)
class PieceState:
    path: Path
    what: str
    installed: bool
    stale: tuple[str, ...] = ()
    problem: str | None = None


def state(host: Host, context: Context) -> list[PieceState]:
    """Each of the host's files in ``context``'s scope: is CodeKeep's part there, and do
    the paths it names (the executable, ``--root``) still exist."""
    found = []
    for piece in host.pieces(context):
        try:
            text = piece.path.read_text(encoding="utf-8") if piece.path.is_file() else None
            installed = piece.present(text)
            stale = tuple(_stale_paths(piece.commands(text))) if installed else ()
            found.append(PieceState(piece.path, piece.what, installed, stale))
        except Exception as error:  # doctor reports a broken file, it never fails on one
            found.append(PieceState(piece.path, piece.what, False, problem=str(error)))
    return found


def _stale_paths(commands: Sequence[Sequence[str]]) -> list[str]:
    stale = []
    for words in commands:
        if words and os.path.isabs(words[0]) and not Path(words[0]).exists():
            stale.append(words[0])
        for flag, value in itertools.pairwise(words):
            if flag == "--root" and not Path(value).is_dir():
                stale.append(value)
    return sorted(set(stale))
