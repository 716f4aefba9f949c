"""A query run as the ``codekeep`` command ends its process itself (no interpreter
teardown, see ``codekeep.cli._leave_now``): what it printed must all arrive, its exit
status must be the command's, and a change it made to the index must be kept."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

DEFINITIONS = 4000  # their outline is far more than a pipe holds (64 KiB)
SCRIPT = shutil.which("codekeep", path=str(Path(sys.executable).parent))


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("quick")
    (root / "many.py").write_text("".join(
        f"def function_number_{i}(argument):\n    return argument\n\n"
        for i in range(DEFINITIONS)))
    subprocess.run([sys.executable, "-m", "codekeep", "index", "--root", str(root)],
                   check=True, capture_output=True, timeout=120)
    return root


# stdout block-buffered, as when a program reads the answer through a pipe
BUFFERED = {key: value for key, value in os.environ.items() if key != "PYTHONUNBUFFERED"}
DOORS = {"python -m codekeep": [sys.executable, "-m", "codekeep"], "the script": [SCRIPT]}


@pytest.mark.parametrize("door", DOORS, ids=list(DOORS))
@pytest.mark.parametrize("refresh", [[], ["--no-refresh"]], ids=["as typed", "no refresh"])
def test_a_long_answer_arrives_whole(project: Path, door: str, refresh: list[str]) -> None:
    done = subprocess.run([*DOORS[door], "symbols", "--root", str(project), *refresh],
                          capture_output=True, text=True, timeout=120, env=BUFFERED)
    assert (done.returncode, done.stderr) == (0, "")
    lines = done.stdout.splitlines()
    assert len(lines) == DEFINITIONS
    assert lines[-1].startswith(f"function_number_{DEFINITIONS - 1} ")


@pytest.mark.parametrize("door", DOORS, ids=list(DOORS))
def test_nothing_found_keeps_its_status_and_message(project: Path, door: str) -> None:
    done = subprocess.run([*DOORS[door], "find", "no_such_name", "--root", str(project)],
                          capture_output=True, text=True, timeout=120, env=BUFFERED)
    assert done.returncode == 1
    assert done.stderr.startswith("codekeep: no symbol named 'no_such_name'")
    assert done.stderr.count("\n") == 1 and done.stderr.endswith("\n")


def test_what_a_refresh_wrote_is_kept(project: Path) -> None:
    """An edit seen by one query's refresh is in the index for the next, which does not
    refresh: the first process's write was committed before it left."""
    (project / "late.py").write_text("def arrived_late():\n    pass\n")
    first = subprocess.run([SCRIPT, "find", "arrived_late", "--root", str(project)],
                           capture_output=True, text=True, timeout=120, env=BUFFERED)
    assert first.returncode == 0 and "late.py" in first.stdout
    second = subprocess.run([SCRIPT, "find", "arrived_late", "--root", str(project),
                             "--no-refresh"], capture_output=True, text=True, timeout=120,
                            env=BUFFERED)
    assert second.returncode == 0 and "late.py" in second.stdout
