"""A command resolves its workspace root once (``codekeep.cli.main``), and every handler
reads that one answer: a recall used to resolve ``--root`` three times over."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import codekeep.cli as cli
import codekeep.cli.options as options
from codekeep.common.workspace import resolve_root


def test_a_recall_resolves_its_root_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    calls: list[Any] = []

    def counted(root: Any = None) -> Path:
        calls.append(root)
        return resolve_root(root)

    monkeypatch.setattr(cli, "resolve_root", counted)
    monkeypatch.setattr(options, "resolve_root", counted)
    remembered = ["memory", "remember", "tests run with pytest -q", "--root", str(tmp_path)]
    assert cli.main(remembered) == 0
    calls.clear()
    status = cli.main(["memory", "recall", "how do the tests run", "--root", str(tmp_path)])
    assert status == 0 and "pytest -q" in capsys.readouterr().out
    assert calls == [str(tmp_path)]
