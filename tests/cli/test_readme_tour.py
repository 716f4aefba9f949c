"""The README's tour points ``related`` at the symbol its ``find`` looks up.

``codekeep related codekeep/analysis/codemap.py:80`` answered about whatever line 80
held after edits (a blank line, later a TypeVar), not ``CodeMap``. This reads the tour
from README.md as it is and runs its ``related`` example on that file, as a newcomer would
(tests/test_doc_examples.py runs every example; this holds the two to the same symbol).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def tour() -> list[str]:
    """The ``codekeep`` lines of the README's "Five-minute tour" block, comments cut."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Five-minute tour", 1)[1]
    block = re.search(r"```bash\n(.*?)```", section, re.S)
    assert block is not None
    return [line.split("#", 1)[0].strip() for line in block.group(1).splitlines()
            if line.startswith("codekeep ")]


def test_the_tours_related_example_is_about_the_symbol_it_finds(tmp_path: Path) -> None:
    lines = tour()
    found = next(line.split()[2] for line in lines if line.startswith("codekeep find "))
    where = next(line.split()[2] for line in lines if line.startswith("codekeep related "))
    path = where.rsplit(":", 1)[0]
    (tmp_path / path).parent.mkdir(parents=True)
    shutil.copy(REPO / path, tmp_path / path)
    # The installed command: `python -m codekeep` would import the copied folder.
    command = str(Path(sys.executable).parent / "codekeep")
    done = subprocess.run([command, "related", where],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0].split()[:2] == ["symbol:", found]
