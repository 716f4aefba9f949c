"""``find`` with nothing found offers the closest names and says where to look next.

``find Flsk`` and ``find Flask.route`` (a method inherited from a base class) said only
"nothing found"; an inherited member is now found through the bases.
"""

from __future__ import annotations

import json
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
    assert main(["find", "Flask.nosuch", "--root", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("codekeep: no symbol named 'Flask.nosuch'")
    assert err.count("\n") == 1


def test_an_inherited_member_is_found_through_the_bases(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``Flask.route``: Flask inherits route from Scaffold, two files and two levels up."""
    (tmp_path / "scaffold.py").write_text(
        "class Base:\n    def route(self):\n        pass\n\n\n"
        "class Scaffold(Base):\n    def route(self):\n        pass\n", encoding="utf-8")
    (tmp_path / "app.py").write_text(
        "from scaffold import Scaffold\n\n\nclass Middle(Scaffold):\n    pass\n\n\n"
        "class Flask(Middle):\n    def run(self):\n        pass\n", encoding="utf-8")
    assert main(["find", "Flask.route", "--root", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines() == [line for line in out.splitlines() if "scaffold.py" in line]
    assert "(in Scaffold, inherited by Flask)" in out and len(out.splitlines()) == 1
    assert main(["find", "Flask.route", "--json", "--root", str(tmp_path)]) == 0
    (found,) = json.loads(capsys.readouterr().out)["symbols"]
    assert (found["name"], found["container"], found["inheritedBy"]) == (
        "route", "Scaffold", "Flask")
    assert main(["find", "Flask.run", "--json", "--root", str(tmp_path)]) == 0
    assert "inheritedBy" not in json.loads(capsys.readouterr().out)["symbols"][0]
