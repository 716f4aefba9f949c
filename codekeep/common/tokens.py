"""Counting tokens offline, in the encoding each model really uses.

tiktoken downloads its encodings at run time, which fails without a network, and even
a local file is copied into its cache directory. So the two encodings the model table
names ship inside this package (``common/encodings/*.tiktoken.gz``: OpenAI's published
files, byte for byte, checked against tiktoken's own SHA-256 on load) and the
``tiktoken.Encoding`` is built here from them: no download, no cache, nothing written.
``cl100k_base`` counts GPT-4/3.5 (and stands in for vocabularies that are not public:
Claude, local models); ``o200k_base`` counts GPT-4o, GPT-4.1, GPT-5 and the o-series.
When neither can be had we fall back to a CJK-aware estimate, and say so through
:class:`TokenCount.source`.
"""

from __future__ import annotations

import binascii
import functools
import gzip
import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    import tiktoken

TokenSource = Literal["provider", "tiktoken", "estimate"]

DEFAULT_ENCODING = "cl100k_base"
_ENDOFTEXT, _ENDOFPROMPT = "<|endoftext|>", "<|endofprompt|>"


@dataclass(frozen=True, slots=True)
class _Shipped:
    """An encoding's definition as tiktoken's ``openai_public`` gives it."""

    sha256: str
    pat_str: str
    special_tokens: dict[str, int]


_SHIPPED = {
    "cl100k_base": _Shipped(
        "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
        "|".join(
            [
                r"""'(?i:[sdmt]|ll|ve|re)""",
                r"""[^\r\n\p{L}\p{N}]?+\p{L}++""",
                r"""\p{N}{1,3}+""",
                r""" ?[^\s\p{L}\p{N}]++[\r\n]*+""",
                r"""\s++$""",
                r"""\s*[\r\n]""",
                r"""\s+(?!\S)""",
                r"""\s""",
            ]
        ),
        {
            _ENDOFTEXT: 100257,
            "<|fim_prefix|>": 100258,
            "<|fim_middle|>": 100259,
            "<|fim_suffix|>": 100260,
            _ENDOFPROMPT: 100276,
        },
    ),
    "o200k_base": _Shipped(
        "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
        "|".join(
            [
                r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
                r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
                r"""\p{N}{1,3}""",
                r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
                r"""\s*[\r\n]+""",
                r"""\s+(?!\S)""",
                r"""\s+""",
            ]
        ),
        {_ENDOFTEXT: 199999, _ENDOFPROMPT: 200018},
    ),
}

# CJK ideographs, kana and hangul: roughly one token per character in BPE vocabularies.
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")


@dataclass(frozen=True, slots=True)
class TokenCount:
    tokens: int
    source: TokenSource
    encoding: str | None


class EncodingDataError(RuntimeError):
    """A shipped encoding file is missing or does not match its published digest."""


def mergeable_ranks(name: str) -> dict[bytes, int]:
    """The BPE ranks of a shipped encoding, verified against OpenAI's published SHA-256."""
    shipped = _SHIPPED[name]
    try:
        packed = resources.files("codekeep.common").joinpath(f"encodings/{name}.tiktoken.gz")
        data = gzip.decompress(packed.read_bytes())
    except (OSError, EOFError) as exc:
        raise EncodingDataError(
            f"the {name} data shipped with CodeKeep is unreadable: {exc}"
        ) from exc
    if hashlib.sha256(data).hexdigest() != shipped.sha256:
        raise EncodingDataError(f"the {name} data shipped with CodeKeep is damaged")
    ranks: dict[bytes, int] = {}
    for line in data.splitlines():
        token, rank = line.split()
        ranks[binascii.a2b_base64(token)] = int(rank)  # base64.b64decode: 2x slower
    return ranks


