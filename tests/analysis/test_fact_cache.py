"""The content-addressed facts cache: a second checkout of known content parses nothing,
and whatever goes wrong with the cache costs a parse, never a wrong or missing fact."""

from __future__ import annotations

import ast
import os
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from codekeep.analysis import CodeMap, factcache, parsing
from codekeep.analysis.factcache import ENV, STALE_AFTER_S, FactCache, default_cache, fingerprint

FILES = {
    "shop/models.py": "class Cart:\n    def add(self, item: 'Item'):\n        return total(item)\n",
    "shop/util.py": "from shop.models import Cart\n\ndef total(x):\n    return Cart().add(x)\n",
    "web/app.ts": "import { h } from './h';\nexport function start(): void { h(); }\n",
    "web/h.ts": "export function h(): number { return 1; }\n",
    "main.go": "package main\n\nfunc main() { helper() }\n\nfunc helper() {}\n",
    "ünï.rs": "fn grüß() -> u8 { 1 }\nfn main() { grüß(); }\n",
}


def _snapshot(codemap: CodeMap) -> tuple[list[object], list[object]]:
    symbols = [(s.id, s.kind, s.signature, s.range, s.selection_range)
               for s in codemap.symbols_in()]
    uses = [(r.path, r.range, r.kind, r.confidence) for name in ("total", "h", "helper", "Cart",
                                                                  "grüß", "Item")
            for r in codemap.find_references(name=name)[0]]
    return symbols, uses


def _entries(cache: FactCache) -> list[tuple[str, str, bytes, int]]:
    with sqlite3.connect(cache.path) as conn:
        return conn.execute("SELECT digest, language, rows, written FROM facts").fetchall()


def _no_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(spec, data):  # type: ignore[no-untyped-def]
        raise AssertionError("parsed content the cache already held")

    monkeypatch.setattr(parsing, "analyse_source", refuse)


@pytest.mark.parametrize("parallel", [False, True])
def test_a_second_checkout_is_indexed_from_the_cache_without_parsing(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap], tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, parallel: bool,
) -> None:
    first = workspace(FILES)
    options = {"workers": 2, "parallel_min_files": 1} if parallel else {}
    expected = _snapshot(_indexed(open_map(first, **options)))
    second = tmp_path / "worktree"
    shutil.copytree(first, second, ignore=shutil.ignore_patterns(".codekeep"))
    _no_parsing(monkeypatch)  # workers are forked from here: they refuse too
    codemap = open_map(second, **options)
    stats = codemap.index()
    assert stats.parsed == len(FILES) and stats.skipped == {}
    assert _snapshot(codemap) == expected


def _indexed(codemap: CodeMap) -> CodeMap:
    codemap.index()
    return codemap


