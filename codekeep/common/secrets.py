"""The one secret detector: which strings are credentials, and how they are hidden.

Memory's safety filter, the tools' audit log and trace, the ledger's stored prompts and
the agent's task summaries all ask this module, so a format recognised in one place is
recognised everywhere (they used to keep three tables that disagreed). A secret is
replaced by ``[REDACTED:<kind>]``; where a pattern has a ``secret`` group only that part
goes (``password=[REDACTED:…]``, ``postgres://admin:[REDACTED:…]@db``) so the
surrounding fact stays readable.

The table holds formats with a recognisable shape (vendor prefixes, JWTs, PEM blocks,
URLs with a password, AWS secret keys — 40 mixed-case base64 characters even in prose)
and ``NAME = value`` assignments whose name says it holds a secret; last, a token with no
format of its own that looks generated, a few words from a word saying it is a secret.
Order matters:
specific formats come before the generic assignment so the reported kind is precise.

Most text holds no secret, and running ~30 patterns (most start with a look-behind, which
defeats the regex engine's literal search) over every byte costs about 1 s per MB. So
each kind also names a cheap *necessary* condition: ``needles``, literal pieces one of
which every match contains (looked for in the case-folded text), and/or ``gate``, a
simpler pattern every match satisfies. A kind whose condition fails cannot match and is
skipped; a kind whose condition holds runs its full pattern over the whole text, so the
findings are exactly those of the full table (tests hold every sample of the secret
corpus to that; ``bench/secrets_bench.py`` measures both).
"""

from __future__ import annotations

import functools
import itertools
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class SecretKind:
    """One credential format. ``key_material`` marks what no redaction makes safe to keep
    alongside the text (a private key block): memory rejects it outright.

    The patterns are compiled when first needed and kept (:func:`compiled`): compiling
    the whole table cost every process ~20 ms at import, and most scans never get past
    the needles of most kinds."""

    name: str
    pattern: str
    flags: int = 0
    key_material: bool = False
    needles: tuple[str, ...] = ()  # lower-case; every match holds one (empty: no test)
    gate_pattern: str | None = None  # every match also matches this
    # The hidden part must also pass this (a shape no pattern can say: randomness).
    accept: Callable[[str], bool] | None = None

    @property
    def regex(self) -> re.Pattern[str]:
        return compiled(self.pattern, self.flags)

    def may_occur(self, text: str, folded: str) -> bool:
        """False only when ``regex`` cannot match ``text`` (``folded``: its casefold)."""
        if self.needles and not any(needle in folded for needle in self.needles):
            return False
        return (self.gate_pattern is None
                or compiled(self.gate_pattern, self.flags).search(text) is not None)


@functools.cache  # our own cache: ``re``'s holds 512 patterns and a server uses more
def compiled(pattern: str, flags: int = 0) -> re.Pattern[str]:
    return re.compile(pattern, flags)


def _kind(name: str, pattern: str, flags: int = 0, *, key_material: bool = False,
          needles: tuple[str, ...] = (), gate: str | None = None,
          accept: Callable[[str], bool] | None = None) -> SecretKind:
    return SecretKind(name, pattern, flags, key_material, needles, gate, accept)


# Not part of a token: the characters around a prefixed token must not extend it.
_L = r"(?<![A-Za-z0-9_-])"
_R = r"(?![A-Za-z0-9_-])"

# Names whose value is a secret: the keyword ends the name (``MY_API_KEY``,
# ``client_secret``, ``PGPASSWORD``, ``SECRET_KEY_BASE``), so ``max_tokens`` or
# ``token_count`` are not. ``pass``/``pwd`` count only as a whole name part.
_NAME = (
    r"[A-Za-z0-9_.-]*?"
    r"(?:password|passwd|passphrase|secret|api[_-]?key|apikey|access[_-]?key|private[_-]?key"
    r"|account[_-]?key|signing[_-]?key|encryption[_-]?key|token|auth|credentials?"
    r"|(?:(?<=[_.-])|(?<![A-Za-z0-9]))(?:pass|pwd|pw))"
    r"(?:[_-]?(?:key|base|value|id|b64)){0,2}"
    r"(?![A-Za-z0-9])"
)
# Quotes may arrive escaped (``\\"``) when the text is JSON inside JSON (tool calls).
_VALUE = (
    r"(?:\\*\"(?P<secret_dq>[^\"\n]{3,}?)\\*\"|\\*'(?P<secret_sq>[^'\n]{3,}?)\\*'"
    r"|(?P<secret>[^\s\"'`,;&<>()\[\]{}]{4,}+)(?!\())"
)

