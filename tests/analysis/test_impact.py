"""``codekeep impact`` on real history: a git repository built from two released Flask
sdists (3.0.2, then 3.0.3), its diff mapped to symbols and compared with the changed
definitions Python's own ``ast`` finds in both versions; and the callers, tests and risk
classes of a change on a small tree."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import tarfile
from pathlib import Path

import pytest

from codekeep.cli import main

PACKAGES = Path(os.environ.get("CODEKEEP_TEST_PACKAGES",
                               Path.home() / ".cache" / "codekeep-test-packages"))
VERSIONS = ("3.0.2", "3.0.3")


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True,
                          check=True, env={**os.environ, "GIT_AUTHOR_NAME": "t",
                                           "GIT_AUTHOR_EMAIL": "t@example.invalid",
                                           "GIT_COMMITTER_NAME": "t",
                                           "GIT_COMMITTER_EMAIL": "t@example.invalid"})
    return done.stdout


def impact(capsys: pytest.CaptureFixture[str], root: Path, *args: str) -> dict:
    code = main(["impact", *args, "--json", "--root", str(root)])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def _unpack(version: str, into: Path) -> None:
    sdist = PACKAGES / f"flask-{version}.tar.gz"
    if not sdist.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{sdist} is missing: scripts/test downloads it")
        pytest.skip(f"{sdist} is missing (scripts/test downloads it with pip download)")
    for child in into.iterdir():
        if child.name != ".git":
            subprocess.run(["rm", "-rf", str(child)], check=True)
    with tarfile.open(sdist) as archive:
        for member in archive.getmembers():
            member.name = member.name.split("/", 1)[1] if "/" in member.name else ""
        archive.extractall(into, members=[m for m in archive.getmembers() if m.name],
                           filter="data")


def _functions(source: str) -> dict[str, str]:
    """Qualified name -> text of every function and method (top level and in classes)."""
    lines = source.splitlines()
    found: dict[str, str] = {}

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                visit(node.body, f"{prefix}{node.name}.")
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                text = "\n".join(lines[node.lineno - 1:node.end_lineno]).strip()
                found.setdefault(f"{prefix}{node.name}", text)
            elif isinstance(node, ast.If | ast.Try):  # TYPE_CHECKING / version branches
                visit(node.body, prefix)

    visit(ast.parse(source).body, "")
    return found


def _changed_by_ast(root: Path, base: str, head: str) -> set[str]:
    expected: set[str] = set()
    for path in git(root, "diff", "--name-only", "--no-renames", base, head).split():
        if not path.endswith(".py"):
            continue
        sides = []
        for rev in (base, head):
            try:
                sides.append(_functions(git(root, "show", f"{rev}:{path}")))
            except subprocess.CalledProcessError:
                sides.append({})
        before, after = sides
        expected |= {f"{path}::{q}" for q in before.keys() ^ after.keys()}
        expected |= {f"{path}::{q}" for q in before.keys() & after.keys()
                     if before[q] != after[q]}
    return expected


def _flask_history(root: Path) -> None:
    root.mkdir()
    git(root, "init", "-q")
    for version in VERSIONS:
        _unpack(version, root)
        git(root, "add", "-A")
        git(root, "commit", "-qm", version)


@pytest.mark.timeout(300)
def test_flask_release_diff_maps_to_the_definitions_ast_finds(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    root = tmp_path / "flask"
    _flask_history(root)
    answer = impact(capsys, root, "HEAD~1..HEAD", "--depth", "2")
    ours = {s["id"].split("#")[0] for s in answer["symbols"]
            if s["kind"] in ("function", "method")}
    expected = _changed_by_ast(root, "HEAD~1", "HEAD")
    assert expected, "the two releases differ in some function"
    assert ours == expected
    by_id = {s["id"]: s for s in answer["symbols"]}
    init = by_id["src/flask/app.py::Flask.__init__"]
    assert init["change"] == "changed"
    assert "tests/test_basic.py" in init["tests"]["files"]  # Flask(...) runs __init__
    assert any(c["id"].startswith("tests/test_basic.py::test_") for c in init["callers"])


@pytest.mark.timeout(300)
def test_remembered_callers_answer_as_a_fresh_code_map_after_every_write(
        tmp_path: Path) -> None:
    """The callers an impact follows are remembered until the index is written: asked
    again, the answer is the same; after an edit (by this code map or another process's),
    it is what a code map that never asked before answers, new caller included."""
    from codekeep.analysis.codemap import CodeMap
    from codekeep.analysis.impact import DiffSides
    from codekeep.analysis.impact import impact as diff_impact

    root = tmp_path / "flask"
    _flask_history(root)
    release = DiffSides("HEAD~1", "HEAD")

    def fresh() -> dict:
        with CodeMap.open(root) as other:
            return diff_impact(other, release, 3).to_json()

    with CodeMap.open(root) as codemap:
        codemap.index()
        first = diff_impact(codemap, release, 3).to_json()
        assert diff_impact(codemap, release, 3).to_json() == first == fresh()
        init = next(s for s in first["symbols"] if s["id"] == "src/flask/app.py::Flask.__init__")
        assert len(init["callers"]) > 50  # Flask(...) in the tests: a real reach to remember
        probe = "tests/test_basic.py::test_probe_builds_an_app"
        assert probe not in {c["id"] for c in init["callers"]}
        basic = root / "tests/test_basic.py"
        basic.write_text(basic.read_text() + "\n\ndef test_probe_builds_an_app():\n"
                         "    flask.Flask(__name__)\n")
        codemap.refresh_file("tests/test_basic.py")
        after = diff_impact(codemap, release, 3).to_json()
        assert after == fresh() != first
        init = next(s for s in after["symbols"] if s["id"] == "src/flask/app.py::Flask.__init__")
        assert probe in {c["id"] for c in init["callers"]}
        assert probe in init["tests"]["functions"]
        # another process's write (the CLI next to the server) is seen as well
        basic.write_text(basic.read_text().replace("def test_probe_builds_an_app",
                                                   "def test_probe_renamed"))
        with CodeMap.open(root) as other:
            other.refresh_file("tests/test_basic.py")
        again = diff_impact(codemap, release, 3).to_json()
        assert again == fresh()
        ids = {c["id"] for s in again["symbols"] for c in s["callers"]}
        assert probe not in ids and "tests/test_basic.py::test_probe_renamed" in ids


TREE = {
    "shop/core.py": ("def price(x):\n    return x\n\n\ndef _tax(x):\n    return x\n\n\n"
                     "def total(xs):\n    return sum(price(x) for x in xs)\n"),
    "shop/api.py": "from shop.core import total\n\n\ndef checkout(xs):\n    return total(xs)\n",
    "tests/test_api.py": ("from shop.api import checkout\n\n\ndef test_checkout():\n"
                          "    assert checkout([1]) == 1\n"),
}


def test_worktree_staged_and_depth(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    for rel, text in TREE.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "one")
    core = tmp_path / "shop/core.py"
    edited = TREE["shop/core.py"].replace("return x\n\n\ndef _tax", "return x * 2\n\n\ndef _tax")
    core.write_text(edited.replace("    return x\n\n\ndef total", "    return -x\n\n\ndef total"))
    answer = impact(capsys, tmp_path)
    assert [(s["id"], s["change"]) for s in answer["symbols"]] == [
        ("shop/core.py::price", "changed"), ("shop/core.py::_tax", "changed")]
    price = answer["symbols"][0]
    chains = {c["id"]: (c["depth"], c["via"]) for c in price["callers"]}
    assert chains == {"shop/core.py::total": (1, []),
                      "shop/api.py::checkout": (2, ["shop/core.py::total"]),
                      "tests/test_api.py::test_checkout": (
                          3, ["shop/core.py::total", "shop/api.py::checkout"])}
    assert price["tests"] == {"files": ["tests/test_api.py"],
                              "functions": ["tests/test_api.py::test_checkout"]}
    assert price["risk"] == ["public API"]
    assert answer["symbols"][1]["risk"] == ["no tests"]  # private and reached by no test
    shallow = impact(capsys, tmp_path, "--depth", "1")
    assert [c["id"] for c in shallow["symbols"][0]["callers"]] == ["shop/core.py::total"]
    assert shallow["symbols"][0]["risk"] == ["public API", "no tests"]
    assert impact(capsys, tmp_path, "--staged")["symbols"] == []
    git(tmp_path, "add", "-A")
    assert len(impact(capsys, tmp_path, "--staged")["symbols"]) == 2
    assert impact(capsys, tmp_path, "--worktree")["symbols"] == []


async def test_the_impact_tool_answers_through_the_pipeline(tmp_path: Path) -> None:
    from codekeep.analysis.codemap import CodeMap
    from codekeep.tools import ToolKit

    for rel, text in TREE.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "one")
    (tmp_path / "shop/api.py").write_text(TREE["shop/api.py"] + "\n\ndef refund():\n    pass\n")
    with CodeMap.open(tmp_path) as codemap:
        codemap.index()
        kit = ToolKit.open(tmp_path, codemap=codemap)
        ctx = kit.context("task", "explore")
        result = await kit.pipeline.execute("impact", {}, ctx)
        assert result.ok, result.content
        assert "added function shop/api.py::refund:8 [public API, no tests]" in result.content
        bad = await kit.pipeline.execute("impact", {"rev_range": "nope..HEAD"}, ctx)
        assert bad.rule == "git" and "nope" in bad.content
        kit.close()


def test_a_folder_outside_git_is_told_so(capsys: pytest.CaptureFixture[str],
                                         tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("def run():\n    pass\n")
    assert main(["impact", "--root", str(tmp_path)]) == 1
    error = capsys.readouterr().err
    assert f"'{tmp_path}' is not in a git repository" in error
    assert "usage" not in error  # not git's own usage text


def test_added_removed_binary_and_a_root_below_the_repository(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """All blobs of a range come from one git read: an added file's definitions are added,
    a deleted file's removed, a binary is named and not parsed, and a root inside the
    repository sees only its own files, by paths relative to it."""
    root = tmp_path / "app"
    for rel, text in TREE.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    (tmp_path / "outside.py").write_text("def elsewhere():\n    pass\n")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "one")
    (root / "shop/api.py").unlink()
    (root / "shop/new.py").write_text("class Cart:\n    def add(self):\n        pass\n")
    (root / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0binary")
    (tmp_path / "outside.py").write_text("def elsewhere():\n    return 1\n")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "two")
    answer = impact(capsys, root, "HEAD~1..HEAD")
    assert answer["files"] == ["logo.png", "shop/api.py", "shop/new.py"]
    assert [(s["id"], s["change"]) for s in answer["symbols"]] == [
        ("shop/api.py::checkout", "removed"), ("shop/new.py::Cart", "added"),
        ("shop/new.py::Cart.add", "added")]
