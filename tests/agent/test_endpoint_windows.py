"""The windows endpoints named are kept per endpoint and model in .codekeep/endpoints.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codekeep.agent.endpoint_windows import EndpointWindows


def test_a_learned_window_is_read_back_by_a_new_reader(tmp_path: Path):
    EndpointWindows(tmp_path).learn("http://127.0.0.1:8080/v1/", "gemma", 4096)
    again = EndpointWindows(tmp_path)
    assert again.window("http://127.0.0.1:8080/v1", "gemma") == 4096
    assert again.window("http://127.0.0.1:8080/v1", "qwen") is None  # another model
    assert again.window("http://127.0.0.1:9090/v1", "gemma") is None  # another endpoint
    assert (tmp_path / ".codekeep" / ".gitignore").exists()


def test_learning_again_replaces_that_entry_and_keeps_the_others(tmp_path: Path):
    windows = EndpointWindows(tmp_path)
    windows.learn("http://127.0.0.1:8080/v1", "gemma", 4096)
    windows.learn("http://localhost:11434/v1", "qwen", 32768)
    windows.learn("http://127.0.0.1:8080/v1", "gemma", 2048)
    assert windows.window("http://127.0.0.1:8080/v1", "gemma") == 2048
    assert windows.window("http://localhost:11434/v1", "qwen") == 32768
    assert len(json.loads(windows.path.read_text())["endpoints"]) == 2


@pytest.mark.parametrize("text", ["{not json", "[1, 2]", '{"endpoints": [{"baseUrl": 3}]}',
                                  '{"endpoints": [{"baseUrl": "u", "model": "m", '
                                  '"contextWindow": -5}]}'])
def test_a_damaged_file_is_no_window_and_is_replaced_at_the_next_learning(tmp_path: Path,
                                                                          text: str):
    windows = EndpointWindows(tmp_path)
    windows.path.parent.mkdir()
    windows.path.write_text(text)
    assert windows.window("u", "m") is None
    windows.learn("u", "m", 1024)
    assert windows.window("u", "m") == 1024


def test_a_window_that_is_no_size_is_refused(tmp_path: Path):
    with pytest.raises(ValueError, match="positive number of tokens"):
        EndpointWindows(tmp_path).learn("u", "m", 0)
    assert not (tmp_path / ".codekeep").exists()
