"""read_file, list_files, search_code and write_file on a real workspace."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from codekeep.settings.tools import ToolSettings
from codekeep.tools import ToolContext, ToolKit


async def test_read_file_range_and_attribution(call: Any) -> None:
    result = await call("read_file", {"path": "src/app.py", "start_line": 6, "end_line": 8})
    assert result.ok
    assert result.data["text"].splitlines() == [
        "class Greeter:",
        "    def greet(self, name):",
        "        return helper(name)",
    ]
    assert result.content.splitlines()[0] == "src/app.py lines 6-8 of 12"
    assert "    6  class Greeter:" in result.content
    assert "def main" not in result.content  # only the requested range enters the context
    assert result.files_read == {"src/app.py": len(result.data["text"])}


async def test_read_file_errors_are_actionable(call: Any, workspace: Path) -> None:
    missing = await call("read_file", {"path": "src/nope.py"})
    assert missing.rule == "not_found" and "list_files" in missing.content
    directory = await call("read_file", {"path": "src"})
    assert directory.rule == "not_a_file"
    (workspace / "blob.bin").write_bytes(b"\x00\x01\x02")
    binary = await call("read_file", {"path": "blob.bin"})
    assert binary.rule == "binary"
    os.mkfifo(workspace / "pipe")
    fifo = await call("read_file", {"path": "pipe"})  # would block forever if opened
    assert fifo.rule == "not_a_file" and "pipe" in fifo.content
    fifo_write = await call("write_file", {"path": "pipe", "content": "x"})
    assert fifo_write.rule == "not_a_file"
    dir_write = await call("write_file", {"path": "src", "content": "x"})
    assert dir_write.rule == "not_a_file" and (workspace / "src" / "app.py").exists()
    past = await call("read_file", {"path": "src/util.py", "start_line": 50})
    assert past.rule == "range" and "only 2 lines" in past.content
    backwards = await call("read_file", {"path": "src/util.py", "start_line": 2, "end_line": 1})
    assert backwards.rule == "arguments"


async def test_read_file_size_cap_says_where_to_continue(kit: ToolKit, workspace: Path) -> None:
    (workspace / "big.txt").write_text("".join(f"line {i:05d}\n" for i in range(1, 5001)))
    ctx = ToolContext.create(workspace, "t", "chat", settings=ToolSettings(read_cap=1800))
    result = await kit.pipeline.execute("read_file", {"path": "big.txt"}, ctx)
    assert result.ok and result.data["truncated"]
    last = result.data["end_line"]
    assert last == 100  # 11 characters per line + 7 for the line number
    assert result.dropped is not None and "start_line=101" in result.dropped
    assert result.files_read == {"big.txt": len(result.data["text"])}
    assert "line 00100" in result.content and "line 00101" not in result.content
    assert f"request start_line={last + 1} for more" in result.content
    assert result.data["total_lines"] == 5000


async def test_list_files_honours_gitignore_and_hides_nothing_else(call: Any) -> None:
    result = await call("list_files", {})
    listed = {f["path"] for f in result.data["files"]}
    assert {"src/app.py", "src/util.py", "README.md"} <= listed
    assert "build/out.py" not in listed and "debug.log" not in listed  # .gitignore
    assert not any(p.startswith(".git/") for p in listed)
    assert ".env" not in listed and "keys/id_rsa" not in listed  # secret files are skipped
    assert not any(p.startswith("link_out/") for p in listed)  # a symlink leading out
    only_py = await call("list_files", {"path": "src", "pattern": "*.py"})
    assert {f["path"] for f in only_py.data["files"]} == {"src/app.py", "src/util.py"}
    capped = await call("list_files", {"limit": 1})
    assert "more files omitted" in capped.content


async def test_search_code_groups_per_file_and_skips_ignored(call: Any) -> None:
    result = await call("search_code", {"pattern": r"helper"})
    assert result.ok
    paths = [f["path"] for f in result.data["files"]]
    assert set(paths) == {"src/app.py", "src/util.py", "README.md"}
    assert "build/out.py" not in paths and "debug.log" not in paths
    assert result.content.splitlines()[0].endswith("in 3 files")
    assert "src/util.py (1)" in result.content
    assert result.files == paths and result.query == "helper"


async def test_search_code_never_reads_secrets(call: Any) -> None:
    result = await call("search_code", {"pattern": "sk-live|OPENSSH|TOP SECRET"})
    assert result.ok and result.data["total_matches"] == 0


async def test_search_code_options(call: Any) -> None:
    literal = await call("search_code", {"pattern": "helper(", "literal": True})
    assert literal.ok and literal.data["total_matches"] == 2
    cased = await call("search_code", {"pattern": "GREETER", "case_sensitive": True})
    assert cased.data["total_matches"] == 0
    globbed = await call("search_code", {"pattern": "helper", "glob": "*.md"})
    assert [f["path"] for f in globbed.data["files"]] == ["README.md"]
    bad = await call("search_code", {"pattern": "helper("})
    assert bad.rule == "arguments" and "literal=true" in bad.content


async def test_search_code_states_what_compression_dropped(call: Any, workspace: Path) -> None:
    for i in range(30):
        (workspace / "src" / f"gen_{i:02d}.py").write_text("needle = 1\n" * 5)
    result = await call("search_code", {"pattern": "needle"})
    assert result.data["total_matches"] == 150
    assert "more matches" in result.content and result.dropped
    assert len(result.content) < 3000


async def test_write_file_creates_then_diffs(call: Any, workspace: Path) -> None:
    created = await call("write_file", {"path": "pkg/new.py", "content": "a = 1\nb = 2\n"})
    assert created.ok and created.data["created"]
    assert created.content.startswith("created pkg/new.py: +2 -0 lines")
    updated = await call("write_file", {"path": "pkg/new.py", "content": "a = 1\nb = 3\n"})
    assert updated.content.startswith("updated pkg/new.py: +1 -1 lines")
    assert "-b = 2" in updated.content and "+b = 3" in updated.content
    assert (workspace / "pkg" / "new.py").read_text() == "a = 1\nb = 3\n"
    assert not [p for p in (workspace / "pkg").iterdir() if p.name.endswith(".tmp")]


async def test_write_file_keeps_permissions_and_refuses_binary(call: Any, workspace: Path) -> None:
    script = workspace / "run.sh"
    script.write_text("echo a\n")
    os.chmod(script, 0o755)
    assert (await call("write_file", {"path": "run.sh", "content": "echo b\n"})).ok
    assert os.stat(script).st_mode & 0o777 == 0o755
    (workspace / "img.png").write_bytes(b"\x89PNG\x00\x00")
    binary = await call("write_file", {"path": "img.png", "content": "text"})
    assert binary.rule == "binary"
    assert (workspace / "img.png").read_bytes() == b"\x89PNG\x00\x00"


async def test_reads_after_a_write_are_not_served_from_cache(call: Any) -> None:
    await call("read_file", {"path": "src/util.py"})
    await call(
        "write_file", {"path": "src/util.py", "content": "def helper(name):\n    return name\n"}
    )
    again = await call("read_file", {"path": "src/util.py"})
    assert not again.cached and "return name" in again.content


async def test_explore_cannot_write(kit: ToolKit, workspace: Path) -> None:
    ctx = kit.context("t", "explore")
    result = await kit.pipeline.execute("write_file", {"path": "x.txt", "content": "x"}, ctx)
    assert result.refused and result.rule == "allowlist"
    assert not (workspace / "x.txt").exists()


async def test_default_reads_are_never_cut_again_by_compression(call: Any, workspace: Path) -> None:
    (workspace / "long.py").write_text(
        "".join(f"value_{i} = {i}  # some code here\n" for i in range(3000))
    )
    result = await call("read_file", {"path": "long.py"})
    shown_lines = [ln for ln in result.content.splitlines() if ln[:5].strip().isdigit()]
    assert len(shown_lines) == result.data["end_line"]  # every line read is in the context
    assert "more characters" not in result.content


async def test_catastrophic_patterns_are_stopped(workspace: Path, kit: ToolKit) -> None:
    (workspace / "trap.txt").write_text("a" * 40 + "!\n")
    ctx = ToolContext.create(workspace, "t", "chat", settings=ToolSettings(search_timeout=0.3))
    result = await kit.pipeline.execute(
        "search_code", {"pattern": "(a|aa)+$", "path": "trap.txt"}, ctx
    )
    assert result.ok and result.data["truncated"]
    assert "simplify it" in result.content and "results are incomplete" in result.content


async def test_multiple_matches_on_one_line_count_once(call: Any, workspace: Path) -> None:
    (workspace / "dup.txt").write_text("x x x\ny\nx\n")
    result = await call("search_code", {"pattern": "x", "path": "dup.txt"})
    assert result.data["files"][0]["count"] == 2
    assert [m["line"] for m in result.data["files"][0]["matches"]] == [1, 3]
    anchored = await call("search_code", {"pattern": "^y$", "path": "dup.txt"})
    assert [m["line"] for m in anchored.data["files"][0]["matches"]] == [2]