@functools.lru_cache(maxsize=4)
def get_encoding(name: str = DEFAULT_ENCODING) -> tiktoken.Encoding | None:
    """The named encoding, built from the data shipped in this package; ``None`` if that
    data cannot be read. Names we do not ship resolve to ``cl100k_base``: its counts for
    English and code are within a few percent of other vocabularies, better than an
    estimate."""
    name = name if name in _SHIPPED else DEFAULT_ENCODING
    shipped = _SHIPPED[name]
    try:
        ranks = mergeable_ranks(name)
    except EncodingDataError:  # a broken install must degrade to estimates, not crash
        return None
    encoding = _shipped_encoding_class()(
        name=name,
        pat_str=shipped.pat_str,
        mergeable_ranks=ranks,
        special_tokens=shipped.special_tokens,
    )
    # tiktoken's Rust core has copied the ranks; the Encoding keeps the Python dict only
    # to pickle itself, and ours pickles by name instead. Letting it go returns ~14 MB
    # per encoding to a long-lived server (measured with cl100k_base).
    encoding._mergeable_ranks = {}
    return encoding


@functools.cache
def _shipped_encoding_class() -> type[tiktoken.Encoding]:
    """The class of a shipped encoding, made on first use: importing tiktoken costs a
    process that only estimates (a hook) a tenth of its run."""
    import tiktoken

    class ShippedEncoding(tiktoken.Encoding):
        """A shipped encoding; pickled by name (rebuilt from the package's data on the
        other side), as tiktoken pickles the encodings of its own registry."""

        def __reduce__(self) -> tuple[Any, tuple[str]]:
            return get_encoding, (self.name,)

    return ShippedEncoding


def estimate_tokens(text: str) -> int:
    """A CJK-aware estimate: one token per CJK character, one per 4 other characters."""
    if not text:
        return 0
    cjk = len(_CJK.findall(text))
    return cjk + -(-(len(text) - cjk) // 4)


_estimates_only = False


def estimate_only() -> None:
    """From now on this process estimates instead of loading an encoding: for a process
    that lives a fraction of a second (a Claude Code hook), building the BPE tables
    (~0.2-0.3 s) would cost more than all its other work; its counts say "estimate"."""
    global _estimates_only
    _estimates_only = True


def count_tokens(text: str, encoding: str = DEFAULT_ENCODING) -> TokenCount:
    """Count ``text`` with tiktoken when possible, otherwise estimate."""
    enc = None if _estimates_only else get_encoding(encoding)
    if enc is None:
        return TokenCount(estimate_tokens(text), "estimate", None)
    return TokenCount(len(enc.encode(text, disallowed_special=())), "tiktoken", enc.name)


def token_len(text: str) -> int:
    """Just the number, for budgeting code that does not care how it was counted."""
    return count_tokens(text).tokens


# OpenAI's published estimate of how function definitions are billed (the
# "How to count tokens with tiktoken" cookbook, gpt-4o family): a few framing tokens per
# function, property and enum value, plus the text of names, types and descriptions.
_FUNCTION_INIT, _PROPERTY_INIT, _PROPERTY_KEY = 7, 3, 3
_ENUM_INIT, _ENUM_ITEM, _FUNCTIONS_END = -3, 3, 12


def function_tokens(tools: Sequence[Mapping[str, Any]]) -> int:
    """Tokens the function definitions (tool schemas) of a request cost, the way the
    provider renders them — not the length of their JSON, which counts ~2× more."""
    if not tools:
        return 0
    total = _FUNCTIONS_END
    for tool in tools:
        function = tool.get("function") or {}
        total += _FUNCTION_INIT + token_len(
            f"{function.get('name', '')}:{str(function.get('description', '')).rstrip('.')}")
        properties = (function.get("parameters") or {}).get("properties") or {}
        if properties:
            total += _PROPERTY_INIT
        for key, spec in properties.items():
            total += _PROPERTY_KEY
            enum = spec.get("enum") or []
            if enum:
                total += _ENUM_INIT + sum(_ENUM_ITEM + token_len(str(item)) for item in enum)
            kind = spec.get("type", "")
            description = str(spec.get("description", "")).rstrip(".")
            total += token_len(f"{key}:{kind}:{description}")
    return total
