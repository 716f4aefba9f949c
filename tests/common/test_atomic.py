"""Replacing a file whole: the old text or the new, never half; no scratch left behind."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from codekeep.common.atomic import write_atomically


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
