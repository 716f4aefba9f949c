"""The context windows endpoints named when they refused a prompt, kept across runs.

A local server (llama.cpp, Ollama, LM Studio) loads a model with whatever context size
it was started with, so the model table's window is only a guess; the real one is
learned the first time the endpoint refuses a prompt as too long and names its size
(:mod:`codekeep.agent.overflow`). Kept only in memory, every new ``codekeep agent``
process would send one prompt too many again and pay a refused request and a harder
compression for it. So the learned window is written to ``.codekeep/endpoints.json``,
one entry per endpoint and model, and every later task on the same endpoint and model
— in this process or the next — starts from it.

The file is small and written whole (atomically). Two processes learning at the same
moment may keep only one of their entries: the other is learned again at its next
refusal, which costs what not keeping it would have. A damaged or foreign file is
treated as empty (and replaced at the next learning), never a reason to fail a task.
"""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path
from typing import Any

from codekeep.common.atomic import write_atomically
from codekeep.common.workspace import STATE_DIR_NAME, state_dir

log = logging.getLogger(__name__)

FILE_NAME = "endpoints.json"
_VERSION = 1


def _key(base_url: str, model: str) -> tuple[str, str]:
    return base_url.rstrip("/"), model


class EndpointWindows:
    """The learned windows of one workspace (``<root>/.codekeep/endpoints.json``)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.path = root / STATE_DIR_NAME / FILE_NAME

    def window(self, base_url: str, model: str) -> int | None:
        """The window this endpoint named for ``model``, or None when it never did."""
        entry = self._entries().get(_key(base_url, model))
        return None if entry is None else int(entry["contextWindow"])

    def learn(self, base_url: str, model: str, window: int) -> None:
        """Keep the window the endpoint named; later tasks on it start from this one."""
        if window <= 0:
            raise ValueError(f"a context window is a positive number of tokens, not {window}")
        entries = self._entries()
        key = _key(base_url, model)
        if key in entries and entries[key]["contextWindow"] == window:
            return
        entries[key] = {"baseUrl": key[0], "model": model, "contextWindow": window,
                        "learned": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        payload = {"version": _VERSION, "endpoints": list(entries.values())}
        state_dir(self.root)  # the folder and its .gitignore; refuses / and home folders
        write_atomically(self.path, (json.dumps(payload, indent=2) + "\n").encode("utf-8"))

    def _entries(self) -> dict[tuple[str, str], dict[str, Any]]:
        """The well-formed entries of the file by (endpoint, model); others are dropped."""
        try:
            payload = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            log.warning("%s is unreadable (%s): learned context windows start over",
                        self.path, exc)
            return {}
        listed = payload.get("endpoints") if isinstance(payload, dict) else None
        entries: dict[tuple[str, str], dict[str, Any]] = {}
        for entry in listed if isinstance(listed, list) else []:
            if not isinstance(entry, dict):
                continue
            size, url, model = entry.get("contextWindow"), entry.get("baseUrl"), entry.get("model")
            if isinstance(size, int) and not isinstance(size, bool) and size > 0 \
                    and isinstance(url, str) and isinstance(model, str):
                entries[_key(url, model)] = entry
        return entries
