"""A recall from the editor ranks as ``codekeep memory recall`` does.

Neovim's :CodeKeepRecall sent the current file's URI, which the server takes as "prefer
memories about this file": in a three-memory project one query scored 0.79 / 0.68 / 0.56
there and 0.93 / 0.79 / 0.76 in the CLI. Neovim now routes with the folder's URI, which
adds no file match; a file's URI still does, as ``--file`` does in the CLI.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from codekeep.cli import main
from codekeep.common.uris import path_to_uri
from codekeep.memory import MemoryService
from tests.server.lsp_harness import request, session, write_project

pytestmark = pytest.mark.slow
QUERY = "how is the total area computed"


def ranked(memories: list[dict[str, Any]]) -> list[tuple[str, float]]:
    """Content and score to 4 places (the clock moves recency by a millionth a call)."""
    return [(m["content"], round(m["score"], 4)) for m in memories]


def cli_recall(capsys: pytest.CaptureFixture[str], root: Path, *extra: str) -> list[Any]:
    assert main(["memory", "recall", QUERY, "--json", "--root", str(root), *extra]) == 0
    return ranked(json.loads(capsys.readouterr().out)["memories"])


async def test_a_recall_routed_by_folder_ranks_as_the_cli(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = write_project(tmp_path / "shapes")
    with MemoryService.open(project) as memory:
        memory.remember("total_area sums the area of every shape", importance=8)
        memory.remember("area of a circle uses math.pi", files=["pkg/geometry.py"])
        memory.remember("the app prints the total with two decimals", files=["pkg/app.py"])
    async with session(project) as lsp:
        by_folder = await request(lsp, "codekeep/memory/recall",
                                  {"query": QUERY, "uri": path_to_uri(project)})
        by_file = await request(lsp, "codekeep/memory/recall",
                                {"query": QUERY, "uri": path_to_uri(project / "pkg/app.py")})
    assert ranked(by_folder["memories"]) == cli_recall(capsys, project)
    assert ranked(by_file["memories"]) == cli_recall(capsys, project, "--file", "pkg/app.py")
    assert ranked(by_file["memories"]) != ranked(by_folder["memories"])
