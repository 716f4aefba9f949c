"""Redact secrets from tool arguments before they are written to the audit log or trace."""

from __future__ import annotations

import re
from typing import Any

REDACTED = "[REDACTED]"
_SECRET_KEY = re.compile(
    r"(pass(word|wd)?|secret|token|api[_-]?key|auth|credential|private[_-]?key)", re.I
)
_SECRET_VALUES = (
    re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(-----END [A-Z ]*PRIVATE KEY-----|\Z)", re.S),
    re.compile(r"\b(sk|pk|rk)-[A-Za-z0-9_\-]{16,}"),  # OpenAI / Stripe style
    re.compile(r"\bgh[pousr]_[A-Za-z0-9]{20,}"),  # GitHub tokens
    re.compile(r"\bxox[abpr]-[A-Za-z0-9\-]{10,}"),  # Slack
    re.compile(r"\bAKIA[0-9A-Z]{16}\b"),  # AWS access key id
    re.compile(r"\bAIza[0-9A-Za-z_\-]{30,}"),  # Google API key
    re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=\-]{12,}"),
    re.compile(r"(?i)(?<=://)[^/\s:@]+:[^/\s@]+(?=@)"),  # user:password@ in URLs
)
# key=value pairs inside free text (commands, URLs): keep the key, hide the value.
_SECRET_ASSIGNMENT = re.compile(
    r"(?i)\b((?:[a-z0-9_]*_)?(?:password|passwd|secret|token|api_?key))([=:]\s*)[^\s&\"']+"
)


def redact(value: Any) -> Any:
    """A copy of ``value`` with secret-named keys and secret-looking strings replaced."""
    if isinstance(value, dict):
        return {
            k: REDACTED if isinstance(k, str) and _SECRET_KEY.search(k) and v else redact(v)
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [redact(v) for v in value]
    if isinstance(value, str):
        return redact_text(value)
    return value


def redact_text(text: str) -> str:
    for pattern in _SECRET_VALUES:
        text = pattern.sub(REDACTED, text)
    return _SECRET_ASSIGNMENT.sub(lambda m: f"{m.group(1)}{m.group(2)}{REDACTED}", text)
