"""``find`` with nothing found offers the closest names and says where to look next.

``find Flsk`` and ``find Flask.route`` (a method inherited from a base class) said only
"nothing found".
"""

from __future__ import annotations

from pathlib import Path

import pytest

from codekeep.cli import main


def test_a_typo_gets_did_you_mean_and_a_pointer_to_search(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "app.py").write_text(
        "class Scaffold:\n    def route(self):\n        pass\n\n\n"
        "class Flask(Scaffold):\n    pass\n", encoding="utf-8")
    assert main(["find", "Flsk", "--root", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("codekeep: no symbol named 'Flsk'; did you mean Flask?")
    assert "`codekeep search Flsk`" in err
    assert main(["find", "Flask.route", "--root", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "Scaffold.route" in err  # the fuzzy search knows the base class's member
    assert "found under the class that defines it" in err
    assert err.count("\n") == 1
