"""Cost follows the text: every call is billed to what its prompt carried.

Expected figures are recomputed from the requests the scripted server received
(:mod:`codekeep.testing.truth` reads them against the files on disk), never from the
agent's own bookkeeping.
"""

from __future__ import annotations

import json
import subprocess
import sys

from codekeep.agent.exploration import ExplorationBudget
from codekeep.analysis.reads import symbol_read
from codekeep.ledger.attribution import split_tokens
from codekeep.testing.scripted_server import call, say
from codekeep.testing.truth import carried_chars, carried_tokens, overhead_tokens

USAGE = {"prompt_tokens": 1000, "completion_tokens": 20}
BUCKETS = {"system": "<system prompt>", "tools": "<tool schemas>",
           "conversation": "<conversation>"}


def expected_split(body, root, prompt_tokens):
    """What the ledger must bill for one request: files by the tokens of their text, the
    rest by the tokens of the system messages, the schemas and the conversation."""
    files = carried_tokens(body, root)
    over = overhead_tokens(body)
    weights = dict(files)
    weights.update({BUCKETS["system"]: over["system"], BUCKETS["tools"]: over["tools"],
                    BUCKETS["conversation"]: over["rest"] - sum(files.values())})
    return split_tokens(prompt_tokens, {k: v for k, v in weights.items() if v})


def stored_split(row):
    return {path: entry[1] for path, entry in json.loads(row["files"]).items()}


async def test_a_file_is_billed_for_every_call_that_carries_it(harness):
    """The issue's scenario: lookup, read, three more calls carrying the file, answer."""
    harness.server.push(
        call("find_symbol", {"name": "compute_total"}, usage=USAGE),
        call("read_file", {"path": "pkg/billing.py"}, usage=USAGE),
        call("find_symbol", {"name": "apply_discount"}, usage=USAGE),
        call("find_references", {"name": "apply_discount"}, usage=USAGE),
        call("list_files", {"path": "pkg"}, usage=USAGE),
        say("compute_total sums prices; apply_discount is unused.", usage=USAGE),
    )
    result = await harness.run("What do the billing functions do?")
    rows = harness.ledger_rows(result.task_id)
    requests = harness.server.requests
    assert len(rows) == len(requests) == 6
    for row, body in zip(rows, requests, strict=True):
        assert stored_split(row) == expected_split(body, harness.root, 1000)
        assert sum(stored_split(row).values()) == row["input_tokens"] == 1000
    carried = [carried_chars(body, harness.root).get("pkg/billing.py", 0) for body in requests]
    assert carried[:2] == [0, 0]  # the call that asked for the read did not carry the file
    assert carried[2] > 0 and len(set(carried[2:])) == 1  # then every call carries it whole
    assert [row["call_type"] for row in rows] == [
        "plan", "tool", "read_code.file", "plan", "plan", "other"]

    report = harness.ledger.report(task_id=result.task_id)
    billed = {row["path"]: row["tokens"] for row in report["byFile"]}
    truth = sum(stored_split(row).get("pkg/billing.py", 0) for row in rows)
    assert billed["pkg/billing.py"] == truth == sum(
        expected_split(body, harness.root, 1000).get("pkg/billing.py", 0) for body in requests)
    assert {row["calls"] for row in report["byFile"] if row["path"] == "pkg/billing.py"} == {4}
    overhead = {row["bucket"]: row["tokens"] for row in report["overhead"]}
    assert set(overhead) == {"system", "tools", "conversation"}
    assert sum(billed.values()) + sum(overhead.values()) == report["total"]["inputTokens"]
    assert round(sum(r["share"] for r in report["byFile"] + report["overhead"])) == 100


async def test_compression_stops_a_files_cost_from_that_call_on(harness):
    chunks = [call("read_file", {"path": "pkg/big.py", "start_line": 1 + 30 * i,
                                 "end_line": 30 * (i + 1)}, usage=USAGE) for i in range(14)]
    harness.server.push(*chunks, say("read it all", usage=USAGE))
    result = await harness.run("Read big.py in chunks", context_window=7000,
                               budget=ExplorationBudget(convergence_min_rounds=99))
    assert [e["level"] for e in harness.kinds("context")][:3] == [1, 2, 3]
    rows = harness.ledger_rows(result.task_id)
    requests = harness.server.requests
    for row, body in zip(rows, requests, strict=True):
        assert stored_split(row) == expected_split(body, harness.root, 1000)
    carried = [carried_chars(body, harness.root).get("pkg/big.py", 0) for body in requests]
    # without compression every call would carry all chunks read so far (ever growing);
    # once old rounds are cut, distilled and dropped, what is billed shrinks again
    peak = carried.index(max(carried))
    assert min(carried[peak:]) < max(carried) / 2
    first_chunk = "    1  def generated_function_0(value):"
    late = requests[-1]["messages"]
    assert not any(first_chunk in str(m.get("content") or "") for m in late)
    assert "pkg/big.py" not in stored_split(rows[-1]) or \
        stored_split(rows[-1])["pkg/big.py"] < stored_split(rows[peak])["pkg/big.py"]


async def test_a_second_read_of_the_same_range_ships_no_text_and_costs_nothing(harness):
    same = {"path": "pkg/billing.py", "start_line": 1, "end_line": 9}
    harness.server.push(call("read_file", same, usage=USAGE), call("read_file", same, usage=USAGE),
                        call("read_file", {**same, "force": True}, usage=USAGE),
                        say("done", usage=USAGE))
    result = await harness.run("Read billing twice")
    second = harness.server.tool_messages(2)[-1]["content"]
    assert second.startswith("[already in your context: pkg/billing.py lines 1-9")
    assert "def compute_total" not in second
    carried = [carried_chars(body, harness.root).get("pkg/billing.py", 0)
               for body in harness.server.requests]
    assert carried[2] == carried[1] > 0  # the notice added no file text
    assert carried[3] == 2 * carried[1]  # force=true read it again, and it is billed again
    assert [c.outcome for c in result.tool_calls] == ["ok", "cached", "ok"]


async def test_reread_insight_names_the_file_and_the_cheaper_symbol_read(harness):
    harness.server.push(*[call("read_file", {"path": "pkg/billing.py", "start_line": start,
                                             "force": True}, usage=USAGE)
                          for start in (1, 1, 4)], say("read thrice", usage=USAGE))
    result = await harness.run("Read billing again and again")
    report = harness.ledger.report(task_id=result.task_id,
                                   suggest=lambda path: symbol_read(harness.codemap, path))
    rows = harness.ledger_rows(result.task_id)
    entry = report["rereads"]["files"][0]
    assert entry["path"] == "pkg/billing.py" and entry["reads"] == 3
    assert entry["tokens"] == sum(stored_split(row).get("pkg/billing.py", 0) for row in rows)
    suggestion = entry["suggestion"]
    assert suggestion["query"] == "compute_total"  # the function checkout.py calls
    assert suggestion["lines"] == 3 and 0 < suggestion["tokens"] < entry["tokens"] / 3
    assert entry["text"].startswith("`pkg/billing.py` read 3× (")
    assert "`find_symbol compute_total` is" in entry["text"]

    harness.ledger.flush()
    cli = subprocess.run([sys.executable, "-m", "codekeep", "ledger", "report", "--task",
                          result.task_id, "--root", str(harness.root)],
                         capture_output=True, text=True, timeout=60, check=True)
    assert "Files read more than once in this task" in cli.stdout
    assert "`find_symbol compute_total` is" in cli.stdout
    assert "(system prompt)" in cli.stdout and "(tool schemas)" in cli.stdout
