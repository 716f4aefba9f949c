"""``codekeep path FROM TO`` and ``codekeep unused`` on a small tree with every kind of
entry point: what a user notices is the chains they get and the dead code listed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.analysis.cli_calls import call
from tests.analysis.conftest import WriteFiles

TREE = {
    "app/core.py": ("def load():\n    return parse()\n\n\ndef parse():\n    return token()\n\n\n"
                    "def token():\n    return 1\n\n\ndef orphan():\n    return orphan()\n\n\n"
                    "def setUpModule():\n    pass\n\n\nclass Dead:\n    def __init__(self):\n"
                    "        pass\n\n\nclass Used:\n    pass\n"),
    "app/__init__.py": '__all__ = ["exported_helper"]\n\n\ndef exported_helper():\n    pass\n',
    "app/cli.py": ("from app.core import load, parse, token, Used\n\n\ndef run():\n"
                   "    Used()\n    return load() or parse() and token()\n\n\n"
                   "def ready():\n    pass\n"),
    "app/__main__.py": "from app.cli import run\n\n\ndef main_entry():\n    run()\n",
    "tests/test_core.py": "def helper_in_tests():\n    pass\n",
    ".codekeep/config.toml": 'entryHooks = ["ready", "setUp*"]\n',
}


@pytest.fixture
def root(workspace: WriteFiles) -> Path:
    return workspace(dict(TREE))


def test_path_gives_the_shortest_chains(capsys: pytest.CaptureFixture[str], root: Path) -> None:
    code, out, err = call(capsys, root, "path", "run", "token", "--json")
    assert code == 0, err
    chains = [[s["id"] for s in chain] for chain in json.loads(out)["paths"]]
    assert chains == [["app/cli.py::run", "app/core.py::token"]]  # not run -> load -> ...
    code, out, err = call(capsys, root, "path", "load", "token")
    assert code == 0, err
    assert out == ("app/core.py::load:1 -> app/core.py::parse:5 -> app/core.py::token:9\n")
    code, out, err = call(capsys, root, "path", "token", "load")
    assert code == 1 and "does not reach" in err
    code, out, err = call(capsys, root, "path", "nothing", "load")
    assert code == 1 and "names no symbol" in err


def test_unused_skips_every_entry_point(capsys: pytest.CaptureFixture[str], root: Path) -> None:
    code, out, err = call(capsys, root, "unused", "--json")
    assert code == 0, err
    assert {s["id"] for s in json.loads(out)["symbols"]} == {
        "app/core.py::orphan", "app/core.py::Dead"}  # its own recursive call is no use
    code, out, err = call(capsys, root, "unused", "--kind", "class")
    assert code == 0 and out.split() == ["class", "app/core.py::Dead", "app/core.py:21"]