# Secrets in prose: a word that says a secret is near ("the AWS secret key Hk7Pq…",
# "Hk7Pq… is the deploy token") and a long token, within a few words either way on
# lines of one paragraph. The token must then look random (:func:`looks_random`):
# the words alone would take class names such as BCryptSHA256PasswordHasher.
_PROSE_WORD = (r"\b(?:secrets?|keys?|tokens?|passwords?|passwd|passphrase|credentials?"
               r"|api[ _-]?key|apikey|pwd)\b")
# Not part of a dotted name either (a sentence's full stop may follow).
_PROSE_TOKEN = (r"(?<![A-Za-z0-9+/=_.-])(?=[A-Za-z0-9+/_-]*\d)[A-Za-z0-9+/_-]{20,}={0,2}"
                r"(?![A-Za-z0-9+/=_-]|\.\w)")
_PROSE_GAP = r"(?:[^\n]|\n(?![^\S\n]*\n)){0,%d}?"  # no blank line: the same paragraph
_PROSE = (f"(?i){_PROSE_WORD}{_PROSE_GAP % 40}(?P<secret_after>{_PROSE_TOKEN})"
          f"|(?P<secret_before>{_PROSE_TOKEN}){_PROSE_GAP % 30}{_PROSE_WORD}")


def looks_random(token: str) -> bool:
    """A run of 20+ characters between separators that mixes letters and digits often
    (at least four switches) and spreads over many symbols (Shannon entropy of 3.5 bits
    a character or more) — a generated key, not a name, a version or a word with a
    number (``Draft202012Validator``, ``object_id_refs_id_5e8f10c1``)."""
    for run in re.split(r"[_-]+", token.rstrip("=")):
        if len(run) < 20:
            continue
        classes = ["d" if c.isdigit() else "a" for c in run if c.isalnum()]
        switches = sum(1 for left, right in itertools.pairwise(classes)
                       if left != right)
        counts = [run.count(c) for c in set(run)]
        entropy = -sum(n / len(run) * math.log2(n / len(run)) for n in counts)
        if switches >= 4 and entropy >= 3.5:
            return True
    return False


