"""Fixtures for the agent tests: a scripted OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from codekeep.agent.config import ModelSettings
from codekeep.agent.scripted_server import ScriptedModelServer


@pytest.fixture
def model_server() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer() as server:
        yield server


@pytest.fixture
def model_settings(model_server: ScriptedModelServer) -> ModelSettings:
    """Settings pointing at the scripted server, with retries fast enough for tests."""
    return ModelSettings(model="scripted-model", base_url=model_server.base_url,
                         api_key="test-key", backoff_base=0.01, backoff_max=0.05,
                         timeout=10.0)
