"""The first gate of the write path: secrets never reach disk, injections never reach prompts.

Two decisions, both explained in the returned reason:

* **Redact** a credential that sits inside otherwise useful knowledge ("deploy reads
  the Stripe key sk_live_... from the env") — the secret is replaced by
  ``[REDACTED:<kind>]`` and the rest is kept, because the surrounding fact is worth
  remembering and the value itself is never needed by the agent.
* **Reject** when redaction cannot make the text safe or useful: a PEM private key
  block (multi-line key material), text that is nothing *but* a secret once redacted,
  and any credential in a preference (a preference value must never be a secret).
  Prompt-injection phrasing is rejected for preferences, and for anything written by
  a non-user source, because memories are injected into future prompts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from codekeep.memory.model import USER_SOURCES


@dataclass(frozen=True, slots=True)
class SecretPattern:
    name: str
    regex: re.Pattern[str]
    redactable: bool = True


# Real credential formats. Order matters: specific prefixes before generic ones.
SECRET_PATTERNS: tuple[SecretPattern, ...] = (
    SecretPattern(
        "private key",
        re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"),
        redactable=False,
    ),
    SecretPattern(
        "Anthropic API key", re.compile(r"\bsk-ant-(?:api|admin)\d{2}-[A-Za-z0-9_-]{20,}")
    ),
    SecretPattern(
        "OpenAI API key", re.compile(r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}")
    ),
    SecretPattern(
        "GitHub token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})")
    ),
    SecretPattern("AWS access key id", re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b")),
    SecretPattern(
        "AWS secret access key",
        re.compile(r"(?i)\baws_?secret(?:_?access)?_?key\b\s*[=:]\s*[\"']?[A-Za-z0-9/+]{40}[\"']?"),
    ),
    SecretPattern("Slack token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
    SecretPattern("Google API key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b")),
    SecretPattern("Stripe secret key", re.compile(r"\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}")),
    SecretPattern(
        "JSON Web Token",
        re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    ),
    SecretPattern(
        "connection string with credentials",
        re.compile(r"\b[a-z][a-z0-9+.-]{1,20}://[^\s:/@'\"]+:(?P<secret>[^\s@/'\"]+)@", re.I),
    ),
    SecretPattern(
        "bearer token", re.compile(r"(?i)\bbearer\s+(?P<secret>[A-Za-z0-9._~+/-]{16,}=*)")
    ),
    SecretPattern(
        "password assignment",
        re.compile(
            r"(?i)\b(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token)"
            r"\s*[=:]\s*[\"']?(?P<secret>[^\s\"',;]{4,})"
        ),
    ),
)

INJECTION_PATTERNS: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p, re.I)
    for p in (
        r"\b(?:ignore|disregard|forget|override)\b.{0,40}\b(?:previous|prior|above|earlier|all|system|your)\b.{0,20}\b(?:instructions?|prompts?|rules?|guidelines?)",
        r"\byou are now\b",
        r"\b(?:new|updated) system prompt\b",
        r"\b(?:grant|give)\b.{0,30}\b(?:permissions?|access|admin|root)\b",
        r"\b(?:you|the agent|assistant) (?:have|has|is granted) (?:full )?(?:permission|access)",
        r"\b(?:disable|turn "
        r"off|bypass|skip|circumvent)\b.{0,30}\b(?:safety|sandbox|guard(?:rail)?s?|security|approvals?|confirmations?|checks?|filters?)\b",
        r"\bwithout (?:asking|confirmation|approval|permission)\b",
        r"\b(?:always|auto(?:matically)?)[- ]approve\b",
        r"\bexfiltrat",
        r"忽略(?:之前|以上|所有)(?:的)?(?:指令|指示|规则)",
        r"不用问我|无需(?:确认|审批)",
    )
)


@dataclass(frozen=True, slots=True)
class SafetyVerdict:
    """``text`` is what may be stored (redacted); ``rejected`` carries the reason."""

    text: str
    redactions: tuple[str, ...] = ()
    rejected: str | None = None


def find_secrets(text: str) -> list[tuple[SecretPattern, re.Match[str]]]:
    found: list[tuple[SecretPattern, re.Match[str]]] = []
    for pattern in SECRET_PATTERNS:
        found.extend((pattern, m) for m in pattern.regex.finditer(text))
    return found


def redact(text: str) -> tuple[str, tuple[str, ...]]:
    """Replace every redactable secret; return the new text and the kinds replaced."""
    kinds: list[str] = []
    for pattern in SECRET_PATTERNS:
        if not pattern.redactable:
            continue

        def _sub(match: re.Match[str], name: str = pattern.name) -> str:
            kinds.append(name)
            marker = f"[REDACTED:{name}]"
            if "secret" not in match.re.groupindex:
                return marker
            # keep the label ("password=", "postgres://user:") so the fact stays readable
            start, end = match.span("secret")
            whole = match.group(0)
            return whole[: start - match.start()] + marker + whole[end - match.start() :]

        text = pattern.regex.sub(_sub, text)
    return text, tuple(kinds)


def injection_phrase(text: str) -> str | None:
    for pattern in INJECTION_PATTERNS:
        match = pattern.search(text)
        if match:
            return match.group(0)
    return None


_PLACEHOLDER = re.compile(r"\[REDACTED:[^\]]+\]")


def check(text: str, *, kind: str, source: str) -> SafetyVerdict:
    """Decide whether ``text`` may be stored, and in which (possibly redacted) form."""
    for pattern, _match in find_secrets(text):
        if not pattern.redactable:
            return SafetyVerdict(
                text, rejected=f"rejected: contains a {pattern.name}; key material is never stored"
            )
    redacted, kinds = redact(text)
    if kinds:
        if kind in ("preference", "soft_preference"):
            return SafetyVerdict(
                text, rejected=f"rejected: a preference must not contain a {kinds[0]}"
            )
        leftover = _PLACEHOLDER.sub("", redacted)
        if len([w for w in re.findall(r"\w+", leftover) if len(w) > 1]) < 3:
            return SafetyVerdict(
                text,
                rejected=f"rejected: the text is only a {kinds[0]}; nothing is left once redacted",
            )
    phrase = injection_phrase(redacted)
    if phrase and (kind in ("preference", "soft_preference") or source not in USER_SOURCES):
        return SafetyVerdict(
            text,
            rejected=f"rejected: prompt-injection phrasing ({phrase!r}) cannot become a memory",
        )
    return SafetyVerdict(redacted, kinds)
