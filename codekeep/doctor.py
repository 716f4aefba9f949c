"""``codekeep doctor``: what a user runs first when something is off.

Checks, without changing anything (databases are opened read-only, nothing is created):
versions of CodeKeep and the libraries it rests on; every grammar and tags query loads;
each database of the workspace and the user's memory — present, ``PRAGMA quick_check``,
schema version against the one this CodeKeep writes; the file watcher; whether a model
and embeddings are configured (never printing a key); which editors and MCP hosts are
set up to start CodeKeep, and where `codekeep install` put it in each agent host
(scope, files, stale paths). A finding is ``ok``, ``info`` (worth knowing, not wrong) or
``problem`` (something to fix; the text says what).
"""

from __future__ import annotations

import json
import os
import platform
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

from codekeep import __version__
from codekeep.common.sqlite import BUSY_TIMEOUT_MS, quick_check, schema_version
from codekeep.common.workspace import STATE_DIR_NAME

if TYPE_CHECKING:
    from codekeep.settings.memory import EmbeddingSettings

OK, INFO, PROBLEM = "ok", "info", "problem"
LIBRARIES = ("tree-sitter", "tree-sitter-language-pack", "pygls", "lsprotocol", "watchdog",
             "tiktoken", "mcp")


@dataclass(frozen=True, slots=True)
class Finding:
    """One line of the report."""

    area: str  # "versions", "grammars", "databases", "watcher", "model", "editors"
    name: str
    status: str  # OK, INFO or PROBLEM
    detail: str


@dataclass(frozen=True, slots=True)
class Store:
    """A database a workspace uses: where it lives and the schema this version writes."""

    name: str
    path: Path
    schema: int


def workspace_stores(root: Path) -> list[Store]:
    """Every database of the workspace, and the user-scope memory."""
    from codekeep.analysis.store import MIGRATIONS as INDEX
    from codekeep.docs.store import MIGRATIONS as DOCS
    from codekeep.ledger.schema import MIGRATIONS as LEDGER
    from codekeep.memory.schema import MIGRATIONS as MEMORY
    from codekeep.tools.audit import MIGRATIONS as AUDIT

    state = root / STATE_DIR_NAME
    # where codekeep.common.workspace.user_data_dir() puts it, without creating the folder
    data = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    user_memory = data / "codekeep" / "memory.db"
    return [
        Store("index", state / "index.db", len(INDEX)),
        Store("memory", state / "memory.db", len(MEMORY)),
        Store("user memory", user_memory, len(MEMORY)),
        Store("ledger", state / "ledger.db", len(LEDGER)),
        Store("docs", state / "docs.db", len(DOCS)),
        Store("audit", state / "audit.db", len(AUDIT)),
    ]


def check_store(store: Store) -> Finding:
    """Present? ``PRAGMA quick_check`` and the schema version, on a read-only connection."""
    if not store.path.is_file():
        return Finding("databases", store.name, INFO, f"{store.path}: not created yet")
    size = f"{store.path.stat().st_size / 1_048_576:.1f} MB"
    try:
        conn = sqlite3.connect(f"file:{store.path}?mode=ro", uri=True,
                               timeout=BUSY_TIMEOUT_MS / 1000)
    except sqlite3.Error as error:
        return Finding("databases", store.name, PROBLEM, f"{store.path}: cannot open: {error}")
    try:
        damage = quick_check(conn)
        version = schema_version(conn) if not damage else -1
    except sqlite3.Error as error:
        damage, version = str(error), -1
    finally:
        conn.close()
    if damage:
        remedy = ("it is a cache: `codekeep index` rebuilds it" if store.name == "index"
                  else "rerun the command with --repair, or restore it from a backup")
        return Finding("databases", store.name, PROBLEM,
                       f"{store.path}: damaged ({damage}); {remedy}")
    if version > store.schema:
        return Finding("databases", store.name, PROBLEM,
                       f"{store.path}: schema {version} is newer than this CodeKeep's "
                       f"({store.schema}); upgrade CodeKeep")
    upgrade = "" if version == store.schema else f" (upgraded to {store.schema} on next open)"
    return Finding("databases", store.name, OK,
                   f"{store.path}: {size}, quick_check ok, schema {version}{upgrade}")


def versions() -> Iterator[Finding]:
    yield Finding("versions", "codekeep", OK, __version__)
    yield Finding("versions", "python", OK, platform.python_version())
    yield Finding("versions", "sqlite", OK, sqlite3.sqlite_version)
    for name in LIBRARIES:
        try:
            yield Finding("versions", name, OK, metadata.version(name))
        except metadata.PackageNotFoundError:
            yield Finding("versions", name, PROBLEM, "not installed: reinstall codekeep")


