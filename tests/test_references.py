"""Code, tests and docs refer only to what a clone contains.

The design of record is docs/design.md; notes kept elsewhere (an outside design file, the
design seeds, a contracts file, numbered tickets of a tracker a clone does not have) are
either linked into ``docs/`` or their rule is stated where it applies. This test finds
such references anywhere in the repository's own text files.
"""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# What a reader of a clone cannot open: each pattern names one kind of outside document.
OUTSIDE = re.compile(
    r"(?-i:DESIGN\.md)"  # the design file that lived outside the repository
    r"|CONTRACTS\.md"
    r"|(?<![\w/])team/[\w.-]+\.md"  # the team's notes, kept beside the repository
    r"|\bseeds/"
    r"|\bseeds? ?(?:§|00\d\b|documents?\b|design\b)"
    r"|\bseed's\b"
    r"|\b(?:the|design|from the) seeds?\b(?!\s*(?:=|\d|value|sweep))"
    r"|\bissues? #?\d+\b"
    r"|\bissue_\d+",
    re.IGNORECASE,
)
FOLDERS = ("codekeep", "tests", "docs", "bench", "scripts", "editors", "client-vscode", ".ci")
SKIPPED_PARTS = {"node_modules", "out", "dist", "__pycache__", ".vscode-test", "corpus",
                 "golden"}
TEXT_SUFFIXES = {".py", ".md", ".txt", ".toml", ".lua", ".ts", ".js", ".json", ".sh", ".scm",
                 ".vim", ".yml", ".yaml", ""}


def _text_files() -> list[Path]:
    files = [path for path in REPO.glob("*") if path.is_file() and path.suffix in TEXT_SUFFIXES]
    for folder in FOLDERS:
        files += [
            path for path in (REPO / folder).rglob("*")
            if path.is_file() and path.suffix in TEXT_SUFFIXES
            and not SKIPPED_PARTS & set(path.relative_to(REPO).parts)
        ]
    return files


def _references(path: Path) -> list[str]:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return []
    return [
        f"{path.relative_to(REPO)}:{number}: {match.group(0)}"
        for number, line in enumerate(text.splitlines(), start=1)
        for match in OUTSIDE.finditer(line)
    ]


def test_no_file_refers_to_documents_outside_the_repository() -> None:
    found = [reference for path in _text_files() if path != Path(__file__).resolve()
             for reference in _references(path)]
    assert not found, "link into docs/ or state the rule in place:\n" + "\n".join(found)


def test_the_check_sees_each_kind_of_outside_reference() -> None:
    for outside in ("see DESIGN.md", "seed 004 §3.2", "team/CONTRACTS.md", "issue 17",
                    "(team/requests-analysis.md, request 3)",
                    "as the seed does", "the seed's rule"):
        assert OUTSIDE.search(outside), outside
    for inside in ("docs/design.md", "random seed 113", "seeds 100–284", "the seed value",
                   "codekeep/team/memory.py", "docs/team.md"):
        assert not OUTSIDE.search(inside), inside
