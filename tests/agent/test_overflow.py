"""Each server's "the prompt does not fit" answer is recognised, with the window it names."""

from __future__ import annotations

import json

import pytest

from codekeep.agent.overflow import context_overflow


@pytest.mark.parametrize(("status", "text", "window"), [
    (400, json.dumps({"error": {"message": "This model's maximum context length is 4096 "
                                "tokens. However, you requested 5015 tokens (5010 in the "
                                "messages, 5 in the completion).", "code":
                                "context_length_exceeded"}}), 4096),  # llama-cpp-python
    (400, json.dumps({"error": {"code": 400, "message": "request (4390 tokens) exceeds the "
                                "available context size (4096 tokens), try increasing it",
                                "type": "exceed_context_size_error", "n_prompt_tokens": 4390,
                                "n_ctx": 4096}}), 4096),  # llama.cpp server
    (500, json.dumps({"error": {"code": 500, "message": "Context size has been exceeded.",
                                "type": "server_error"}}), None),
    (400, json.dumps({"object": "error", "message": "This model's maximum context length is "
                      "2048 tokens. However, your request has 8 input tokens plus 2045 "
                      "'max_tokens'.", "type": "BadRequestError"}), 2048),  # vLLM
    (500, json.dumps({"error": "the input length exceeds the context length"}), None),  # Ollama
    (400, json.dumps({"error": "Cannot truncate prompt with n_keep (15028) >= n_ctx (7424)"}),
     7424),  # LM Studio
    (400, json.dumps({"error": {"message": "Input length 6491 exceeds context length 1500"}}),
     1500),
    (400, json.dumps({"error": {"message": "This endpoint's maximum context length is 40960 "
                                "tokens. However, you requested about 42988 tokens (38892 of "
                                "text input, 4096 in the output)."}}), 40960),  # OpenRouter
    (413, "<html>Request Entity Too Large</html>", None),
])
def test_every_servers_wording_is_an_overflow(status, text, window):
    overflow = context_overflow(status, text)
    assert overflow is not None and overflow.window == window


@pytest.mark.parametrize(("status", "text"), [
    (500, json.dumps({"error": {"message": "CUDA out of memory"}})),
    (400, json.dumps({"error": {"message": "tools[0].function.name is invalid"}})),
    (401, json.dumps({"error": {"message": "maximum context length is 10 tokens"}})),
    (429, json.dumps({"error": {"message": "rate limited"}})),
])
def test_other_errors_are_not(status, text):
    assert context_overflow(status, text) is None
