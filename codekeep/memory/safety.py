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

What counts as a secret is :mod:`codekeep.common.secrets`, the table the ledger and the
tools' audit log use too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from codekeep.common import secrets
from codekeep.common.secrets import redact
from codekeep.memory.model import USER_SOURCES

__all__ = ["SafetyVerdict", "check", "injection_phrase", "reads_as_order", "redact"]


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


def injection_phrase(text: str) -> str | None:
    for pattern in INJECTION_PATTERNS:
        match = pattern.search(text)
        if match:
            return match.group(0)
    return None


# Beyond the injection patterns: text that tells the model what to run or which tools
# and permissions it has. A user may store such a memory (it is their note), but it is
# never handed to a model as memory: not injected by a hook, not answered by recall.
_ORDERS = tuple(re.compile(pattern, re.IGNORECASE) for pattern in (
    r"\balways (?:run|execute|call|invoke|use the \S+ tool|approve|allow)\b",
    r"\b(?:you|the (?:agent|assistant|model)) (?:must|should|shall) (?:now |always |never )?"
    r"(?:run|execute|call|ignore|obey|follow|use)\b",
    r"\b(?:allow|permit|enable|grant|add)\b.{0,30}\b(?:tools?|permissions?|allowedtools"
    r"|--dangerously|bypasspermissions)\b",
    r"\b(?:disallow|remove|revoke|deny)\b.{0,30}\b(?:tools?|permissions?)\b",
    r"\bdangerously-skip-permissions\b|\bpermission[_ ]?mode\b",
    r"\b(?:system|developer) (?:prompt|message)\b",
    r"</?codekeep-memory",
))


def reads_as_order(text: str) -> str | None:
    """The phrase that makes ``text`` read like an instruction to the model, if any:
    memory handed to a model is data, so such a memory is withheld from it."""
    phrase = injection_phrase(text)
    if phrase:
        return phrase
    for pattern in _ORDERS:
        match = pattern.search(text)
        if match:
            return match.group(0)
    return None


_PLACEHOLDER = re.compile(r"\[REDACTED:[^\]]+\]")


def check(text: str, *, kind: str, source: str) -> SafetyVerdict:
    """Decide whether ``text`` may be stored, and in which (possibly redacted) form."""
    for finding in secrets.find(text):
        if finding.kind.key_material:
            return SafetyVerdict(
                text,
                rejected=f"rejected: contains a {finding.kind.name}; key material is never stored",
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
