from __future__ import annotations

import pytest

from codekeep.ledger import Ledger, LedgerSettings, Price, model_info
from codekeep.ledger.prices import ModelTable


@pytest.mark.parametrize("model, pattern, encoding, window", [
    ("gpt-4o-mini-2024-07-18", "gpt-4o-mini*", "o200k_base", 128_000),
    ("gpt-4o", "gpt-4o*", "o200k_base", 128_000),
    ("GPT-4-0613", "gpt-4*", "cl100k_base", 8192),
    ("claude-sonnet-4-5-20250929", "claude-sonnet-4*", "cl100k_base", 200_000),
    ("qwen2.5-coder:7b", "*qwen*", "cl100k_base", 32_768),
    ("my-local-model", "*", "cl100k_base", 8192),
])
def test_most_specific_model_entry_wins(model: str, pattern: str, encoding: str,
                                        window: int) -> None:
    info = model_info(model)
    assert (info.pattern, info.encoding, info.context_window) == (pattern, encoding, window)


def test_price_math_bills_cached_input_at_the_cached_rate() -> None:
    price = Price(input=2.50, output=10.00, cached=1.25)
    # 1M input of which 400k cached, 100k output
    assert price.cost(1_000_000, 100_000, 400_000) == pytest.approx(
        0.6 * 2.50 + 0.4 * 1.25 + 0.1 * 10.00)


def test_settings_override_the_bundled_table() -> None:
    table = ModelTable.with_overrides([{"pattern": "gpt-4o*", "encoding": "cl100k_base",
                                        "context_window": 64_000, "input": 1, "output": 2}])
    info = table.lookup("gpt-4o")
    assert (info.context_window, info.price) == (64_000, Price(1.0, 2.0, 1.0))
    assert table.lookup("gpt-4.1").context_window == 1_047_576


def test_bad_model_entries_are_rejected() -> None:
    with pytest.raises(ValueError, match="bad model table entry"):
        ModelTable([{"pattern": "x", "context_window": 10, "input": 1}])  # no output price
    with pytest.raises(ValueError, match="negative"):
        ModelTable([{"pattern": "x", "context_window": 10, "input": -1, "output": 1}])


def test_old_records_keep_the_price_they_were_billed_at(open_ledger) -> None:  # type: ignore[no-untyped-def]
    before = open_ledger()
    record = before.record(task_id="t", call_type="plan", model="gpt-4o",
                           input_tokens=1_000_000, output_tokens=0)
    assert record.cost_usd == pytest.approx(2.50)
    before.close()
    cheaper = LedgerSettings(models=[{"pattern": "gpt-4o*", "context_window": 128_000,
                                      "input": 0.5, "output": 1}])
    after = open_ledger(settings=cheaper)
    assert after.model_info("gpt-4o").price.input == 0.5
    after.record(task_id="t", call_type="plan", model="gpt-4o", input_tokens=1_000_000)
    rows = {row["key"]: row for row in after.report(task_id="t", group_by="model")["rows"]}
    assert rows["gpt-4o"]["costUsd"] == pytest.approx(2.50 + 0.50)


def test_ledger_model_info_is_what_the_agent_asks_for_its_context_window(
        ledger: Ledger) -> None:
    assert ledger.model_info("gpt-4.1-mini").context_window == 1_047_576


def test_a_model_the_table_does_not_know_is_reported_unpriced_not_free(open_ledger) -> None:  # type: ignore[no-untyped-def]
    from codekeep.ledger.reports import render_text

    ledger = open_ledger()
    record = ledger.record(task_id="t", call_type="plan", model="my-local-model",
                           input_tokens=1000, output_tokens=100)
    assert (record.priced, record.cost_usd) == (False, 0.0)
    assert ledger.model_info("qwen2.5-coder:7b").priced  # local models are free on purpose
    report = ledger.report(task_id="t")
    assert report["total"]["unpricedCalls"] == 1
    assert report["unpriced"] == [{"model": "my-local-model", "calls": 1}]
    text = render_text(report)
    assert "0.0000" not in text and "unpriced" in text
    assert "Warning: 1 call unpriced: the price table does not know my-local-model" in text
