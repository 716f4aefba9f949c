"""The CLI in-process, as the code map's CLI tests call it: exit code, stdout, stderr."""

from __future__ import annotations

from pathlib import Path

import pytest

from codekeep.cli import main


def call(capsys: pytest.CaptureFixture[str], root: Path, *args: str) -> tuple[int, str, str]:
    code = main([*args, "--root", str(root)])
    out, err = capsys.readouterr()
    return code, out, err
