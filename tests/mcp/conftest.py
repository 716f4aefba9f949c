"""The project every MCP test serves: a definition in one file, its caller in another."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.agent.projects import write_shop


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = write_shop(tmp_path / "shop")
    (root / "README.md").write_text("# Shop\n\nBilling and checkout.\n")
    return root
