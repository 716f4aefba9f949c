"""Which model the agent talks to (the ``agent`` section of the settings).

The agent works against any OpenAI-compatible chat-completions endpoint (OpenAI, Ollama,
vLLM, llama.cpp server, LM Studio, OpenRouter). Nothing is configured by default: an
agent entry point without a model must say how to configure one instead of guessing an
endpoint and leaking a prompt somewhere unexpected.
"""

from __future__ import annotations

from dataclasses import dataclass

from codekeep.settings.fields import setting

DEFAULT_BASE_URL = "https://api.openai.com/v1"

HOW_TO_CONFIGURE = (
    "no model is configured for the CodeKeep agent. Set CODEKEEP_MODEL (e.g. gpt-4.1-mini "
    "or qwen2.5-coder:7b), and for a non-OpenAI endpoint CODEKEEP_BASE_URL (e.g. "
    "http://localhost:11434/v1 for Ollama); the key comes from CODEKEEP_API_KEY or "
    "OPENAI_API_KEY. The same values can be given as the settings codekeep.agent.model / "
    "baseUrl / apiKey (editor settings, or [agent] in .codekeep/config.toml)."
)


class ModelNotConfigured(RuntimeError):
    """Raised by every agent entry point when no model name is configured."""

    def __init__(self, message: str = HOW_TO_CONFIGURE) -> None:
        super().__init__(message)


@dataclass(frozen=True, slots=True)
class ModelSettings:
    """Endpoint, credentials and transport behaviour of the model client (``codekeep.agent``).

    ``context_window`` overrides the model table (for local models with a custom
    ``num_ctx``); ``None`` means "look the model name up".
    """

    model: str | None = setting(
        "Model name, e.g. `gpt-4.1-mini` or `qwen2.5-coder:7b` (unset: the agent refuses "
        "and says how to configure one).", default=None, env=("CODEKEEP_MODEL",))
    base_url: str = setting(
        "OpenAI-compatible chat-completions endpoint, e.g. `http://localhost:11434/v1`.",
        default=DEFAULT_BASE_URL, env=("CODEKEEP_BASE_URL",))
    api_key: str | None = setting(
        "Key for the endpoint (better kept in the environment than in a file).",
        default=None, secret=True, env=("CODEKEEP_API_KEY", "OPENAI_API_KEY"))
    timeout: float = setting("Seconds one model call may take.", default=120.0, above=0)
    connect_timeout: float = 10.0
    max_retries: int = setting("Retries on 429, 5xx, timeouts and refused connections.",
                               default=4, minimum=0)
    backoff_base: float = 0.5
    backoff_max: float = 30.0
    stream: bool = setting("Stream replies (usage comes in the final chunk).", default=True)
    temperature: float | None = setting("Sampling temperature (unset: the endpoint's).",
                                        default=None, minimum=0)
    max_output_tokens: int | None = setting("Cap on tokens per reply (unset: none).",
                                            default=None, minimum=1)
    context_window: int | None = setting(
        "Tokens the model's window holds (unset: from the ledger's model table).",
        default=None, minimum=1)

    def require_model(self) -> str:
        """The model name, or :class:`ModelNotConfigured` explaining how to set one."""
        if not self.model or not self.model.strip():
            raise ModelNotConfigured()
        return self.model.strip()

    @property
    def chat_url(self) -> str:
        return self.base_url.rstrip("/") + "/chat/completions"
