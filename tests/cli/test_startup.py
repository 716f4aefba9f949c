"""A CLI command pays only for what it uses (agents call it in loops, users type it).

Each case runs a real ``codekeep`` command line in a fresh interpreter and looks at what
it imported: a query that only reads the index must not load the agent, the tools,
memory, the ledger, the language server, the MCP SDK, tree-sitter's grammars, tiktoken
or the worker pool. (Timings live in ``bench/cli_bench.py``, never in tests.)
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

from codekeep import __version__
from codekeep.cli import build_parser, command_modules

# Run main() with stdout captured, then print which modules the command imported.
PROBE = """
import contextlib, io, json, sys
from codekeep.cli import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    try:
        status = main(sys.argv[1:])
    except SystemExit as leaving:
        status = leaving.code
print(json.dumps({"status": status, "modules": sorted(sys.modules)}))
"""

# Never needed to answer from the index, nor for --help / --version.
SERVICES = ("codekeep.agent", "codekeep.tools", "codekeep.memory", "codekeep.ledger",
            "codekeep.docs", "codekeep.server", "codekeep.mcp", "codekeep.testing")
LIBRARIES = ("tree_sitter_language_pack", "tiktoken", "httpx", "jsonschema", "lsprotocol",
             "pygls", "mcp", "asyncio", "watchdog", "regex", "json_repair")
# What a refresh (the as-typed query) adds: the walk and the parsing of changed files
# (and the facts cache those are kept in).
REFRESH = ("pathspec", "tree_sitter", "codekeep.analysis.factcache", "importlib.metadata")
POOL = ("multiprocessing", "concurrent")  # only when files must be parsed
# cattrs converts a value only when some layer sets one: a folder without settings never
# needs it. The settings tree itself: commands that read settings load it, --help never.
CONVERTER = ("cattrs", "attrs", "attr")
SETTINGS = ("codekeep.settings", *CONVERTER)


def imported(*argv: str) -> tuple[int, list[str]]:
    done = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True,
                          text=True, timeout=60, check=True)
    report = json.loads(done.stdout)
    return report["status"], report["modules"]


def loaded(modules: list[str], names: tuple[str, ...]) -> list[str]:
    return [m for m in modules if any(m == n or m.startswith(f"{n}.") for n in names)]


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("startup")
    (root / "shapes.py").write_text("class Circle:\n    def area(self):\n        return 1\n\n"
                                    "def use():\n    return Circle().area()\n")
    subprocess.run([sys.executable, "-m", "codekeep", "index", "--root", str(root)],
                   check=True, capture_output=True, timeout=120)
    return root


@pytest.mark.parametrize("argv", [["--version"], ["--help"], []])
def test_help_and_version_load_no_service(argv: list[str]) -> None:
    status, modules = imported(*argv)
    assert status == (2 if not argv else 0)
    assert loaded(modules, SERVICES + LIBRARIES + REFRESH + POOL + SETTINGS
                  + ("codekeep.analysis",)) == []


@pytest.mark.parametrize("query", [["find", "Circle"], ["refs", "area"], ["search", "circ"],
                                   ["symbols"], ["related", "shapes.py:6"]])
def test_a_query_without_refresh_reads_the_index_only(project: Path, query: list[str]) -> None:
    status, modules = imported(*query, "--root", str(project), "--no-refresh")
    assert status == 0
    assert loaded(modules, SERVICES + LIBRARIES + REFRESH + POOL + CONVERTER) == []


def test_a_query_as_typed_refreshes_without_grammars_or_services(project: Path) -> None:
    status, modules = imported("find", "Circle", "--root", str(project))
    assert status == 0
    assert loaded(modules, SERVICES + LIBRARIES + POOL + CONVERTER) == []
    # nothing changed since: no parser (tree-sitter) is loaded to parse nothing
    status, modules = imported("find", "Circle", "--root", str(project))
    parser = ("tree_sitter", "codekeep.analysis.parsing", "codekeep.analysis.factcache",
              "importlib.metadata")
    assert status == 0 and loaded(modules, parser) == []


def test_a_memory_recall_answers_without_numpy(tmp_path: Path) -> None:
    """Recall keeps posting lists (numpy) for the words a session asks about again; a
    one-off recall, what the CLI asks, is FTS5's ranking alone (numpy costs ~90 ms)."""
    subprocess.run([sys.executable, "-m", "codekeep", "memory", "remember", "--root",
                    str(tmp_path), "the parser cache lives in the user's cache folder"],
                   check=True, capture_output=True, timeout=120)
    status, modules = imported("memory", "recall", "parser cache", "--root", str(tmp_path))
    assert status == 0 and "codekeep.memory" in modules
    assert loaded(modules, ("numpy", "codekeep.agent", "codekeep.server")) == []


def test_a_folder_setting_is_still_converted_and_checked(tmp_path: Path) -> None:
    """The converter loads on demand: a project setting is read, a bad one reported."""
    (tmp_path / ".codekeep").mkdir()
    (tmp_path / ".codekeep" / "config.toml").write_text('maxFileSize = "big"\nexclude = ["gen"]\n')
    (tmp_path / "gen").mkdir()
    (tmp_path / "gen" / "made.py").write_text("def made():\n    pass\n")
    (tmp_path / "kept.py").write_text("def kept():\n    pass\n")
    done = subprocess.run([sys.executable, "-m", "codekeep", "find", "made", "--root",
                           str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1  # gen/ is excluded by the project's setting
    assert "maxFileSize must be a whole number, got 'big'; ignored" in done.stderr
    status, modules = imported("find", "kept", "--root", str(tmp_path))
    assert status == 0 and loaded(modules, CONVERTER) != []


def test_version_is_printed() -> None:
    done = subprocess.run([sys.executable, "-m", "codekeep", "--version"], capture_output=True,
                          text=True, timeout=60)
    assert (done.returncode, done.stdout.strip()) == (0, f"codekeep {__version__}")


def test_listed_commands_are_the_ones_registered() -> None:
    """A group that lists ``COMMANDS`` (so that ``--help`` needs not build it) lists
    exactly what its ``register`` adds, with the same help lines."""
    for module in command_modules():
        listed = getattr(module, "COMMANDS", None)
        if listed is None:
            continue
        parser = argparse.ArgumentParser()
        subparsers = parser.add_subparsers()
        module.register(subparsers)
        registered = {action.dest: action.help for action in subparsers._choices_actions}
        assert registered == listed, module.__name__


def test_every_command_is_in_the_top_level_help() -> None:
    text = build_parser().format_help()
    for module in command_modules():
        parser = argparse.ArgumentParser()
        subparsers = parser.add_subparsers()
        module.register(subparsers)
        for name in subparsers.choices:
            assert f"    {name} " in text or f"    {name}\n" in text, name
