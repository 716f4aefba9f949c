"""Deterministic text handling for the write path: canonical form, tokens, similarity.

Similarity is lexical on purpose (no model, no network, same answer every run):
content is lower-cased, split on anything that is not a letter, digit or ``_``,
stop words are dropped, each token is "stemmed lite" (a few English suffixes cut:
``-ing``, ``-ed``, ``-es``, ``-s``, ``-ly``) and the similarity of two memories is the
Jaccard index of their token *sets* (|A ∩ B| / |A ∪ B|). Negation words are kept
out of the token set and tracked separately as polarity, so "use pnpm" and
"don't use pnpm" have the same subject (similarity 1.0) and opposite polarity —
which is exactly the negation conflict the state machine supersedes on.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

_WORD = re.compile(r"[^\W_]+(?:_[^\W_]+)*|[\u3400-\u9fff]", re.UNICODE)
_SPACE = re.compile(r"\s+")
_QUOTES = str.maketrans({"‘": "'", "’": "'", "“": '"', "”": '"', "`": "`"})

STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "of",
        "to",
        "in",
        "on",
        "at",
        "for",
        "by",
        "with",
        "from",
        "as",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "we",
        "our",
        "you",
        "your",
        "i",
        "me",
        "my",
        "they",
        "them",
        "their",
        "he",
        "she",
        "his",
        "her",
        "should",
        "must",
        "can",
        "could",
        "would",
        "will",
        "shall",
        "may",
        "might",
        "please",
        "always",
        "also",
        "just",
        "then",
        "than",
        "so",
        "if",
        "into",
        "onto",
        "about",
        "over",
        "under",
        "via",
        "per",
    ]
)
# Words that flip the meaning of a statement.
_NEGATIONS_EN = frozenset(
    [
        "not",
        "no",
        "never",
        "dont",
        "don't",
        "doesnt",
        "doesn't",
        "didnt",
        "didn't",
        "avoid",
        "stop",
        "without",
        "cannot",
        "can't",
        "shouldnt",
        "shouldn't",
        "mustnt",
        "mustn't",
        "wont",
        "won't",
        "isnt",
        "isn't",
        "arent",
        "aren't",
        "nor",
    ]
)
_NEGATION_PHRASES = re.compile(
    r"\b(?:do|does|did|should|must|can|will|is|are)\s+not\b|\bno\s+longer\b"
)
_NEGATIONS_ZH = ("不要", "不用", "禁止", "别", "不")


def normalise_whitespace(text: str) -> str:
    """Unicode NFC, straight quotes, single spaces, no trailing sentence punctuation."""
    text = unicodedata.normalize("NFC", text).translate(_QUOTES)
    return _SPACE.sub(" ", text).strip()


def canonical_content(text: str) -> str:
    """The form stored as ``content``: whitespace collapsed, one trailing period dropped."""
    text = normalise_whitespace(text)
    return text[:-1].rstrip() if text.endswith((".", "。")) and not text.endswith("..") else text


def stem(token: str) -> str:
    """Stemming-lite: cut one common English suffix when enough of the word remains."""
    for suffix in ("ing", "ed", "es", "ly", "s"):
        if token.endswith(suffix) and len(token) - len(suffix) >= 3:
            if suffix == "s" and token.endswith("ss"):
                return token
            return token[: -len(suffix)]
    return token


def raw_tokens(text: str) -> list[str]:
    """Lower-cased word tokens, apostrophes removed ("don't" -> "dont")."""
    return _WORD.findall(normalise_whitespace(text).lower().replace("'", ""))


@dataclass(frozen=True, slots=True)
class Analysed:
    """Everything the state machine needs to know about a piece of text."""

    tokens: tuple[str, ...]  # ordered, stemmed, no stop words, no negations
    negated: bool

    @property
    def token_set(self) -> frozenset[str]:
        return frozenset(self.tokens)


def analyse(text: str) -> Analysed:
    lowered = normalise_whitespace(text).lower()
    words = raw_tokens(lowered)
    negations = [w for w in words if w in _NEGATIONS_EN]
    negated = bool(negations or _NEGATION_PHRASES.search(lowered))
    if not negated and any(marker in lowered for marker in _NEGATIONS_ZH):
        negated = True
    tokens = tuple(stem(w) for w in words if w not in STOP_WORDS and w not in _NEGATIONS_EN)
    return Analysed(tokens, negated)


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a and not b:
        return 1.0
    union = a | b
    return len(a & b) / len(union) if union else 0.0


def similarity(a: str, b: str) -> float:
    """Jaccard similarity of the canonical token sets of two texts (0..1)."""
    return jaccard(analyse(a).token_set, analyse(b).token_set)


def positive_form(text: str) -> str:
    """The statement with its English negation removed ("don't use pnpm" -> "use pnpm").

    Lets a negated sentence be matched against the catalog rules that recognise the
    positive one, so "never use pnpm" is known to talk about ``package_manager``.
    """
    lowered = _NEGATION_PHRASES.sub(" ", normalise_whitespace(text).lower())
    kept = [word for word in lowered.split() if word not in _NEGATIONS_EN]
    return " ".join(kept)


def same_subject(a: Analysed, b: Analysed) -> bool:
    """True when two statements talk about the same thing (negation conflict test).

    The smaller token set must be (almost) inside the larger (overlap coefficient
    ≥ 0.8) and the sets must not be dominated by unrelated words (Jaccard ≥ 0.5), so
    "don't use pnpm" conflicts with "use pnpm for installs" but "don't commit" does not
    conflict with "commit messages follow the conventional style".
    """
    sa, sb = a.token_set, b.token_set
    if not sa or not sb:
        return False
    overlap = len(sa & sb) / min(len(sa), len(sb))
    return overlap >= 0.8 and jaccard(sa, sb) >= 0.5


def fingerprint(kind: str, key: str | None, value: str | None, text: str) -> str:
    """Identity of a memory's meaning: same fingerprint means REINFORCE, not a new row.

    Keyed memories are identified by key and value (wording does not matter); others
    by their ordered canonical tokens plus polarity.
    """
    if key:
        basis = f"{kind}\x00{key}\x00{normalise_whitespace(value or '').lower()}"
    else:
        analysed = analyse(text)
        basis = f"{kind}\x00{'!' if analysed.negated else ''}{' '.join(analysed.tokens)}"
    return hashlib.sha256(basis.encode("utf-8")).hexdigest()[:32]


def fts_words(text: str, limit_terms: int = 24) -> list[str]:
    """The distinct words of ``text`` a search looks for (stop words dropped)."""
    seen: list[str] = []
    for word in raw_tokens(text):
        if word in STOP_WORDS or word in seen:
            continue
        seen.append(word)
        if len(seen) >= limit_terms:
            break
    return seen


def match_any(words: Sequence[str]) -> str:
    """An FTS5 MATCH expression OR-ing ``words`` (safe quoting)."""
    return " OR ".join('"' + w.replace('"', '""') + '"' for w in words)


def fts_query(text: str, limit_terms: int = 24) -> str:
    """An FTS5 MATCH expression OR-ing the distinct words of ``text``."""
    return match_any(fts_words(text, limit_terms))
