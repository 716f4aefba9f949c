"""Working memory (scratchpad, observations, plan) and the budget coordinator."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from codekeep.common.tokens import token_len
from codekeep.memory import MemoryInputError, MemoryService, WorkingMemory
from codekeep.memory.coordinator import allocation
from codekeep.memory.working import compress

SEARCH_OUTPUT = "\n".join(f"src/mod{i % 4}.py:{i}: retry(attempts=3)" for i in range(40))


def test_observations_are_compressed_by_tool_type() -> None:
    search = compress("search_code", {"query": "retry"}, SEARCH_OUTPUT)
    assert search == (
        "search_code(query='retry'): 40 matches in "
        "src/mod0.py, src/mod1.py, src/mod2.py, src/mod3.py"
    )
    read = compress("read_file", {"path": "src/app.py"}, "a\nb\nc\n")
    assert read == "read_file: src/app.py, 3 lines"
    command = compress("run_command", {"command": "pytest"}, "collected 3\n...\n1 failed, 2 passed")
    assert command.endswith("collected 3 | ... | 1 failed, 2 passed")
    other = compress("weird_tool", {}, "x" * 1000)
    assert len(other) < 330 and other.endswith("…")


def test_sliding_window_drops_old_observations_but_never_findings() -> None:
    wm = WorkingMemory("t1", window=3)
    wm.note("The bug is in the date parser", "src/dates.py:40")
    for number in range(5):
        wm.start_round()
        wm.observe("read_file", {"path": f"f{number}.py"}, "x\n")
    assert [o.text for o in wm.observations] == [
        "read_file: f2.py, 1 lines",
        "read_file: f3.py, 1 lines",
        "read_file: f4.py, 1 lines",
    ]
    text = wm.render(500)
    assert "The bug is in the date parser (evidence: src/dates.py:40)" in text
    assert "(2 older observations omitted)" in text


def test_render_respects_its_budget_newest_observations_first() -> None:
    wm = WorkingMemory("t1")
    wm.set_plan(["find the parser", "fix it"])
    for number in range(20):
        wm.observe("search_code", {"query": f"term{number}"}, SEARCH_OUTPUT)
    text = wm.render(120)
    assert token_len(text) <= 120
    assert "term19" in text and "term0'" not in text
    assert "1. find the parser" in text


def test_budget_profiles_follow_the_seed() -> None:
    assert allocation("chat", 4000) == {
        "long_term": 2400,
        "session": 0,
        "conversation": 800,
        "working": 800,
    }
    assert allocation("analyst", 4000) == {
        "long_term": 600,
        "session": 1400,
        "conversation": 200,
        "working": 1800,
    }
    assert allocation("producer", 4000) == {
        "long_term": 600,
        "session": 2200,
        "conversation": 200,
        "working": 1000,
    }
    with pytest.raises(MemoryInputError):
        allocation("poet", 4000)


def test_context_for_prompt_fits_the_budget_and_counts_tokens(service: MemoryService) -> None:
    for number in range(60):
        service.remember(
            f"Service number {number} talks to queue q{number} through the event bus", importance=5
        )
    service.remember("verbosity: concise", kind="preference")
    service.record_event("t1", "file_read", "read bus/producer.py", files=["bus/producer.py"])
    wm = service.working_memory("t1")
    wm.note("Producer retries are unbounded")
    text, tokens = service.context_for_prompt(
        "t1", budget=400, profile="chat", query="event bus queue"
    )
    assert tokens == token_len(text) and 0 < tokens <= 400
    assert "verbosity=concise" in text
    assert "# This task so far" in text and "read bus/producer.py" in text
    assert "Producer retries are unbounded" in text


def test_unused_long_term_budget_flows_to_working_memory(make_service) -> None:
    service = make_service(observation_window=200)
    wm = service.working_memory("t2")
    for number in range(200):
        wm.observe("search_code", {"query": f"needle{number}"}, SEARCH_OUTPUT)
    text, tokens = service.context_for_prompt("t2", budget=2000, profile="chat", query="")
    # no long-term memories: the working layer may use far more than its own 20 %
    assert tokens > 0.6 * 2000 and tokens <= 2000
    assert text.startswith("# Working memory")


def test_scratchpad_is_included_before_observations(service: MemoryService) -> None:
    wm = service.working_memory("t3")
    wm.note("Finding that must survive")
    for number in range(100):
        wm.observe("search_code", {"query": f"q{number}"}, SEARCH_OUTPUT)
    text, _ = service.context_for_prompt("t3", budget=200, profile="chat")
    assert "Finding that must survive" in text


def test_prompt_lines_carry_the_warnings_a_model_must_see(
    service: MemoryService, workspace
) -> None:
    (workspace / "db.py").write_text("POOL = 20\n")
    case = service.remember(
        "Pool exhaustion fixed by raising POOL",
        kind="case",
        evidence={"file": "db.py", "quote": "POOL = 20"},
    )
    service.remember("explain root causes before fixes", kind="soft_preference")
    stale = service.remember("pool helper is thread-safe", symbols=["db.py::helper"])
    service.not_this(stale.id or "")
    gone = SimpleNamespace(id="db.py::helper", path="db.py")
    service.apply_code_changes(SimpleNamespace(removed=[gone]))
    text, _ = service.context_for_prompt("t", budget=1000, query="pool root causes fixes")
    assert "historical reference, not current state" in text
    assert "adjusts wording only" in text
    assert "the user said this was wrong before; linked code no longer exists" in text
    assert case.action == "ADD"


def test_soft_preference_covered_by_a_hard_one_is_left_out(service: MemoryService) -> None:
    service.remember("answer_order: conclusion_first", kind="preference")
    service.remember("put the conclusion first, then the details", kind="soft_preference")
    service.remember("use many counter-examples when explaining", kind="soft_preference")
    text, _ = service.context_for_prompt("t", budget=800, query="conclusion details examples")
    assert "answer_order=conclusion_first" in text
    assert "conclusion first, then the details" not in text
    assert "counter-examples" in text
