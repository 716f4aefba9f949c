"""``codekeep index --export FILE`` / ``--import FILE``: a new checkout of content a team
already indexed parses nothing, and nothing in the file is used unchecked."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest

from codekeep.analysis import CodeMap, parsing
from codekeep.analysis.factcache import FactCache
from codekeep.analysis.factshare import FactShareError, import_facts
from codekeep.docs import DocsIndex
from codekeep.docs import pages as docs_pages

FILES = {
    "shop/models.py": "class Cart:\n    def add(self, item):\n        return total(item)\n",
    "shop/util.py": "from shop.models import Cart\n\ndef total(x):\n    return Cart().add(x)\n",
    "web/h.ts": "export function h(): number { return 1; }\n",
    "main.go": "package main\n\nfunc main() { helper() }\n\nfunc helper() {}\n",
    "docs/guide.md": "# Guide\n\n## Carts\n\nA wombat fills the cart before checkout.\n",
}
FACTS, PAGES = 4, 3  # entries: the code files' facts; the docs' pages (both .py and the .md)


def codekeep(root: Path, cache: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CODEKEEP_")}
    env.update(CODEKEEP_PARSE_CACHE=str(cache), HOME=str(root.parent))
    return subprocess.run([sys.executable, "-m", "codekeep", "index", "--json", *args,
                           "--root", str(root)], capture_output=True, text=True, timeout=120,
                          env=env)


def exported(workspace: Callable[..., Path], tmp_path: Path) -> tuple[Path, Path]:
    """A checkout indexed in "CI" with its own cache, and the file it exported."""
    ci = workspace(FILES)
    artifact = tmp_path / "facts.ckf"
    done = codekeep(ci, tmp_path / "ci-cache", "--export", str(artifact))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["exported"] == {"entries": FACTS + PAGES, "missing": 0,
                                                   "refused": 0}
    return ci, artifact


def test_a_new_checkout_indexes_from_an_imported_file_without_parsing(
        workspace: Callable[..., Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        open_map: Callable[..., CodeMap]) -> None:
    ci, artifact = exported(workspace, tmp_path)
    checkout = tmp_path / "checkout"
    shutil.copytree(ci, checkout, ignore=shutil.ignore_patterns(".codekeep"))
    cache = tmp_path / "my-cache"
    found = import_facts(FactCache(cache), artifact)
    assert (found.entries, found.refused) == (FACTS + PAGES, 0)

    def refuse(spec, data):  # type: ignore[no-untyped-def]
        raise AssertionError("parsed content the imported file held")

    monkeypatch.setenv("CODEKEEP_PARSE_CACHE", str(cache))
    monkeypatch.setattr(parsing, "analyse_source", refuse)
    codemap = open_map(checkout)
    assert codemap.index().files == 4
    assert [s.id for s in codemap.find_symbol("total")] == ["shop/util.py::total"]
    refs, total = codemap.find_references(name="helper")
    assert total == 1 and refs[0].path == "main.go"


def test_the_cli_imports_then_indexes(workspace: Callable[..., Path], tmp_path: Path) -> None:
    ci, artifact = exported(workspace, tmp_path)
    checkout = tmp_path / "checkout"
    shutil.copytree(ci, checkout, ignore=shutil.ignore_patterns(".codekeep"))
    done = codekeep(checkout, tmp_path / "fresh-cache", "--import", str(artifact))
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["imported"] == {"entries": FACTS + PAGES, "missing": 0, "refused": 0}
    assert report["files"] == 4 and report["symbols"] == 6
    assert report["docs"]["fromCache"] == PAGES and report["docs"]["chunks"] == 1


def test_a_new_checkouts_docs_come_from_the_import_without_reading_a_page(
        workspace: Callable[..., Path], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    ci, artifact = exported(workspace, tmp_path)
    checkout = tmp_path / "checkout"
    shutil.copytree(ci, checkout, ignore=shutil.ignore_patterns(".codekeep"))
    (checkout / "docs" / "new.md").write_text("# New\n\nThe quokka page.\n")
    cache = tmp_path / "my-cache"
    import_facts(FactCache(cache), artifact)
    monkeypatch.setenv("CODEKEEP_PARSE_CACHE", str(cache))
    read = []
    real_parse = docs_pages.parse
    monkeypatch.setattr(docs_pages, "parse",
                        lambda path, *rest: read.append(path) or real_parse(path, *rest))
    with DocsIndex.open(checkout) as docs:
        stats = docs.index(embed="skip")
        assert (stats.parsed, stats.from_cache) == (PAGES + 1, PAGES)
        assert read == ["docs/new.md"]  # only the page the export did not hold
        hit = docs.search("wombat checkout").hits[0]
        assert (hit.path, hit.heading, hit.start_line) == ("docs/guide.md", "Guide › Carts", 5)
        assert docs.search("quokka").hits[0].path == "docs/new.md"


def test_a_damaged_entry_is_refused_and_the_rest_imported(
        workspace: Callable[..., Path], tmp_path: Path) -> None:
    _ci, artifact = exported(workspace, tmp_path)
    with sqlite3.connect(artifact) as conn:
        digest, language, packed = conn.execute(
            "SELECT digest, language, rows FROM facts ORDER BY digest LIMIT 1").fetchone()
        rows = bytearray(zlib.decompress(packed))
        rows[-1] ^= 1  # one flipped bit in the facts
        conn.execute("UPDATE facts SET rows = ? WHERE digest = ? AND language = ?",
                     (zlib.compress(bytes(rows)), digest, language))
    cache = FactCache(tmp_path / "my-cache")
    found = import_facts(cache, artifact)
    assert (found.entries, found.refused) == (FACTS + PAGES - 1, 1)
    assert cache.get_bytes(language, digest) is None  # never stored, so never used


def test_an_entry_damaged_in_the_cache_after_import_is_not_used(
        workspace: Callable[..., Path], tmp_path: Path) -> None:
    _ci, artifact = exported(workspace, tmp_path)
    cache = FactCache(tmp_path / "my-cache")
    import_facts(cache, artifact)
    with sqlite3.connect(cache.path) as conn:
        digest, language = conn.execute("SELECT digest, language FROM facts LIMIT 1").fetchone()
        assert cache.get_bytes(language, digest) is not None
        conn.execute("UPDATE facts SET rows = rows || x'00' WHERE digest = ?", (digest,))
    cache._close()
    assert cache.get_bytes(language, digest) is None


def test_a_file_from_another_extractor_or_no_export_is_refused_whole(
        workspace: Callable[..., Path], tmp_path: Path) -> None:
    ci, artifact = exported(workspace, tmp_path)
    with sqlite3.connect(artifact) as conn:
        conn.execute("UPDATE meta SET value = 'ffff' WHERE key = 'fingerprint'")
    cache = FactCache(tmp_path / "my-cache")
    with pytest.raises(FactShareError, match="made by another CodeKeep"):
        import_facts(cache, artifact)
    assert not cache.path.exists()  # nothing was written

    (tmp_path / "notes.txt").write_text("not a database")
    done = codekeep(ci, tmp_path / "cache", "--import", str(tmp_path / "notes.txt"))
    assert done.returncode == 1 and "not a readable facts export" in done.stderr
    done = codekeep(ci, tmp_path / "cache", "--import", str(tmp_path / "absent.ckf"))
    assert done.returncode == 1 and "no such file" in done.stderr
