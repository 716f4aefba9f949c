"""Recognising an endpoint's "the prompt does not fit the context window" answer.

Each server words it its own way, and some send it with a status that otherwise means
"try again" (llama.cpp's 500), so it must be read before the retry decision: retrying
the same prompt can only fail the same way, while a smaller prompt can succeed. The
wordings recognised, as the servers send them:

* OpenAI (and vLLM, llama-cpp-python, OpenRouter): code ``context_length_exceeded`` /
  "This model's (endpoint's) maximum context length is 8192 tokens. However, you
  requested …" or "… your request has 9000 input tokens";
* llama.cpp's server: type ``exceed_context_size_error`` with ``n_ctx``, "the request
  exceeds the available context size", "request (4390 tokens) exceeds the available
  context size (4096 tokens)", "Context size has been exceeded.";
  llama-cpp-python: "Requested tokens (2285) exceed context window of 2048";
* Ollama: "the input length exceeds the context length";
* LM Studio: "Trying to keep the first 10136 tokens when context the overflows. However,
  the model is loaded with context length of only 7866 tokens", "Cannot truncate prompt
  with n_keep (15028) >= n_ctx (7424)", "Input length 6491 exceeds context length 1500";
* any server: HTTP 413 (payload too large).

Where the text names the window, :attr:`Overflow.window` carries it so the agent can
use the endpoint's real window from then on (:mod:`codekeep.agent.endpoint_windows`
keeps it for later runs).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

_OVERFLOW = re.compile(
    r"context_length_exceeded|exceed_context_size|maximum context length"
    r"|exceeds? the (?:available )?context (?:size|length|window)"
    r"|context size has been exceeded|exceeds? context (?:window|length)"
    r"|context the overflows|cannot truncate prompt|prompt is too long"
    r"|input length exceeds|too many tokens", re.IGNORECASE)
# The window the text names, most specific first.
_WINDOW = (
    re.compile(r"maximum context length is (\d+)", re.IGNORECASE),
    re.compile(r"available context size \((\d+) tokens?\)", re.IGNORECASE),
    re.compile(r"context length of only (\d+)", re.IGNORECASE),
    re.compile(r"context window of (\d+)", re.IGNORECASE),
    re.compile(r"exceeds context length (\d+)", re.IGNORECASE),
    re.compile(r"n_ctx\W{1,4}(\d+)", re.IGNORECASE),
)


@dataclass(frozen=True, slots=True)
class Overflow:
    """The endpoint said the request does not fit; ``window`` when it named its size."""

    message: str
    window: int | None = None


def context_overflow(status: int, text: str) -> Overflow | None:
    """The overflow an error answer reports, or None when it is some other error."""
    if status not in (400, 413, 422, 500) and status < 500:
        return None
    message = _message(text)
    if status != 413 and not _OVERFLOW.search(text):
        return None
    return Overflow(message or f"HTTP {status}: the request is too large", _window(text))


def _message(text: str) -> str:
    try:
        payload = json.loads(text)
    except ValueError:
        return text.strip()[:300]
    error = payload.get("error") if isinstance(payload, dict) else None
    if isinstance(error, dict):
        return str(error.get("message") or "")[:300]
    if isinstance(error, str):
        return error[:300]
    if isinstance(payload, dict) and payload.get("message"):  # vLLM's top-level message
        return str(payload["message"])[:300]
    return text.strip()[:300]


def _window(text: str) -> int | None:
    for pattern in _WINDOW:
        found = pattern.search(text)
        if found and int(found.group(1)) > 0:
            return int(found.group(1))
    return None
