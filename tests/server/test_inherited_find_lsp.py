"""``codekeep/findSymbol`` over stdio (a real ``codekeep serve``): a ``Container.member``
the class inherits is found in the base that defines it, the same answer as ``codekeep
find``, labelled with the class that inherits it."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytest_lsp import LanguageClient

from tests.agent.projects import write_zoo, zoo_found_by_cli
from tests.server.lsp_harness import request, session_fixture

pytestmark = pytest.mark.slow


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write_zoo(tmp_path / "zoo")


client = session_fixture()


async def test_find_symbol_answers_an_inherited_member_as_the_cli_does(
        client: LanguageClient, project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    inherited = await request(client, "codekeep/findSymbol", {"name": "Puppy.speak"})
    own = await request(client, "codekeep/findSymbol", {"name": "Dog.fetch"})
    missing = await request(client, "codekeep/findSymbol", {"name": "Puppy.bark"})
    cli = zoo_found_by_cli(project, "Puppy.speak", capsys)
    found = inherited["symbols"]
    assert [(s["id"], s["inheritedBy"]) for s in found] == [
        ("zoo/base.py::Animal.speak", "Puppy")]
    assert cli == [(found[0]["id"], "Puppy")]
    assert found[0]["uri"].endswith("/zoo/base.py")
    [fetch] = own["symbols"]
    assert fetch["id"] == "zoo/dogs.py::Dog.fetch" and "inheritedBy" not in fetch
    assert missing["symbols"] == []