def grammars() -> Iterator[Finding]:
    """Each bundled language: its grammar loads and its tags query compiles."""
    from codekeep.analysis.registry import default_registry

    registry = default_registry()
    for name in registry.names():
        spec = registry.get(name)
        assert spec is not None  # one of registry.names()
        try:
            spec.query  # noqa: B018 - loads the grammar and compiles the query
        except Exception as error:  # a grammar that cannot load is exactly the finding
            yield Finding("grammars", name, PROBLEM, f"{spec.grammar}: {error}")
        else:
            yield Finding("grammars", name, OK, f"grammar {spec.grammar}, query compiled")


def watcher() -> Iterator[Finding]:
    """watchdog's observer for this platform, and (Linux) the inotify watch limit."""
    try:
        from watchdog.observers import Observer
    except ImportError as error:
        yield Finding("watcher", "watchdog", PROBLEM, f"cannot load: {error}")
        return
    yield Finding("watcher", "observer", OK, str(getattr(Observer, "__name__", Observer)))
    limit = Path("/proc/sys/fs/inotify/max_user_watches")
    if limit.is_file():
        watches = int(limit.read_text().strip() or 0)
        status = OK if watches >= 65536 else INFO
        hint = "" if status == OK else " (large trees may need fs.inotify.max_user_watches raised)"
        yield Finding("watcher", "inotify watches", status, f"{watches:,}{hint}")


def models(root: Path) -> Iterator[Finding]:
    """The agent's model and memory's embeddings as the folder's settings give them (user
    and project config files, the environment; editor settings can add to them per
    folder); keys are reported as present only, and refused values as warnings."""
    from codekeep.settings import load_settings

    layers = load_settings(root)
    for report in layers.reports:
        yield Finding("model", "settings", PROBLEM, str(report))
    model = layers.settings.agent
    if model.model:
        key = "an API key is set" if model.api_key else "no API key (fine for local servers)"
        unreachable = _unreachable(model.base_url, model.api_key)
        if unreachable is None:
            yield Finding("model", "agent model", OK,
                          f"{model.model} at {model.base_url} (answers); {key}")
        else:
            yield Finding("model", "agent model", PROBLEM,
                          f"{model.model} at {model.base_url}: {unreachable}; {key}")
    else:
        yield Finding("model", "agent model", INFO,
                      "not configured: set CODEKEEP_MODEL (and CODEKEEP_BASE_URL, "
                      "CODEKEEP_API_KEY) to use `codekeep agent`")
    from codekeep.embeddings.embedders import resolved

    for area, embeddings in (("embeddings", layers.settings.memory.embeddings),
                             ("docs embeddings", layers.settings.docs.embeddings)):
        yield _embeddings_finding(area, resolved(embeddings), embeddings.provider == "auto")


def _unreachable(base_url: str, api_key: str | None) -> str | None:
    """Why nothing answers at the model endpoint (one short ``GET /models``), or None:
    a configured model whose server is not running must not read as ready."""
    import httpx

    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        httpx.get(base_url.rstrip("/") + "/models", headers=headers, timeout=3.0)
    except httpx.HTTPError as error:
        return f"nothing answers there ({type(error).__name__}: start the server or fix " \
               "CODEKEEP_BASE_URL)"
    return None


def _embeddings_finding(area: str, embeddings: EmbeddingSettings, auto: bool) -> Finding:
    """Where vectors come from (``embeddings`` resolved; ``auto``: chosen by default, so a
    missing local model is a hint, not a problem); for the local model, whether its
    files are installed and complete (read from their headers; no network)."""
    if embeddings.provider == "local":
        from codekeep.embeddings.local_model import LocalModelUnavailable, check_files

        try:
            holds = check_files()
        except LocalModelUnavailable as error:
            return Finding("model", area, PROBLEM, f"local model: {error}")
        return Finding("model", area, OK,
                       f"local all-MiniLM-L6-v2, in-process (CPU): {holds}")
    if embeddings.endpoint is not None:
        return Finding("model", area, OK, f"{embeddings.model} at {embeddings.url}")
    if auto:
        return Finding("model", area, INFO, "the local model is not installed: relevance "
                       "is lexical (`codekeep models install` turns embeddings on)")
    return Finding("model", area, INFO, "not configured: relevance is lexical (set "
                   "CODEKEEP_EMBEDDINGS_URL, or CODEKEEP_EMBEDDINGS_PROVIDER=local)")