TABLE: tuple[SecretKind, ...] = (
    _kind(
        "private key",
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
        r"(?:.*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|.*\Z)",
        re.S,
        key_material=True,
        needles=("private key",),
    ),
    _kind("age secret key", r"\bAGE-SECRET-KEY-1[0-9A-Z]{50,}",
          needles=("age-secret-key-1",)),
    _kind("Anthropic API key", _L + r"sk-ant-[a-z]+\d*-[A-Za-z0-9_-]{20,}",
          needles=("sk-ant-",)),
    _kind("OpenAI API key", _L + r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}",
          needles=("sk-",)),
    _kind("Stripe secret key", _L + r"(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}",
          needles=("k_live_", "k_test_")),
    _kind("Stripe webhook secret", _L + r"whsec_[A-Za-z0-9]{24,}",
          needles=("whsec_",)),
    _kind("GitHub token", _L + r"(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})",
          needles=("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_")),
    _kind("GitLab token", _L + r"gl(?:pat|dt|rt|ptt)-[A-Za-z0-9_-]{20,}",
          needles=("glpat-", "gldt-", "glrt-", "glptt-")),
    _kind("npm token", _L + r"npm_[A-Za-z0-9]{36,}" + _R, needles=("npm_",)),
    _kind("Hugging Face token", _L + r"hf_[A-Za-z0-9]{30,}" + _R, needles=("hf_",)),
    _kind("PyPI token", _L + r"pypi-AgE[A-Za-z0-9_-]{50,}", needles=("pypi-age",)),
    _kind("SendGrid API key", _L + r"SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{20,}",
          needles=("sg.",)),
    _kind("DigitalOcean token", _L + r"do[opr]_v1_[a-f0-9]{64}", needles=("_v1_",)),
    _kind("Shopify token", _L + r"shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}",
          needles=("shpat_", "shpss_", "shpca_", "shppa_")),
    _kind("Slack token", _L + r"(?:xox[abposre]|xapp)-[A-Za-z0-9-]{10,}",
          needles=("xox", "xapp-")),
    _kind(
        "Slack webhook URL",
        r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]{10,}",
        needles=("hooks.slack.com/",),
    ),
    _kind(
        "Discord webhook URL",
        r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_-]{20,}",
        needles=("/api/webhooks/",),
    ),
    _kind("Telegram bot token", r"(?<![0-9])\d{8,10}:AA[A-Za-z0-9_-]{33}" + _R,
          needles=(":aa",)),
    _kind("Google API key", _L + r"AIza[0-9A-Za-z_-]{35}" + _R, needles=("aiza",)),
    _kind("Google OAuth client secret", _L + r"GOCSPX-[A-Za-z0-9_-]{24,}",
          needles=("gocspx-",)),
    _kind("AWS access key id", r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|APKA)[0-9A-Z]{16}\b",
          needles=("akia", "asia", "abia", "acca", "agpa", "aida", "aroa", "anpa", "apka")),
    # 40 base64 characters with upper, lower and a digit: the shape of an AWS secret
    # access key, caught in prose too ("the secret is wJalr…"); hex hashes never match.
    _kind(
        "AWS secret access key",
        r"(?<![A-Za-z0-9/+=])(?=[A-Za-z0-9/+]{0,39}[0-9])(?=[A-Za-z0-9/+]{0,39}[a-z])"
        r"(?=[A-Za-z0-9/+]{0,39}[A-Z])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])",
        gate=r"[A-Za-z0-9/+]{40}",
    ),
    _kind(
        "JSON Web Token",
        _L + r"eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
        needles=("eyj",),
    ),
    _kind(
        "connection string with credentials",
        r"\b[a-z][a-z0-9+.-]{1,20}://[^\s:/@'\"]*:(?P<secret>[^\s@/'\"]+)@",
        re.I,
        needles=("://",),
        gate=r"://[^\s:/@'\"]*:[^\s@/'\"]+@",
    ),
    _kind(
        "authorization header",
        r"(?i)\bauthorization\s*[:=]\s*[\"']?(?:bearer|basic|token|digest)\s+"
        r"(?P<secret>[^\s\"']+)",
        needles=("authorization",),
    ),
    _kind("bearer token", r"(?i)\bbearer\s+(?P<secret>[A-Za-z0-9._~+/-]{16,}=*)",
          needles=("bearer",)),
    _kind(
        "secret option",
        r"(?i)(?<!\S)--?[A-Za-z0-9_-]*(?:password|passwd|token|secret|api[_-]?key)"
        r"(?:=|\s+)(?P<secret>[^\s\"'-][^\s\"']{3,})",
        needles=("password", "passwd", "token", "secret", "api"),
        gate=r"(?i)-[A-Za-z0-9_-]*(?:password|passwd|token|secret|api[_-]?key)(?:=|\s)",
    ),
    _kind(
        "secret assignment",
        r"(?i)(?<![A-Za-z0-9_.-])" + _NAME + r"(?:\\*[\"'])?\s*(?:=>|:=|[:=])\s*" + _VALUE,
        needles=("pass", "pw", "secret", "key", "token", "auth", "credential"),
        # A name part, at most 18 more name characters, an optional quote, the sign.
        gate=r"(?i)(?:pass|pw|secret|key|token|auth|credential)[A-Za-z0-9_-]{0,18}"
             r"(?:\\*[\"'])?\s*[:=]",
    ),
    _kind("secret in prose", _PROSE,
          needles=("secret", "key", "token", "passw", "passphrase", "credential", "pwd"),
          gate=r"[A-Za-z0-9+/_-]{20}", accept=looks_random),
)

