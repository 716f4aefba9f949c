"""Which model the agent talks to, from settings or the environment.

The agent works against any OpenAI-compatible chat-completions endpoint (OpenAI, Ollama,
vLLM, llama.cpp server, LM Studio, OpenRouter). Nothing is configured by default: an
agent entry point without a model must say how to configure one instead of guessing an
endpoint and leaking a prompt somewhere unexpected.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, replace

DEFAULT_BASE_URL = "https://api.openai.com/v1"

HOW_TO_CONFIGURE = (
    "no model is configured for the CodeKeep agent. Set CODEKEEP_MODEL (e.g. gpt-4.1-mini "
    "or qwen2.5-coder:7b), and for a non-OpenAI endpoint CODEKEEP_BASE_URL (e.g. "
    "http://localhost:11434/v1 for Ollama); the key comes from CODEKEEP_API_KEY or "
    "OPENAI_API_KEY. In the editor, the same values can be given as the server settings "
    "codekeep.agent.model / baseUrl / apiKey."
)


class ModelNotConfigured(RuntimeError):
    """Raised by every agent entry point when no model name is configured."""

    def __init__(self, message: str = HOW_TO_CONFIGURE) -> None:
        super().__init__(message)


@dataclass(frozen=True, slots=True)
class ModelSettings:
    """Endpoint, credentials and transport behaviour of the model client.

    ``context_window`` overrides the model table (for local models with a custom
    ``num_ctx``); ``None`` means "look the model name up".
    """

    model: str | None = None
    base_url: str = DEFAULT_BASE_URL
    api_key: str | None = None
    timeout: float = 120.0
    connect_timeout: float = 10.0
    max_retries: int = 4
    backoff_base: float = 0.5
    backoff_max: float = 30.0
    stream: bool = True
    temperature: float | None = None
    max_output_tokens: int | None = None
    context_window: int | None = None

    @classmethod
    def from_env(
        cls, env: Mapping[str, str] | None = None, **overrides: object
    ) -> ModelSettings:
        """Settings from ``CODEKEEP_*`` variables; explicit non-``None`` overrides win."""
        source = os.environ if env is None else env
        settings = cls(
            model=source.get("CODEKEEP_MODEL") or None,
            base_url=source.get("CODEKEEP_BASE_URL") or DEFAULT_BASE_URL,
            api_key=source.get("CODEKEEP_API_KEY") or source.get("OPENAI_API_KEY") or None,
        )
        given = {key: value for key, value in overrides.items() if value is not None}
        return replace(settings, **given) if given else settings  # type: ignore[arg-type]

    @classmethod
    def from_settings(cls, section: Mapping[str, object] | None,
                      env: Mapping[str, str] | None = None) -> ModelSettings:
        """Editor settings (``codekeep.agent`` section, camelCase) over the environment."""
        section = section or {}
        unknown = set(section) - set(_SETTING_KEYS)
        if unknown:
            raise ValueError(f"unknown agent settings {sorted(unknown)}; known: "
                             f"{sorted(_SETTING_KEYS)}")
        overrides: dict[str, object] = {}
        for key, value in section.items():
            field_name, kind = _SETTING_KEYS[key]
            if value is None:
                continue
            if kind is float and isinstance(value, int) and not isinstance(value, bool):
                value = float(value)
            if not isinstance(value, kind) or isinstance(value, bool) is not (kind is bool):
                raise ValueError(f"agent setting {key!r} must be a {kind.__name__}, "
                                 f"got {value!r}")
            overrides[field_name] = value
        return cls.from_env(env, **overrides)

    def require_model(self) -> str:
        """The model name, or :class:`ModelNotConfigured` explaining how to set one."""
        if not self.model or not self.model.strip():
            raise ModelNotConfigured()
        return self.model.strip()

    @property
    def chat_url(self) -> str:
        return self.base_url.rstrip("/") + "/chat/completions"


# camelCase setting -> (field, type)
_SETTING_KEYS: dict[str, tuple[str, type]] = {
    "model": ("model", str),
    "baseUrl": ("base_url", str),
    "apiKey": ("api_key", str),
    "timeout": ("timeout", float),
    "maxRetries": ("max_retries", int),
    "stream": ("stream", bool),
    "temperature": ("temperature", float),
    "maxOutputTokens": ("max_output_tokens", int),
    "contextWindow": ("context_window", int),
}