def _mentions_codekeep(path: Path) -> bool:
    try:
        return path.is_file() and "codekeep" in path.read_text(encoding="utf-8",
                                                               errors="replace")
    except OSError:
        return False


def editors(root: Path, home: Path | None = None) -> Iterator[Finding]:
    """Editors and MCP hosts configured to start CodeKeep (by their config files)."""
    home = home or Path.home()
    config = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
    candidates: list[tuple[str, Callable[[], list[Path]]]] = [
        ("VS Code", lambda: sorted((home / ".vscode" / "extensions").glob("codekeep.*"))),
        ("code-server", lambda: sorted(
            (home / ".local" / "share" / "code-server" / "extensions").glob("codekeep.*"))),
        ("Neovim", lambda: [p for p in (config / "nvim" / "lsp" / "codekeep.lua",
                                        config / "nvim" / "init.lua") if _mentions_codekeep(p)]),
    ]
    for name, find in candidates:
        found = find()
        if found:
            yield Finding("editors", name, OK, ", ".join(str(p) for p in found))
        else:
            yield Finding("editors", name, INFO, "not set up")


def hosts(root: Path, home: Path | None = None) -> Iterator[Finding]:
    """Each agent host: where ``codekeep install`` put CodeKeep (which scope, which
    files), what is missing, and paths its configs name that no longer exist."""
    from codekeep.hosts.catalog import HOSTS, SCOPES, Context, launcher, state

    home = home or Path.home()
    for host in HOSTS.values():
        lines: list[str] = []
        status = INFO
        for scope in SCOPES:
            again = f"codekeep install {host.name}{' --scope user' if scope == 'user' else ''}"
            pieces = state(host, Context(root, scope, home, launcher()))
            broken = [f"{p.path}: {p.problem}" for p in pieces if p.problem]
            there = [p for p in pieces if p.installed]
            if there:
                status = OK if status != PROBLEM else status
                line = f"installed ({scope}): " + ", ".join(f"{p.what} in {p.path}"
                                                            for p in there)
                missing = [p.what for p in pieces if not p.installed and not p.problem]
                if missing:
                    line += f"; missing: {', '.join(missing)} (run {again})"
                stale = sorted({path for p in there for path in p.stale})
                if stale:
                    status = PROBLEM
                    line += f"; stale: {', '.join(stale)} no longer exist (run {again} again)"
                lines.append(line)
            if broken:
                status = PROBLEM
                lines += broken
        yield Finding("hosts", host.title, status,
                      "; ".join(lines) or f"not set up (codekeep install {host.name})")


def coverage(root: Path) -> Iterator[Finding]:
    """How many of the folder's source files its settings and ignore rules let into the
    index, by a walk now (stats only): a problem when none, worth knowing when more than
    nine in ten are kept out, each time naming the rules that did it."""
    from codekeep.analysis.exclusions import survey
    from codekeep.analysis.registry import default_registry
    from codekeep.settings.layers import load_index_settings

    settings = load_index_settings(root).settings
    found = survey(root, settings, default_registry(settings.languages))
    if not found.worth_saying():
        yield Finding("index", "coverage", OK, f"{found.indexed:,} source files are indexed"
                      + (f", {found.excluded:,} kept out by ignore rules and settings"
                         if found.excluded else ""))
        return
    status = PROBLEM if found.indexed == 0 else INFO
    yield Finding("index", "coverage", status, found.summary())


def diagnose(root: Path) -> list[Finding]:
    """Every check, in report order."""
    findings = [*versions(), *grammars()]
    findings += [check_store(store) for store in workspace_stores(root)]
    findings += [*coverage(root)]
    findings += [*watcher(), *models(root), *editors(root), *hosts(root)]
    return findings


def render_text(findings: Sequence[Finding]) -> str:
    lines, area = [], ""
    for finding in findings:
        if finding.area != area:
            area = finding.area
            lines.append(f"{area}:")
        mark = {OK: "ok     ", INFO: "info   ", PROBLEM: "PROBLEM"}[finding.status]
        lines.append(f"  {mark} {finding.name}: {finding.detail}")
    problems = sum(f.status == PROBLEM for f in findings)
    lines.append(f"{problems} problem{'s' if problems != 1 else ''} found")
    return "\n".join(lines)


def render_json(findings: Sequence[Finding]) -> str:
    return json.dumps({"findings": [asdict(f) for f in findings],
                       "problems": sum(f.status == PROBLEM for f in findings)}, indent=2)
