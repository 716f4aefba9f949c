"""Removing obvious secrets from prompt/completion text before it is stored.

Content is only stored when the user opts in; even then an API key pasted into a prompt
must not end up in ``.codekeep/ledger.db``. The patterns cover well-known key formats
and ``name = value`` assignments whose name says "secret".
"""

from __future__ import annotations

import re

REDACTED = "[REDACTED]"

_TOKEN_PATTERNS = [
    re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?-----END [A-Z ]*PRIVATE KEY-----", re.S),
    re.compile(r"\bsk-(?:ant-|proj-)?[A-Za-z0-9_\-]{16,}"),          # OpenAI / Anthropic
    re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),                      # AWS access key id
    re.compile(r"\bgh[pousr]_[A-Za-z0-9]{30,}\b"),                     # GitHub tokens
    re.compile(r"\bgithub_pat_[A-Za-z0-9_]{30,}\b"),
    re.compile(r"\bxox[abposr]-[A-Za-z0-9\-]{10,}\b"),                 # Slack
    re.compile(r"\bAIza[0-9A-Za-z_\-]{35}\b"),                         # Google API key
    re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),  # JWT
    re.compile(r"(?i)\b(bearer)\s+[A-Za-z0-9._\-+/=]{16,}"),
]
_ASSIGNMENT = re.compile(
    r"(?i)\b([A-Za-z0-9_.\-]*(?:password|passwd|secret|api[_\-]?key|access[_\-]?key|token|"
    r"private[_\-]?key)[A-Za-z0-9_.\-]*)(\s*[:=]\s*)(['\"]?)([^\s'\"]{4,})\3"
)


def redact_secrets(text: str) -> str:
    """``text`` with every recognised secret replaced by ``[REDACTED]``."""
    for pattern in _TOKEN_PATTERNS:
        if pattern.groups:
            text = pattern.sub(lambda match: f"{match.group(1)} {REDACTED}", text)
        else:
            text = pattern.sub(REDACTED, text)
    return _ASSIGNMENT.sub(
        lambda match: f"{match.group(1)}{match.group(2)}{match.group(3)}{REDACTED}{match.group(3)}",
        text,
    )
