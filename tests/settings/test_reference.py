"""docs/settings.md carries the generated reference: every setting, its type, default and
environment variable, exactly as the schema says."""

from __future__ import annotations

from pathlib import Path

from codekeep.settings import Settings
from codekeep.settings.fields import leaves
from codekeep.settings.reference import markdown_table

DOC = Path(__file__).resolve().parents[2] / "docs" / "settings.md"
START, END = "<!-- settings-reference:start -->", "<!-- settings-reference:end -->"


def test_docs_carry_the_generated_reference() -> None:
    text = DOC.read_text(encoding="utf-8")
    documented = text[text.index(START) + len(START): text.index(END)].strip()
    assert documented == markdown_table().strip(), (
        "docs/settings.md is out of date: paste `codekeep settings --reference` "
        "between the settings-reference markers")


def test_every_setting_has_a_row_and_a_meaning() -> None:
    table = markdown_table()
    for key, entry in leaves(Settings):
        assert f"| `{'.'.join(key)}` |" in table
        assert entry.spec.doc.strip().endswith((".", ")")), key
