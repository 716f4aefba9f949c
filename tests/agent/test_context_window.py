"""Each compression level of the context window, forced by filling it."""

from __future__ import annotations

import pytest

from codekeep.agent.context_window import ContextWindow, message_tokens, window_for_model

BIG = "def handler():\n    return compute(value)\n" * 60  # ~600 tokens per tool result


def _fill(window: ContextWindow, rounds: int, content: str = BIG) -> None:
    for i in range(rounds):
        call_id = f"call_{i}"
        window.add_round(
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": call_id, "type": "function",
                 "function": {"name": "read_file", "arguments": f'{{"path": "m{i}.py"}}'}}]},
            [{"role": "tool", "tool_call_id": call_id, "content": f"m{i}.py\n{content}"}],
        )


def _budget_for(window: ContextWindow, ratio: float) -> int:
    return int(window.full_tokens / ratio)


def _pairs_intact(messages: list[dict]) -> None:
    """Every assistant tool call is immediately followed by all of its results."""
    for index, message in enumerate(messages):
        calls = message.get("tool_calls") or []
        if calls:
            following = messages[index + 1 : index + 1 + len(calls)]
            assert [m.get("tool_call_id") for m in following] == [c["id"] for c in calls]
    answered = {m["tool_call_id"] for m in messages if m.get("role") == "tool"}
    asked = {c["id"] for m in messages for c in m.get("tool_calls") or []}
    assert answered == asked


def _window(ratio: float, rounds: int = 8) -> ContextWindow:
    probe = ContextWindow("You are CodeKeep.", "Where is handler defined?", 10**9)
    _fill(probe, rounds)
    window = ContextWindow("You are CodeKeep.", "Where is handler defined?",
                           _budget_for(probe, ratio))
    _fill(window, rounds)
    return window


def test_below_sixty_percent_nothing_is_compressed():
    window = _window(0.5)
    rendered = window.render()
    assert rendered.level == 0
    assert rendered.tokens == window.full_tokens
    assert len(rendered.messages) == 2 + 8 * 2


def test_level_one_truncates_old_tool_results_and_keeps_last_four_rounds_whole():
    window = _window(0.7)
    rendered = window.render()
    assert rendered.level == 1
    tool_results = [m["content"] for m in rendered.messages if m["role"] == "tool"]
    assert len(tool_results) == 8  # nothing removed, only cut
    assert all("were dropped to save context" in c for c in tool_results[:4])
    assert all(c.endswith(BIG) for c in tool_results[4:])
    assert rendered.tokens < window.full_tokens
    _pairs_intact(rendered.messages)


def test_level_two_distils_old_rounds_and_keeps_last_two_whole():
    window = _window(0.9)
    rendered = window.render()
    assert rendered.level == 2
    roles = [m["role"] for m in rendered.messages]
    assert roles == ["system", "user", "assistant", "tool", "assistant", "tool"]  # one system
    distilled = rendered.messages[0]["content"]
    assert "- round 1: read_file" in distilled and "- round 6: read_file" in distilled
    assert '"m0.py"' in distilled
    assert [m["content"].endswith(BIG) for m in rendered.messages if m["role"] == "tool"] == [
        True, True]
    _pairs_intact(rendered.messages)


def test_level_three_keeps_system_task_produced_memory_and_last_round():
    window = _window(0.99)
    window.note_produced("answered: handler is defined in m3.py")
    rendered = window.render()
    assert rendered.level == 3
    messages = rendered.messages
    assert messages[0]["content"].startswith("You are CodeKeep.\n\n")
    assert messages[1] == {"role": "user", "content": "Where is handler defined?"}
    assert "7 earlier rounds were removed" in messages[0]["content"]
    assert "answered: handler is defined in m3.py" in messages[0]["content"]
    assert [m["role"] for m in messages[2:]] == ["assistant", "tool"]
    assert messages[2]["tool_calls"][0]["id"] == "call_7"
    _pairs_intact(messages)


def test_escalates_when_the_chosen_level_still_does_not_fit():
    window = _window(0.5)
    _fill(window, 8, BIG * 4)  # now far over budget
    rendered = window.render()
    assert rendered.level == 3
    assert rendered.tokens <= rendered.budget
    assert rendered.messages[1]["role"] == "user"
    _pairs_intact(rendered.messages)


def test_extra_system_text_counts_and_joins_the_one_system_message():
    window = _window(0.5)
    rendered = window.render(["NUDGE: converge"])
    assert [m["role"] for m in rendered.messages].count("system") == 1
    assert rendered.messages[0]["role"] == "system"
    assert rendered.messages[0]["content"].endswith("\n\nNUDGE: converge")
    assert rendered.tokens == window.full_tokens + message_tokens(
        {"role": "system", "content": "NUDGE: converge"})


def test_a_round_whose_results_do_not_answer_its_calls_is_refused():
    window = ContextWindow("s", "t", 1000)
    assistant = {"role": "assistant", "content": None, "tool_calls": [
        {"id": "a", "type": "function", "function": {"name": "x", "arguments": "{}"}}]}
    with pytest.raises(ValueError, match="do not answer"):
        window.add_round(assistant, [])


def test_model_aware_budget_from_the_model_table_and_override():
    assert window_for_model("gpt-4o-mini") == 128000
    assert window_for_model("claude-sonnet-4-5") == 200000
    assert window_for_model("gpt-4o-mini", override=4096) == 4096
    window = ContextWindow.for_model("gpt-4o", "s", "t")
    assert window.budget == 128000 - 8192


def test_model_table_overrides_from_ledger_settings_apply(tmp_path):
    from codekeep.ledger import Ledger, LedgerSettings

    settings = LedgerSettings(models=({"pattern": "my-local-*", "context_window": 4096,
                                       "input": 0, "output": 0},))
    with Ledger.open(tmp_path, settings, start_flusher=False) as ledger:
        assert window_for_model("my-local-coder", lookup=ledger.model_info) == 4096
        assert window_for_model("gpt-4o", lookup=ledger.model_info) == 128000


def test_after_an_overflow_it_renders_more_compressed_and_by_the_real_window():
    window = _window(0.5)
    assert window.render().level == 0
    assert window.compress_harder() and window.render().level == 1
    window.resize(2048)
    assert window.budget == 2048 - 256
    window.calibrate(estimated=1000, counted=1500)  # the endpoint counts half as much again
    assert window.render().budget == int((2048 - 256) / 1.5)
    assert window.compress_harder() and window.compress_harder()
    assert not window.compress_harder() and window.render().level == 3
