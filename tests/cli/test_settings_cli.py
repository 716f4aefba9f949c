"""The command line reads the same settings layers as the editor: the project config
file decides what ``codekeep index`` indexes, flags win over it, bad values are said on
stderr and change nothing else."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "generated").mkdir()
    (tmp_path / "generated" / "stubs.py").write_text("def generated_stub():\n    pass\n")
    (tmp_path / "app.py").write_text("def real_code():\n    pass\n")
    return tmp_path


def codekeep(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The real console entry point in a subprocess (what a user's shell does)."""
    return subprocess.run([sys.executable, "-m", "codekeep", *args, "--root", str(root)],
                          capture_output=True, text=True, timeout=60)


def indexed_paths(root: Path, *flags: str) -> list[str]:
    done = codekeep(root, "symbols", "--json", *flags)
    assert done.returncode == 0, done.stderr
    return sorted({symbol["path"] for symbol in json.loads(done.stdout)["symbols"]})


def test_project_config_file_excludes_paths_from_the_cli_index(project: Path) -> None:
    assert indexed_paths(project) == ["app.py", "generated/stubs.py"]
    (project / ".codekeep" / "config.toml").write_text('exclude = ["generated/"]\n')
    assert indexed_paths(project) == ["app.py"]  # the warm start drops what is now excluded
    assert codekeep(project, "find", "generated_stub").returncode == 1


def test_pyproject_tool_section_works_the_same(project: Path) -> None:
    (project / "pyproject.toml").write_text('[tool.codekeep]\nexclude = ["generated/"]\n')
    assert indexed_paths(project) == ["app.py"]


def test_flags_win_over_the_project_file(project: Path) -> None:
    (project / ".codekeep").mkdir()
    (project / ".codekeep" / "config.toml").write_text('exclude = ["generated/"]\n')
    assert indexed_paths(project, "--exclude", "app.py") == ["generated/stubs.py"]
    (project / "big.py").write_text("def big():\n    pass\n" + "#" * 5000 + "\n")
    assert "big.py" not in indexed_paths(project, "--max-bytes", "1000")


def test_a_bad_value_is_reported_on_stderr_and_the_rest_applies(project: Path) -> None:
    (project / ".codekeep").mkdir()
    (project / ".codekeep" / "config.toml").write_text(
        'exclude = ["generated/"]\nmaxFileSize = "1 MB"\n[ledger]\nretentionDays = 3\n')
    done = codekeep(project, "index")
    assert done.returncode == 0
    assert (f"codekeep: warning: {project}/.codekeep/config.toml: codekeep.maxFileSize must "
            "be a whole number, got '1 MB'; ignored") in done.stderr
    assert indexed_paths(project) == ["app.py"]
    shown = json.loads(codekeep(project, "settings", "--json").stdout)
    assert shown["settings"]["maxFileSize"] == 1048576
    assert shown["settings"]["ledger"]["retentionDays"] == 3
    assert shown["sources"]["ledger.retentionDays"] == "project"
    assert shown["sources"]["maxFileSize"] == "defaults"
    assert len(shown["problems"]) == 1


def test_user_config_and_environment_layers(project: Path, tmp_path_factory: pytest.TempPathFactory,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path_factory.mktemp("config-home")
    (home / "codekeep").mkdir()
    (home / "codekeep" / "config.toml").write_text('[agent]\nmodel = "from-user-file"\n'
                                                   'apiKey = "sk-user-secret"\n')
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    shown = json.loads(codekeep(project, "settings", "--json").stdout)
    assert shown["settings"]["agent"]["model"] == "from-user-file"
    assert shown["settings"]["agent"]["apiKey"] == "<set>"  # never printed
    monkeypatch.setenv("CODEKEEP_MODEL", "from-environment")
    done = codekeep(project, "settings")
    assert "agent.model" in done.stdout and '"from-environment"  (environment)' in done.stdout
    assert "sk-user-secret" not in done.stdout + done.stderr
