"""Which files a shell command prints (what a Codex shell call's output is weighed by)."""

from __future__ import annotations

import pytest

from codekeep.ledger.shell_reads import files_read


@pytest.mark.parametrize(("command", "files"), [
    (["bash", "-lc", "sed -n '1,200p' src/app.py"], ["src/app.py"]),
    (["cat", "README.md"], ["README.md"]),
    ("cat a.py b.py | head -n 20", ["a.py", "b.py"]),
    ("rg handler src && nl -ba x.py > out.txt", ["x.py"]),
    ("head -50 x.py 2>/dev/null; tail -n +20 y.py", ["x.py", "y.py"]),
    ("sed -e p -n y.py", ["y.py"]),
    ("sed -i 's/a/b/' x.py", []),            # an edit in place prints nothing
    ("grep -n handler app.py", []),          # a search: lines of files, not a file
    ('echo "unclosed', []),                  # not a shell line
])
def test_files_read(command: str | list[str], files: list[str]) -> None:
    assert files_read(command) == files
