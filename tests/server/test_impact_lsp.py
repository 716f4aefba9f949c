"""``codekeep/impact`` over stdio: the folder's git diff as changed symbols, callers and
tests, the same answer as ``codekeep impact --json``; bad parameters are refused."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from tests.server.lsp_harness import APP, request, session_fixture, write_project

pytestmark = pytest.mark.slow


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = write_project(tmp_path / "shapes")
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid"}
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "one"]):
        subprocess.run(["git", "-C", str(root), *args], check=True, env=env)
    (root / "pkg" / "app.py").write_text(APP.replace('f"shape {name}"', 'f"a {name}"'))
    return root


client = session_fixture()


async def test_impact_maps_the_diff_to_symbols(client: LanguageClient) -> None:
    answer = await request(client, "codekeep/impact", {})
    assert answer["base"] == "HEAD" and answer["head"] == "worktree"
    assert [(s["id"], s["change"], s["risk"]) for s in answer["symbols"]] == [
        ("pkg/app.py::describe", "changed", ["public API", "no tests"])]
    assert (await request(client, "codekeep/impact", {"staged": True}))["symbols"] == []
    with pytest.raises(JsonRpcException, match="give one of"):
        await request(client, "codekeep/impact", {"staged": True, "worktree": True})
    with pytest.raises(JsonRpcException, match="depth"):
        await request(client, "codekeep/impact", {"depth": 99})


async def test_impact_sees_a_test_written_a_moment_ago(client: LanguageClient,
                                                        project: Path) -> None:
    """A test file saved just before the request (its watcher event not delivered yet)
    still counts: the answer is about the disk as it is, not as the watcher last told."""
    tests = project / "tests"
    tests.mkdir()
    (tests / "test_describe.py").write_text(
        "from pkg.app import describe\n\n\ndef test_describe():\n"
        "    assert describe('x') == 'a x'\n")
    answer = await request(client, "codekeep/impact", {})
    [symbol] = answer["symbols"]
    assert symbol["tests"] == {"files": ["tests/test_describe.py"],
                               "functions": ["tests/test_describe.py::test_describe"]}
    assert "no tests" not in symbol["risk"]