def test_a_branch_switch_back_reuses_the_facts_of_known_content(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    root = workspace(FILES)
    codemap = _indexed(open_map(root))
    original = (root / "shop/util.py").read_bytes()
    (root / "shop/util.py").write_text("def other():\n    pass\n")  # another branch
    codemap.refresh_file("shop/util.py")
    assert codemap.find_symbol("total") == []
    _no_parsing(monkeypatch)
    (root / "shop/util.py").write_bytes(original)  # back again: known content
    codemap.refresh_file("shop/util.py")
    assert [s.id for s in codemap.find_symbol("total")] == ["shop/util.py::total"]


def test_a_damaged_or_foreign_entry_is_a_miss_and_the_file_is_parsed(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap], tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first = workspace(FILES)
    expected = _snapshot(_indexed(open_map(first)))
    cache = default_cache()
    assert cache is not None
    entries = _entries(cache)
    assert len(entries) == len(FILES)
    with sqlite3.connect(cache.path) as conn:  # truncated, garbage, a valid but wrong shape
        for number, (digest, language, _rows, _written) in enumerate(entries):
            conn.execute("UPDATE facts SET rows = ? WHERE digest = ? AND language = ?",
                         ([b"\xfb", b"not marshal", b"\xe9\x00\x00\x00\x00"][number % 3],
                          digest, language))
    second = tmp_path / "clone"
    shutil.copytree(first, second, ignore=shutil.ignore_patterns(".codekeep"))
    assert _snapshot(_indexed(open_map(second))) == expected  # parsed again …
    third = tmp_path / "worktree"
    shutil.copytree(first, third, ignore=shutil.ignore_patterns(".codekeep"))
    _no_parsing(monkeypatch)
    assert _snapshot(_indexed(open_map(third))) == expected  # … and the entries rewritten


def test_the_cache_lives_outside_the_workspace_and_can_be_turned_off(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap],
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> None:
    cache_dir = Path(os.environ[ENV])
    root = workspace(FILES)
    _indexed(open_map(root))
    cache = default_cache()
    assert cache is not None and cache.path.parent == cache_dir / fingerprint()
    assert len(_entries(cache)) == len(FILES)
    assert cache.path.stat().st_mode & 0o077 == 0  # private: the cache holds code
    assert all(p.name.startswith((".gitignore", "index.db"))
               for p in (root / ".codekeep").iterdir())
    monkeypatch.setenv(ENV, "off")
    assert default_cache() is None
    shutil.rmtree(cache_dir)
    other = tmp_path / "other"
    shutil.copytree(root, other, ignore=shutil.ignore_patterns(".codekeep"))
    assert _indexed(open_map(other)).status().symbols > 0
    assert not cache_dir.exists()


def test_pruning_drops_unused_versions_and_the_oldest_entries_past_the_cap(
    tmp_path: Path,
) -> None:
    from codekeep.analysis.encoding import EncodedFacts

    cache = FactCache(tmp_path / "facts")
    with cache.batch():  # written together, on leaving
        for number in range(10):
            cache.put("python", f"{number:02d}" + "0" * 30, EncodedFacts([], {"x": "0,0,1"}, ""))
        assert not cache.path.exists() or _entries(cache) == []
    with sqlite3.connect(cache.path) as conn:
        conn.execute("UPDATE facts SET written = 1000 + CAST(substr(digest, 1, 2) AS INTEGER)")
    size = len(_entries(cache)[0][2])
    old_version = tmp_path / "facts" / ("0" * 20)
    (old_version / "ab").mkdir(parents=True)
    os.utime(old_version, (0, 0))
    now = STALE_AFTER_S + 10_000
    assert cache.prune(max_bytes=size * 5, now=now)
    assert not old_version.exists()
    kept = sorted(digest[:2] for digest, *_rest in _entries(cache))
    assert kept == ["06", "07", "08", "09"]  # the oldest went, down to 80 % of the cap
    assert cache.get("python", "09" + "0" * 30) == EncodedFacts([], {"x": "0,0,1"}, "")
    assert cache.get("python", "01" + "0" * 30) is None
    assert not cache.prune(max_bytes=0, now=now + 60)  # ran less than a day ago


def test_the_fingerprint_covers_exactly_the_modules_extraction_runs() -> None:
    """A module that decides facts (doclinks, go_scopes …) but is missing from the
    fingerprint would let a new version reuse an old version's facts. Follow every import
    of parsing.py and extract.py, lazy ones inside functions too, to the end."""
    package = Path(factcache.__file__).resolve().parent.parent
    seen: set[str] = set()
    todo = ["analysis/parsing.py", "analysis/extract.py"]
    while todo:
        relative = todo.pop()
        if relative in seen:
            continue
        seen.add(relative)
        if relative == "analysis/factcache.py":  # the cache's own storage decides no facts
            continue
        for node in ast.walk(ast.parse((package / relative).read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("codekeep."):
                module = node.module.removeprefix("codekeep.").replace(".", "/")
                candidates = [f"{module}.py", *(f"{module}/{a.name}.py" for a in node.names)]
                todo += [name for name in candidates if (package / name).is_file()]
    assert seen - {"analysis/factcache.py"} == set(factcache._SOURCES)


def test_a_damaged_cache_database_is_started_over(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap], tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first = workspace(FILES)
    expected = _snapshot(_indexed(open_map(first)))
    cache = default_cache()
    assert cache is not None
    cache._close()  # as another process would find it: damaged under its feet
    cache.path.write_bytes(b"not a database " * 1000)
    for suffix in ("-wal", "-shm"):
        Path(f"{cache.path}{suffix}").unlink(missing_ok=True)
    second = tmp_path / "clone"
    shutil.copytree(first, second, ignore=shutil.ignore_patterns(".codekeep"))
    assert _snapshot(_indexed(open_map(second))) == expected  # parsed, no error
    assert len(_entries(cache)) == len(FILES)  # written to a new database
    third = tmp_path / "worktree"
    shutil.copytree(first, third, ignore=shutil.ignore_patterns(".codekeep"))
    _no_parsing(monkeypatch)
    assert _snapshot(_indexed(open_map(third))) == expected  # from the new entries


def test_entries_put_after_the_database_was_deleted_go_to_a_new_one(
    tmp_path: Path,
) -> None:
    from codekeep.analysis.encoding import EncodedFacts

    cache = FactCache(tmp_path / "facts")
    facts = EncodedFacts([], {"x": "0,0,1"}, "")
    cache.put("python", "a" * 32, facts)
    shutil.rmtree(tmp_path / "facts")  # `rm -rf ~/.cache/codekeep` under a running server
    cache.put("python", "b" * 32, facts)
    assert [digest for digest, *_rest in _entries(cache)] == ["b" * 32]
    assert FactCache(tmp_path / "facts").get("python", "b" * 32) == facts


def _put_in_child(base: str) -> None:
    from codekeep.analysis.encoding import EncodedFacts

    cache = FactCache(Path(base))
    cache.put("python", "c" * 32, EncodedFacts([], {"child": "0,0,5"}, ""))


def test_a_forked_worker_writes_beside_the_parent_without_inheriting_its_connection(
    tmp_path: Path,
) -> None:
    """The parent's connection is closed before the fork (SQLite forbids carrying one
    into a child), both write, and the parent's next read reopens it and sees both."""
    import multiprocessing

    from codekeep.analysis.encoding import EncodedFacts

    cache = FactCache(tmp_path / "facts")
    facts = EncodedFacts([], {"parent": "0,0,6"}, "")
    cache.put("python", "p" * 32, facts)
    assert cache._conn is not None
    child = multiprocessing.get_context("fork").Process(
        target=_put_in_child, args=(str(tmp_path / "facts"),))
    child.start()
    assert cache._conn is None  # closed in the parent before the fork
    child.join()
    assert child.exitcode == 0
    assert cache.get("python", "p" * 32) == facts
    assert cache.get("python", "c" * 32) == EncodedFacts([], {"child": "0,0,5"}, "")
    with sqlite3.connect(cache.path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
