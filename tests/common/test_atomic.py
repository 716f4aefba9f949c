"""Replacing a file whole: the old text or the new, never half; no scratch left behind."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from codekeep.common.atomic import PartialWriteError, write_all_or_none, write_atomically


def test_a_file_is_replaced_whole_and_keeps_its_mode_when_asked(tmp_path: Path) -> None:
    target = tmp_path / "run.sh"
    target.write_text("old\n", encoding="utf-8")
    os.chmod(target, 0o751)
    write_atomically(target, b"new\n", keep_mode=True)
    assert target.read_bytes() == b"new\n"
    assert target.stat().st_mode & 0o7777 == 0o751
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.sh"]


def test_a_failed_write_leaves_the_old_file_and_no_scratch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "mark.json"
    target.write_text('{"rowid": 1}', encoding="utf-8")

    def refuse(source: str, destination: Path) -> None:
        assert Path(source).read_bytes() == b"{}"  # the new text was written beside it
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(OSError, match="disk full"):
        write_atomically(target, b"{}")
    assert target.read_text(encoding="utf-8") == '{"rowid": 1}'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mark.json"]


def _files(tmp_path: Path) -> dict[Path, bytes]:
    files = {}
    for name in ("a.py", "b.py", "c.py"):
        (tmp_path / name).write_bytes(b"old " + name.encode())
        files[tmp_path / name] = b"new " + name.encode()
    return files


def test_files_written_together_change_all_or_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = _files(tmp_path)
    os.chmod(tmp_path / "b.py", 0o640)
    write_all_or_none(files, keep_mode=True)
    assert {p: p.read_bytes() for p in files} == files
    assert (tmp_path / "b.py").stat().st_mode & 0o7777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.py", "b.py", "c.py"]

    files = _files(tmp_path)
    real_replace = os.replace

    def refuse_c(source: str, destination: Path) -> None:
        if Path(destination).name == "c.py":
            raise OSError(28, "No space left on device")
        real_replace(source, destination)

    monkeypatch.setattr(os, "replace", refuse_c)
    with pytest.raises(OSError, match="No space left") as raised:
        write_all_or_none(files)
    assert raised.value.filename == str(tmp_path / "c.py")  # the file, not its scratch
    assert {p.name: p.read_bytes() for p in files} == {
        "a.py": b"old a.py", "b.py": b"old b.py", "c.py": b"old c.py"}  # a and b put back
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.py", "b.py", "c.py"]


def test_a_put_back_that_fails_names_the_files_left_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = _files(tmp_path)
    real_replace = os.replace
    replaced: list[str] = []

    def refuse_after_first(source: str, destination: Path) -> None:
        if replaced:
            raise OSError(5, "Input/output error")
        replaced.append(str(destination))
        real_replace(source, destination)

    monkeypatch.setattr(os, "replace", refuse_after_first)
    with pytest.raises(PartialWriteError) as raised:
        write_all_or_none(files)
    assert raised.value.left == [tmp_path / "a.py"]
    assert (tmp_path / "a.py").read_bytes() == b"new a.py"
