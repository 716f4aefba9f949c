from __future__ import annotations

import pytest

import codekeep.common.tokens as tokens
from codekeep.ledger import Ledger
from codekeep.ledger.counting import resolve_usage

ENCODING = "o200k_base"


def usage(**given: object):  # type: ignore[no-untyped-def]
    base: dict[str, object] = {"encoding": ENCODING, "input_tokens": None,
                               "output_tokens": None, "cached_tokens": 0,
                               "reasoning_tokens": 0, "prompt_text": None,
                               "completion_text": None}
    return resolve_usage(**{**base, **given})  # type: ignore[arg-type]


def test_provider_reported_usage_wins_over_counting_the_text() -> None:
    result = usage(input_tokens=1234, output_tokens=56, prompt_text="short",
                   completion_text="short", cached_tokens=1000, reasoning_tokens=50)
    assert (result.input_tokens, result.output_tokens, result.source) == (1234, 56, "provider")
    assert (result.cached_tokens, result.reasoning_tokens) == (1000, 50)


def test_text_is_counted_with_tiktoken_offline() -> None:
    prompt = "def add(a, b):\n    return a + b\n" * 10
    result = usage(prompt_text=prompt, completion_text="ok")
    encoding = tokens.get_encoding(ENCODING)
    assert encoding is not None
    assert result.input_tokens == len(encoding.encode(prompt))
    assert result.output_tokens == len(encoding.encode("ok"))
    assert result.source == "tiktoken"


def test_without_any_encoding_a_cjk_aware_estimate_is_used(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tokens, "get_encoding", lambda name="": None)
    result = usage(prompt_text="你好世界" + "abcdefgh", output_tokens=3)
    assert result.input_tokens == 4 + 2  # one per CJK character, one per 4 others
    assert result.source == "estimate"   # the weakest source of the two sides


def test_mixed_sources_report_the_weakest() -> None:
    assert usage(input_tokens=10, completion_text="hello there").source == "tiktoken"


@pytest.mark.parametrize("given, message", [
    ({}, "needs input_tokens"),
    ({"input_tokens": -1}, "non-negative"),
    ({"input_tokens": 10, "cached_tokens": 11}, "cached_tokens"),
    ({"input_tokens": 10, "output_tokens": 2, "reasoning_tokens": 3}, "reasoning_tokens"),
    ({"input_tokens": 10, "cached_tokens": -1}, "negative"),
    ({"input_tokens": "10"}, "non-negative integer"),
])
def test_bad_counts_get_a_clear_error(given: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        usage(**given)


def test_streamed_and_retried_calls_are_separate_records(ledger: Ledger) -> None:
    first = ledger.record(task_id="t", call_type="generate_code", model="gpt-4o",
                          input_tokens=100, output_tokens=0, retry=0, latency_ms=30000)
    second = ledger.record(task_id="t", call_type="generate_code", model="gpt-4o",
                           input_tokens=100, output_tokens=80, retry=1, stream=True)
    assert first.id != second.id
    assert (second.retry, second.stream) == (1, True)
    report = ledger.report(task_id="t")
    assert report["total"] == {**report["total"], "calls": 2, "inputTokens": 200,
                               "outputTokens": 80}