# Values an assignment may hold that are not secrets: placeholders, references, flags.
_NOT_A_VALUE = (  # compiled on first use, as the table's patterns
    r"(?i)^(?:true|false|null|none|nil|yes|no|on|off|required|optional|string|str|bytes"
    r"|\*+|x{3,}|\.{3}|<[^>]*>|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|\{\{.*\}\}|%\([^)]*\)s"
    r"|\[REDACTED.*|(?:os|self|settings|config|env|process|cls|args)\..*)$"
)

# Key names whose value is a secret in structured data (tool arguments, env variables).
_SECRET_NAME = (
    r"(?i)(?:pass(?:word|wd|phrase)?|pwd|secret|token|api[_-]?key|apikey|auth|credential"
    r"|private[_-]?key|access[_-]?key|(?:^|[_.-])key(?:s?$|[_.-]))"
)

MARKER_PREFIX = "[REDACTED"


def marker(kind: str) -> str:
    """What a secret of ``kind`` is replaced by."""
    return f"{MARKER_PREFIX}:{kind}]"


@dataclass(frozen=True, slots=True)
class Finding:
    """One secret in a text: its kind and the span to hide."""

    kind: SecretKind
    start: int
    end: int


def _secret_span(kind: SecretKind, match: re.Match[str]) -> tuple[int, int] | None:
    """The part of ``match`` to hide, or None when the value is a placeholder (or not
    what ``kind`` accepts)."""
    for name, index in match.re.groupindex.items():
        if name.startswith("secret") and match.start(index) != -1:
            value = match.group(index)
            if compiled(_NOT_A_VALUE).match(value) or (kind.accept and not kind.accept(value)):
                return None
            return match.span(index)
    return match.span()


def find(text: str) -> list[Finding]:
    """Every secret in ``text``, in table order, spans not overlapping earlier finds."""
    folded = text.casefold()  # casefold, not lower: re.I matches "ſ" to "s", "K" to "k"
    return scan(text, [kind for kind in TABLE if kind.may_occur(text, folded)])


def scan(text: str, kinds: Sequence[SecretKind]) -> list[Finding]:
    """The findings of ``kinds``' full patterns in ``text`` (``find`` passes the kinds its
    prefilter kept; passing ``TABLE`` runs every pattern, the reference it must equal)."""
    found: list[Finding] = []
    for kind in kinds:
        for match in kind.regex.finditer(text):
            span = _secret_span(kind, match)
            if span is None or any(f.start < span[1] and span[0] < f.end for f in found):
                continue
            found.append(Finding(kind, *span))
    return found


def redact(text: str, *, to: Callable[[str], str] = marker) -> tuple[str, tuple[str, ...]]:
    """``text`` with every secret replaced by ``to(kind)``, and the kinds replaced."""
    findings = sorted(find(text), key=lambda f: f.start)
    if not findings:
        return text, ()
    parts: list[str] = []
    position = 0
    for finding in findings:
        parts.append(text[position : finding.start])
        parts.append(to(finding.kind.name))
        position = finding.end
    parts.append(text[position:])
    return "".join(parts), tuple(f.kind.name for f in findings)


def redact_text(text: str) -> str:
    """``text`` with every secret replaced (the kinds are not needed)."""
    return _redact_short(text) if len(text) <= _REMEMBERED_LENGTH else redact(text)[0]


# Short texts (the code map's signatures) come back on every keystroke in their file:
# their redaction is remembered rather than the whole table of patterns run again.
_REMEMBERED_LENGTH = 512


@functools.lru_cache(maxsize=4096)
def _redact_short(text: str) -> str:
    return redact(text)[0]


def is_secret_name(name: str) -> bool:
    """A field or environment variable name that says its value is a secret."""
    return bool(compiled(_SECRET_NAME).search(name))


def redact_value(value: Any) -> Any:
    """A copy of structured ``value`` (JSON-like) with secret-named fields and every
    secret inside strings replaced."""
    if isinstance(value, dict):
        return {
            k: marker("secret field")
            if isinstance(k, str) and is_secret_name(k) and v not in (None, "", [], {})
            else redact_value(v)
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [redact_value(v) for v in value]
    if isinstance(value, str):
        return redact_text(value)
    return value
