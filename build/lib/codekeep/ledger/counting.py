"""Deciding how many tokens a call used, and how sure we are.

Provider-reported usage is the bill, so it always wins. Without it we count the text
with tiktoken in the model's encoding (offline, the bundled ``cl100k_base`` stands in
for vocabularies that are not installed); when even that fails, a CJK-aware estimate.
A record carries the weakest source that went into it, so a report can say how much of
its total is exact.
"""

from __future__ import annotations

from dataclasses import dataclass

from codekeep.common.tokens import TokenSource, count_tokens

_STRENGTH: dict[TokenSource, int] = {"provider": 2, "tiktoken": 1, "estimate": 0}


@dataclass(frozen=True, slots=True)
class Usage:
    input_tokens: int
    output_tokens: int
    cached_tokens: int
    reasoning_tokens: int
    source: TokenSource


def resolve_usage(
    *,
    encoding: str,
    input_tokens: int | None,
    output_tokens: int | None,
    cached_tokens: int,
    reasoning_tokens: int,
    prompt_text: str | None,
    completion_text: str | None,
) -> Usage:
    """Combine reported counts and texts into one validated :class:`Usage`."""
    if (type(input_tokens) is int and type(output_tokens) is int and input_tokens >= cached_tokens
            >= 0 and output_tokens >= reasoning_tokens >= 0):  # the usual provider-reported call
        return Usage(input_tokens, output_tokens, cached_tokens, reasoning_tokens, "provider")
    sources: list[TokenSource] = []
    inputs = _side("input", input_tokens, prompt_text, encoding, sources)
    outputs = _side("output", output_tokens, completion_text, encoding, sources)
    if not sources:
        raise ValueError("a call needs input_tokens/output_tokens or prompt_text/completion_text")
    for name, value in (("cached_tokens", cached_tokens), ("reasoning_tokens", reasoning_tokens)):
        if value < 0:
            raise ValueError(f"{name} must not be negative (got {value})")
    if cached_tokens > inputs:
        raise ValueError(f"cached_tokens ({cached_tokens}) exceed input tokens ({inputs})")
    if reasoning_tokens > outputs:
        raise ValueError(f"reasoning_tokens ({reasoning_tokens}) exceed output tokens ({outputs})")
    weakest = min(sources, key=_STRENGTH.__getitem__)
    return Usage(inputs, outputs, cached_tokens, reasoning_tokens, weakest)


def _side(name: str, reported: int | None, text: str | None, encoding: str,
          sources: list[TokenSource]) -> int:
    if reported is not None:
        if isinstance(reported, bool) or not isinstance(reported, int) or reported < 0:
            raise ValueError(f"{name}_tokens must be a non-negative integer (got {reported!r})")
        sources.append("provider")
        return reported
    if text is None:
        return 0
    counted = count_tokens(text, encoding)
    sources.append(counted.source)
    return counted.tokens
