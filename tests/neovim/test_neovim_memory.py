"""Memory from real Neovim: remember, recall (open a linked file, not-this, forget) and
MEMORY.md with the lines the catalog rejects as diagnostics."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.neovim.nvim import INFO, WARN, assert_one_line_notes, run_scenario, write_project

DEPLOY = """\
# Deployment

## Static files

Run collectstatic before every release; the CDN serves the static files.

## Database

Migrations run from the release job, never by hand.
"""


@pytest.mark.slow
def test_remember_recall_not_this_forget_and_notes(tmp_path: Path) -> None:
    root = write_project(tmp_path / "project")
    (root / "docs").mkdir()
    (root / "docs" / "deploy.md").write_text(DEPLOY, encoding="utf-8")
    r = run_scenario("memory.lua", root, tmp_path)
    assert_one_line_notes(r)

    # :CodeKeepRemember says what happened, linked to the file and the symbol.
    linked = " · linked to pkg/geometry.py, pkg/geometry.py::total_area"
    added = re.fullmatch(r"CodeKeep memory ADD (\w+)" + re.escape(linked), r["added"]["message"])
    assert added and r["added"]["level"] == INFO
    memory_id = added.group(1)
    assert r["again"] == {
        "message": f"CodeKeep memory REINFORCE {memory_id}: same content seen again{linked}",
        "level": INFO,
    }
    # A secret inside a fact is redacted by the server and never echoed back.
    assert "redacted: GitHub token" in r["secret"]["message"]
    assert "ghp_" not in r["secret"]["message"]
    assert r["only_secret"]["level"] == WARN
    assert r["only_secret"]["message"].startswith("CodeKeep memory REJECT: rejected: the text is")
    assert re.fullmatch(r"CodeKeep memory ADD \w+", r["stated"]["message"])
    assert re.fullmatch(  # a new value of the same preference replaces the old one
        r"CodeKeep memory SUPERSEDE \w+: test_command changed from 'pytest -q' to 'pytest -x'",
        r["superseded"]["message"],
    )
    assert r["empty"]["level"] == WARN
    assert r["empty"]["message"].startswith("CodeKeep: :CodeKeepRemember needs the text")

    # :CodeKeepRecall: score, kind, text, linked files; <CR> on a file opens it.
    assert r["recall"][0].startswith('CodeKeep recall "is total_area pure": 2 memories')
    first = r["recall"][3]
    assert re.fullmatch(r" 0\.\d\d  fact +total_area must stay a pure function", first)
    assert r["recall"][4] == "       → pkg/geometry.py"
    assert "[REDACTED:GitHub token]" in r["recall"][5]
    assert r["opened"] == "pkg/geometry.py" and r["opened_same_buffer"]

    # Not this / forget work on the memory under the cursor of the recall buffer.
    assert r["not_in_recall"]["message"] == (
        "CodeKeep: put the cursor on a memory in the :CodeKeepRecall buffer"
    )
    assert r["not_this"]["message"] == f"CodeKeep: memory {memory_id} will rank lower (not this)"
    assert r["after_not_this"][3].endswith("total_area must stay a pure function  [not this]")
    assert r["forget"]["message"] == f"CodeKeep: forgot memory {memory_id}"
    assert r["after_forget"][0].endswith(": 1 memory")
    assert not any("pure function" in line for line in r["after_forget"])
    secret_id = r["secret"]["message"].split()[3].rstrip(":")
    assert r["not_this_by_id"]["message"] == (
        f"CodeKeep: memory {secret_id} will rank lower (not this)"
    )
    assert r["after_not_this_by_id"][3].endswith("[REDACTED:GitHub token]  [not this]")
    assert r["forget_unknown"] == {
        "message": "CodeKeep: no memory p000000000000 (already forgotten?)", "level": WARN,
    }
    assert r["recall_nothing"]["message"] == (
        'CodeKeep: nothing remembered about "zebra migration schedule"'
    )

    # :CodeKeepDocs: the best sections in the quickfix list; <CR> opens the section.
    first = r["docs"][0]
    assert (first["file"], first["lnum"]) == ("docs/deploy.md", 5)
    assert first["text"] == (
        "Deployment › Static files — Run collectstatic before every release; the CDN serves "
        "the static files."
    )
    assert r["docs_opened"] == {"file": "docs/deploy.md", "line": DEPLOY.splitlines()[4]}
    assert r["docs_empty"] == {
        "message": "CodeKeep: :CodeKeepDocs needs a question, e.g. :CodeKeepDocs how do we deploy",
        "level": WARN,
    }
    assert r["docs_nothing"] == {  # the server's reason, said once
        "message": "CodeKeep: nothing in the docs matches 'zebra quagga okapi'", "level": INFO,
    }

    # :CodeKeepNotes: MEMORY.md from the template, attached; a save re-syncs it and the
    # line the catalog rejects is a warning on that line, cleared once fixed.
    assert r["notes_opened"]["message"].startswith("CodeKeep: created .codekeep/MEMORY.md")
    assert r["notes_name"] == ".codekeep/MEMORY.md" and r["notes_attached"]
    assert "## Preferences" in r["notes_template"] and "## Notes" in r["notes_template"]
    assert r["diagnostic"]["lnum"] == 2
    assert r["diagnostic"]["severity"] == 2  # vim.diagnostic.severity.WARN
    assert r["diagnostic"]["message"].startswith("unknown preference key 'colour'")
    assert [m["content"] for m in r["preferences"]] == ["test_command: pytest -q"]
    assert [m["content"] for m in r["note_recalled"]] == [
        "The geometry package must not import numpy."
    ]
    assert r["notes_again"] == []  # not created twice, nothing rejected
    assert (root / ".codekeep" / "MEMORY.md").read_text().startswith("## Preferences\n")
