"""Fixtures shared by every test area (each area keeps its own conftest beside its tests)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture(autouse=True)
def isolated_user_data(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """User-scope data (memories that follow the developer) never touches the real home,
    and neither the developer's user config nor their CODEKEEP_* / OPENAI_API_KEY
    variables change what a test sees (they are settings layers). Each test gets its own
    empty parse cache (``CODEKEEP_PARSE_CACHE``) and vector cache
    (``CODEKEEP_VECTOR_CACHE``), so no test reuses another's facts or vectors. The
    installed local model is not chosen by default (``CODEKEEP_LOCAL_MODEL=off``): a test
    sees the lexical ranking it asserts unless it asks for embeddings."""
    data_home = tmp_path_factory.mktemp("xdg-data")
    monkeypatch.setenv("XDG_DATA_HOME", str(data_home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("xdg-config")))
    for name in [n for n in os.environ if n.startswith("CODEKEEP_") or n == "OPENAI_API_KEY"]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("CODEKEEP_LOCAL_MODEL", "off")
    monkeypatch.setenv("CODEKEEP_PARSE_CACHE", str(tmp_path_factory.mktemp("parse-cache")))
    monkeypatch.setenv("CODEKEEP_VECTOR_CACHE",
                       str(tmp_path_factory.mktemp("vector-cache") / "vectors.db"))
    return data_home


@pytest.fixture(scope="session")
def minilm() -> Any:
    """The in-process embedding model. ``scripts/test`` installs it; a developer's venv
    without it skips the tests that need it, CI (``CI`` set) fails them instead."""
    from codekeep.embeddings.local_model import LocalModelUnavailable, shared_model

    try:
        return shared_model()
    except LocalModelUnavailable as error:
        if os.environ.get("CI"):
            pytest.fail(f"scripts/test installs the local model: {error}")
        pytest.skip(str(error))
