"""``codekeep index|find|refs|related|search|symbols|map`` as a user runs them."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.analysis.cli_calls import call
from tests.python_imports_project import (
    BLUEPRINT_REGISTER_USE,
    BUILD_USES,
    REGISTER,
    REGISTER_USE,
    write_python_imports,
)

PROJECT = {
    "app/models.py": ("class User:\n    def get_user(self, uid: int) -> 'User':\n"
                      "        return self\n\n\ndef make_user() -> User:\n    return User()\n"),
    "app/views.py": ("from app.models import make_user\n\n\ndef show():\n"
                     "    user = make_user()\n    return user.get_user(1)\n"),
    "web/main.ts": "/* 日本 */ export function getUser(): number { return 1; }\n",
}


@pytest.fixture
def root(workspace: Callable[..., Path]) -> Path:
    return workspace(PROJECT)


def run(root: Path, *args: str) -> tuple[int, str, str]:
    """The real console entry point in a subprocess (what a user's shell does)."""
    done = subprocess.run([sys.executable, "-m", "codekeep", *args, "--root", str(root)],
                          capture_output=True, text=True, timeout=60)
    return done.returncode, done.stdout, done.stderr


def test_index_then_query_in_real_processes(root: Path) -> None:
    code, out, err = run(root, "index", "--json")
    assert code == 0, err
    stats = json.loads(out)
    assert {k: stats[k] for k in ("files", "symbols", "languages")} == {
        "files": 3, "symbols": 5, "languages": {"python": 2, "typescript": 1}}
    assert {"references", "seconds"} <= set(stats)
    code, out, _ = run(root, "find", "User.get_user")
    assert code == 0
    assert out.split()[:4] == ["get_user", "method", "2", "app/models.py"]
    assert "[2:5-3:20]" in out and "def get_user(self, uid: int) -> 'User'" in out


def test_find_refs_and_errors(capsys: pytest.CaptureFixture[str], root: Path) -> None:
    code, out, _ = call(capsys, root, "find", "make_user", "--json")
    [symbol] = json.loads(out)["symbols"]
    assert symbol["id"] == "app/models.py::make_user"
    assert symbol["range"]["start"] == {"line": 5, "character": 0}
    code, out, _ = call(capsys, root, "refs", "app/models.py::make_user", "--json")
    refs = json.loads(out)
    assert refs["total"] == 2
    assert {r["confidence"] for r in refs["references"]} == {"resolved"}
    assert set(refs["references"][0]) >= {"path", "uri", "range", "symbolId", "confidence"}
    code, out, _ = call(capsys, root, "refs", "make_user")
    assert "app/views.py:5:12  resolved" in out and out.rstrip().endswith("2 references")
    code, out, err = call(capsys, root, "find", "NoSuchThing")
    assert (code, out) == (1, "") and "no symbol named 'NoSuchThing'" in err
    code, _, err = call(capsys, root, "refs", "NoSuchThing")
    assert code == 1 and "NoSuchThing" in err
    code, _, err = call(capsys, root, "related", "missing.py:3")
    assert code == 1 and "not in the index: missing.py" in err
    code, _, err = call(capsys, root, "related", "app/views.py:zero")
    assert code == 1 and "PATH:LINE" in err
    code, _, err = call(capsys, root, "symbols", "nope.py")
    assert code == 1 and "Traceback" not in err


def test_related_search_symbols_and_map(capsys: pytest.CaptureFixture[str], root: Path) -> None:
    code, out, _ = call(capsys, root, "related", "app/views.py:5", "--json")
    related = json.loads(out)
    assert related["symbol"]["id"] == "app/views.py::show"
    assert [s["id"] for s in related["calls"]] == [
        "app/models.py::make_user", "app/models.py::User.get_user"]
    assert set(related) == {"symbol", "calls", "calledBy", "related"}
    code, out, _ = call(capsys, root, "search", "gtUsr", "--json")
    found = json.loads(out)["symbols"]
    assert {s["id"] for s in found[:2]} == {"app/models.py::User.get_user", "web/main.ts::getUser"}
    assert all("score" in s for s in found)
    [ts_symbol] = [s for s in found if s["language"] == "typescript"]
    prefix = "/* 日本 */ export function "
    assert ts_symbol["selectionRange"]["start"]["character"] == len(prefix)  # UTF-16 units
    code, out, _ = call(capsys, root, "symbols", "app/models.py")
    assert out.splitlines()[1].startswith("  get_user")
    code, out, _ = call(capsys, root, "symbols", "--json")
    assert len(json.loads(out)["symbols"]) == 5
    code, out, _ = call(capsys, root, "map", "--tokens", "60", "--json")
    assert code == 0
    repo_map = json.loads(out)
    assert 0 < repo_map["tokens"] <= 60 and repo_map["text"].startswith("app/models.py:")
    with pytest.raises(SystemExit) as usage:  # a usage error (exit 2), not "nothing"
        call(capsys, root, "map", "--tokens", "0")
    assert usage.value.code == 2 and "--tokens" in capsys.readouterr().err


@pytest.mark.parametrize("args", [
    ("find", "make_user", "--limit", "0"), ("find", "make_user", "--limit", "-1"),
    ("refs", "make_user", "--limit", "-1"), ("search", "gtUsr", "--limit", "0"),
    ("index", "--max-bytes", "-1"), ("find", "make_user", "--max-bytes", "0"),
])
def test_non_positive_numbers_are_refused_and_the_index_keeps_its_files(
        capsys: pytest.CaptureFixture[str], root: Path, args: tuple[str, ...]) -> None:
    assert call(capsys, root, "index")[0] == 0
    with pytest.raises(SystemExit) as usage:  # a usage error: exit 2, the command's usage
        call(capsys, root, *args)
    out, err = capsys.readouterr()
    option = next(a for a in args if a.startswith("--"))
    assert (usage.value.code, out) == (2, "")
    assert f"{option}: must be a positive number" in err and f"usage: codekeep {args[0]}" in err
    code, out, _ = call(capsys, root, "find", "make_user", "--no-refresh")
    assert code == 0 and "app/models.py" in out


def test_unknown_focus_path_and_line_past_the_end_are_errors(
        capsys: pytest.CaptureFixture[str], root: Path) -> None:
    code, out, err = call(capsys, root, "map", "--focus", "app/nope.py")
    assert (code, out) == (1, "") and "not in the index: app/nope.py" in err
    code, out, err = call(capsys, root, "related", "app/views.py:99")
    assert (code, out) == (1, "") and "app/views.py has no line 99 (it has 6)" in err
    code, out, _ = call(capsys, root, "related", "app/views.py:6", "--json")
    assert code == 0 and json.loads(out)["symbol"]["id"] == "app/views.py::show"


def test_refs_follow_python_imports_by_id_and_by_name(
    capsys: pytest.CaptureFixture[str], tmp_path: Path,
) -> None:
    root = write_python_imports(tmp_path / "ws")
    code, out, _ = call(capsys, root, "refs", "src/web/helpers.py::url_for", "--json")
    assert code == 0
    assert "tests/test_helpers.py" in {r["path"] for r in json.loads(out)["references"]}
    for query in ("pkg/mod.py::build", "build"):
        code, out, _ = call(capsys, root, "refs", query, "--json")
        labelled = {(r["path"], r["range"]["start"]["line"] + 1, r["confidence"])
                    for r in json.loads(out)["references"]}
        assert {(path, line, "resolved") for path, line in BUILD_USES} <= labelled, query
    # a receiver's class decides which `register` a call is, asked by id or by name
    code, out, _ = call(capsys, root, "refs", REGISTER, "--json")
    uses = {(r["path"], r["range"]["start"]["line"] + 1): r["confidence"]
            for r in json.loads(out)["references"]}
    assert uses.get(REGISTER_USE) == "resolved" and BLUEPRINT_REGISTER_USE not in uses
    code, out, _ = call(capsys, root, "refs", "register", "--json")
    targets = {(r["path"], r["range"]["start"]["line"] + 1): (r["confidence"], r["symbolId"])
               for r in json.loads(out)["references"]}
    assert targets[REGISTER_USE] == ("resolved", REGISTER)
    assert targets[BLUEPRINT_REGISTER_USE] == ("resolved", "pkg/serial.py::Blueprint.register")
