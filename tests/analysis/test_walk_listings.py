"""A warm walk reuses the listing of every folder whose stat is unchanged, and still
sees every file added, removed, edited, un-ignored or newly reachable.

The maps here trust a listing at once (``listing_settle_s=0``): the real default waits
until a folder has been still for a few seconds, which a test would have to sleep for.
Each case compares what the refreshed index holds with what a walk that lists
everything finds, and checks the folders involved really kept their stat (so the case
exercises a reused listing, not a re-listed one).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from codekeep.analysis import CodeMap, IndexSettings
from codekeep.analysis.discovery import WalkReport, walk
from tests.analysis.conftest import WriteFiles

TREE: dict[str, str | bytes] = {
    "top.py": "def top():\n    pass\n",
    "pkg/a.py": "def alpha():\n    pass\n",
    "pkg/deep/er/b.py": "def beta():\n    pass\n",
    "pkg/deep/er/notes.txt": "not code\n",
    "other/c.py": "def gamma():\n    pass\n",
    "other/.gitignore": "skipped.py\n",
    "other/skipped.py": "def hidden():\n    pass\n",
}
TRUST_AT_ONCE = {"listing_settle_s": 0.0}


@pytest.fixture
def scandirs(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The folders listed (os.scandir calls) from here on."""
    listed: list[str] = []
    real = os.scandir

    def counting(path: str) -> object:
        listed.append(str(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", counting)
    yield listed


def full_walk(root: Path, **settings: object) -> list[str]:
    """What a walk that lists every folder finds (the oracle)."""
    found = walk(root, IndexSettings(**settings), WalkReport({}))  # type: ignore[arg-type]
    return sorted(c.rel for c in found if c.rel.endswith(".py"))


def stats(root: Path, *folders: str) -> list[tuple[int, int]]:
    return [(os.stat(root / f).st_mtime_ns, os.stat(root / f).st_ctime_ns) for f in folders]


@pytest.fixture
def warm(workspace: WriteFiles, open_map: Callable[..., CodeMap]) -> tuple[Path, CodeMap]:
    root = workspace(TREE)
    codemap = open_map(root, **TRUST_AT_ONCE)
    codemap.index()
    codemap.refresh()  # the first walk remembered the folders; this one reuses them
    assert codemap.files() == full_walk(root)
    return root, codemap


def names(codemap: CodeMap) -> set[str]:
    return {s.name for s in codemap.symbols_in()}


def test_nothing_changed_lists_no_folder(warm: tuple[Path, CodeMap],
                                         scandirs: list[str]) -> None:
    root, codemap = warm
    codemap.refresh()
    assert scandirs == []
    assert codemap.files() == full_walk(root)


def test_codekeep_index_lists_every_folder_with_the_same_result(
    warm: tuple[Path, CodeMap], scandirs: list[str]
) -> None:
    """``index()`` (``codekeep index``, a server's start) never rests on the memory."""
    root, codemap = warm
    stats = codemap.index()
    listed = sorted(path.removeprefix(str(codemap.root)) for path in scandirs)
    assert listed == ["", "/other", "/pkg", "/pkg/deep", "/pkg/deep/er"]
    assert (stats.parsed, stats.removed) == (0, 0)
    assert stats.skipped == {"unsupported language": 2}  # notes.txt, other/.gitignore
    del scandirs[:]
    codemap.refresh()  # and it remembered them again
    assert scandirs == [] and codemap.files() == full_walk(root)


def test_a_file_edited_in_place_is_seen_though_its_folder_is_unchanged(
    warm: tuple[Path, CodeMap], scandirs: list[str]
) -> None:
    root, codemap = warm
    folder = stats(root, "pkg/deep/er")
    (root / "pkg/deep/er/b.py").write_text("def beta_renamed():\n    pass\n")
    assert stats(root, "pkg/deep/er") == folder  # the folder's stat says "unchanged"
    codemap.refresh()
    assert scandirs == []
    assert "beta_renamed" in names(codemap) and "beta" not in names(codemap)


def test_added_removed_and_renamed_files_are_seen(
    warm: tuple[Path, CodeMap], scandirs: list[str]
) -> None:
    root, codemap = warm
    untouched = stats(root, "pkg", "other")
    (root / "pkg/deep/er/new.py").write_text("def fresh():\n    pass\n")
    (root / "top.py").unlink()
    (root / "other/c.py").rename(root / "other/renamed.py")
    (root / "pkg/deep/more").mkdir()
    (root / "pkg/deep/more/d.py").write_text("def delta():\n    pass\n")
    codemap.refresh()
    listed = [path.removeprefix(str(codemap.root)) for path in scandirs]
    assert listed == ["", "/other", "/pkg/deep", "/pkg/deep/er", "/pkg/deep/more"]  # not pkg/
    assert codemap.files() == full_walk(root) == [
        "other/renamed.py", "pkg/a.py", "pkg/deep/er/b.py", "pkg/deep/er/new.py",
        "pkg/deep/more/d.py"]
    assert {"fresh", "delta", "gamma"} <= names(codemap) and "top" not in names(codemap)
    assert stats(root, "pkg") == untouched[:1]  # pkg itself was walked from memory


def test_a_gitignore_edited_in_place_applies_to_everything_below(
    warm: tuple[Path, CodeMap], scandirs: list[str]
) -> None:
    root, codemap = warm
    folders = stats(root, "", "pkg/deep/er")
    (root / ".gitignore").write_text("b.py\n")  # new at the root: the root's stat changes
    codemap.refresh()
    assert "pkg/deep/er/b.py" not in codemap.files()
    assert stats(root, "pkg/deep/er") == folders[1:]
    (root / "other/.gitignore").write_text("c.py\n")  # edited in place: other/ unchanged
    codemap.refresh()
    assert codemap.files() == full_walk(root) == ["other/skipped.py", "pkg/a.py", "top.py"]
    (root / ".gitignore").write_text("# nothing\n")
    codemap.refresh()
    assert codemap.files() == full_walk(root)
    assert "pkg/deep/er/b.py" in codemap.files()


def test_git_info_exclude_and_settings_drop_what_was_remembered(
    warm: tuple[Path, CodeMap], open_map: Callable[..., CodeMap]
) -> None:
    root, codemap = warm
    (root / ".git/info").mkdir(parents=True)
    (root / ".git/info/exclude").write_text("a.py\n")
    codemap.refresh()
    assert codemap.files() == full_walk(root) and "pkg/a.py" not in codemap.files()
    codemap.close()
    stricter = open_map(root, extra_exclude=("deep",), **TRUST_AT_ONCE)
    stricter.refresh()
    assert stricter.files() == full_walk(root, extra_exclude=("deep",))
    assert "pkg/deep/er/b.py" not in stricter.files()
    unfiltered = open_map(root, respect_gitignore=False, **TRUST_AT_ONCE)
    unfiltered.refresh()
    assert "other/skipped.py" in unfiltered.files() and "pkg/a.py" in unfiltered.files()


def test_a_folder_whose_mtime_was_put_back_is_listed_again(
    warm: tuple[Path, CodeMap],
) -> None:
    """``touch -d``, ``tar`` and ``rsync -t`` restore an mtime; the ctime still moves."""
    root, codemap = warm
    folder = os.stat(root / "pkg")
    (root / "pkg/sneaky.py").write_text("def sneaky():\n    pass\n")
    os.utime(root / "pkg", ns=(folder.st_atime_ns, folder.st_mtime_ns))
    assert os.stat(root / "pkg").st_mtime_ns == folder.st_mtime_ns
    codemap.refresh()
    assert "sneaky" in names(codemap)


def test_links_are_looked_at_again_every_time(
    warm: tuple[Path, CodeMap], scandirs: list[str]
) -> None:
    """A link's target can change anywhere; its own folder's stat does not say so."""
    root, codemap = warm
    (root / "links").mkdir()
    os.symlink("../later/target.py", root / "links/pending.py")  # broken for now
    os.link(root / "pkg/a.py", root / "links/second_name.py")  # hard links are skipped
    codemap.refresh()
    codemap.refresh()  # links/ is remembered now
    assert "links/pending.py" not in codemap.files() and "pkg/a.py" not in codemap.files()
    folders = stats(root, "pkg", "links")
    (root / "later").mkdir()
    (root / "later/target.py").write_text("def reached():\n    pass\n")
    assert stats(root, "pkg", "links") == folders  # the broken link's folder: unchanged
    (root / "links/second_name.py").unlink()  # a.py has one name again; pkg/ unchanged
    assert stats(root, "pkg") == folders[:1]
    codemap.refresh()
    assert codemap.files() == full_walk(root)
    assert {"links/pending.py", "later/target.py", "pkg/a.py"} <= set(codemap.files())
    del scandirs[:]
    os.unlink(root / "links/pending.py")
    (root / "later/other.py").write_text("def other():\n    pass\n")
    os.symlink("../later/other.py", root / "links/pending.py")
    codemap.refresh()
    assert "other" in names(codemap)


def test_a_folder_changed_just_before_it_was_listed_is_not_trusted(
    workspace: WriteFiles, open_map: Callable[..., CodeMap], scandirs: list[str]
) -> None:
    """File times are coarse: an entry added in the same tick as the listing would not
    move the folder's mtime, so a folder changed within the settle time is listed again."""
    root = workspace(TREE)
    codemap = open_map(root)  # the default settle time: the tree was written just now
    codemap.index()
    del scandirs[:]
    codemap.refresh()
    listed = set(scandirs)
    real = codemap.root
    folders = {str(real), *(str(p) for p in real.rglob("*") if p.is_dir()
                            and ".codekeep" not in p.parts)}
    assert listed == folders


def test_unreadable_memory_means_a_full_walk(warm: tuple[Path, CodeMap],
                                             scandirs: list[str]) -> None:
    root, codemap = warm
    store = codemap._store
    rules = json.loads(store.walk_listings() or "")["rules"]
    broken = [{"": [1]}, {"": "x", "pkg": None}, {"": [1, 2, 3, 4, None, "fa.py", []]},
              {"": ["a", 2, 3, 4, None, "", {}]}]
    for garbage in ("not json", '{"rules": 1}', "[]",
                    *(json.dumps({"rules": rules, "dirs": dirs}) for dirs in broken)):
        with store.transaction():
            store.save_walk_listings(garbage)
        (root / "pkg/late.py").write_text("def late():\n    pass\n")
        codemap.refresh()
        assert codemap.files() == full_walk(root) and "late" in names(codemap)
        (root / "pkg/late.py").unlink()
    assert scandirs  # listed, never trusted


def test_a_damaged_memory_never_walks_out_of_the_workspace(
    warm: tuple[Path, CodeMap],
) -> None:
    root, codemap = warm
    (root.parent / "outside.py").write_text("def outside():\n    pass\n")
    store = codemap._store
    state = json.loads(store.walk_listings() or "")
    for kind in "dfs":
        for name in ("..", ".", ""):
            state["dirs"][""][5] = f"{kind}{name}/ftop.py"
            with store.transaction():
                store.save_walk_listings(json.dumps(state))
            codemap.refresh()
            assert "outside" not in names(codemap) and codemap.files() == full_walk(root)
