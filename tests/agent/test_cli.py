"""``codekeep agent`` as a user runs it: a real subprocess against the scripted endpoint."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from codekeep.testing.scripted_server import (
    ScriptedModelServer,
    call,
    cut_off,
    http_error,
    prompt_tokens,
    say,
)


def _codekeep(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items()
             if k not in ("CODEKEEP_MODEL", "CODEKEEP_BASE_URL", "CODEKEEP_API_KEY",
                          "OPENAI_API_KEY")}
    return subprocess.run([sys.executable, "-m", "codekeep", *args], capture_output=True,
                          text=True, env={**clean, **env}, timeout=60)


@pytest.mark.slow
def test_agent_command_answers_as_json(workspace: Path, model_server: ScriptedModelServer):
    model_server.push(call("find_symbol", {"name": "compute_total"}),
                      say("compute_total is defined in pkg/billing.py:4."))
    done = _codekeep("agent", "Where is compute_total defined?", "--capability", "explore",
                     "--json", "--root", str(workspace),
                     env={"CODEKEEP_MODEL": "scripted-model",
                          "CODEKEEP_BASE_URL": model_server.base_url,
                          "OPENAI_API_KEY": "sk-from-openai-variable"})
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["answer"] == "compute_total is defined in pkg/billing.py:4."
    assert result["iterations"] == 2
    (found,) = result["toolCalls"]
    assert (found["name"], found["outcome"], found["files"]) == (
        "find_symbol", "ok", ["pkg/billing.py"])
    assert found["durationMs"] >= 0
    assert result["tokens"] > 0 and result["taskId"].startswith("agent-")
    assert "pkg/billing.py" in model_server.tool_messages(1)[0]["content"]
    assert model_server.request_headers[0]["Authorization"] == "Bearer sk-from-openai-variable"
    offered = {t["function"]["name"] for t in model_server.requests[0]["tools"]}
    assert "write_file" not in offered and "run_command" not in offered


@pytest.mark.slow
def test_agent_command_text_output_and_progress_on_stderr(workspace: Path,
                                                          model_server: ScriptedModelServer):
    model_server.push(call("find_symbol", {"name": "checkout"}), say("Nothing to do."))
    done = _codekeep("agent", "Anything?", "--root", str(workspace), "--model",
                     "scripted-model", "--base-url", model_server.base_url, env={})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Nothing to do."
    assert "[SCAN] step 1/24" in done.stderr and "2 model calls" in done.stderr
    assert "1 tool calls" in done.stderr
    # each call as it happens, then the numbered list under the summary
    assert re.search(r"^  find_symbol -> ok \([\d,]+ ms\) pkg/checkout\.py$", done.stderr, re.M)
    assert re.search(r"^  1\. find_symbol -> ok \([\d,]+ ms\) pkg/checkout\.py$",
                     done.stderr, re.M)


def test_agent_command_without_a_model_says_how_to_configure_one(workspace: Path):
    done = _codekeep("agent", "Where is compute_total?", "--root", str(workspace), env={})
    assert done.returncode == 2
    assert "CODEKEEP_MODEL" in done.stderr and "CODEKEEP_BASE_URL" in done.stderr
    assert done.stdout == ""
    assert not (workspace / ".codekeep" / "ledger.db").exists()  # nothing was opened


def test_agent_command_reports_a_refusing_endpoint(workspace: Path,
                                                   model_server: ScriptedModelServer):
    model_server.push(http_error(401, "invalid api key"))
    done = _codekeep("agent", "hi", "--root", str(workspace),
                     env={"CODEKEEP_MODEL": "m", "CODEKEEP_BASE_URL": model_server.base_url})
    assert done.returncode == 1
    assert "HTTP 401: invalid api key" in done.stderr and "CODEKEEP_API_KEY" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(("args", "code", "message"), [
    (["--budget", "-5"], 2, "must be a positive number, got -5"),
    (["--budget", "lots"], 2, "expected a whole number, got 'lots'"),
    (["--capability", "root"], 2, "invalid choice"),
])
def test_agent_command_rejects_bad_options(workspace: Path, args, code, message):
    done = _codekeep("agent", "hi", "--root", str(workspace), *args,
                     env={"CODEKEEP_MODEL": "m"})
    assert done.returncode == code and message in done.stderr


def test_agent_command_rejects_an_empty_task(workspace: Path, model_server: ScriptedModelServer):
    done = _codekeep("agent", "   ", "--root", str(workspace),
                     env={"CODEKEEP_MODEL": "m", "CODEKEEP_BASE_URL": model_server.base_url})
    assert done.returncode == 1 and "the task is empty" in done.stderr
    assert model_server.requests == []
    assert not (workspace / ".codekeep").exists()  # rejected before opening anything


@pytest.mark.slow
def test_agent_command_names_each_budget_mark_it_crosses(workspace: Path,
                                                        model_server: ScriptedModelServer):
    # One round spends the whole budget: both marks are announced, each once, distinctly.
    model_server.push(call("find_symbol", {"name": "checkout"}), say("Done."))
    done = _codekeep("agent", "Anything?", "--root", str(workspace), "--model",
                     "scripted-model", "--base-url", model_server.base_url, "--budget", "100",
                     env={})
    assert done.returncode == 0, done.stderr
    budget_lines = [line for line in done.stderr.splitlines() if line.startswith("budget:")]
    assert len(budget_lines) == 2
    assert budget_lines[0].endswith("past the 75% mark")
    assert budget_lines[1].endswith("budget spent")


@pytest.mark.slow
def test_agent_command_says_what_memory_learned(workspace: Path,
                                                 model_server: ScriptedModelServer):
    model_server.push(say("Noted."), say('{"memories": []}'))  # the answer, then extraction
    done = _codekeep("agent", "We use pnpm here and the tests run with `pnpm test`.",
                     "--root", str(workspace), "--model", "scripted-model", "--base-url",
                     model_server.base_url, env={})
    assert done.returncode == 0, done.stderr
    assert re.search(r"^  learned: package_manager: pnpm \[p\w+\]$", done.stderr, re.M)
    assert re.search(r"^  learned: test_command: pnpm test \[p\w+\]$", done.stderr, re.M)
    assert "not learned" not in done.stderr


@pytest.mark.slow
def test_agent_command_never_runs_a_write_cut_off_at_the_output_limit(
        workspace: Path, model_server: ScriptedModelServer):
    before = (workspace / "pkg" / "billing.py").read_bytes()
    write = {"path": "pkg/billing.py", "content": "def compute_total(items):\n    return 0\n"}
    model_server.push(*(cut_off("write_file", write) for _ in range(3)))
    done = _codekeep("agent", "Make compute_total return 0.", "--capability", "edit",
                     "--root", str(workspace), "--model", "scripted-model", "--base-url",
                     model_server.base_url, env={})
    assert (workspace / "pkg" / "billing.py").read_bytes() == before
    assert done.returncode == 1, done.stderr  # a cut-off answer is no success
    assert "[cut off:" in done.stdout and "no file was changed" in done.stdout
    assert "stopped: cut_off" in done.stderr
    assert re.search(r"^  write_file -> cut_off", done.stderr, re.M)


@pytest.mark.slow
def test_agent_command_never_reports_an_empty_reply_as_an_answer(
        workspace: Path, model_server: ScriptedModelServer):
    model_server.push(say(""), say(""))
    done = _codekeep("agent", "What does compute_total do?", "--root", str(workspace),
                     "--model", "scripted-model", "--base-url", model_server.base_url, env={})
    assert done.returncode == 1, done.stderr
    assert done.stdout.strip() == "The model gave no answer (its replies were empty)."
    assert "stopped: no_answer" in done.stderr


@pytest.mark.slow
def test_a_window_the_endpoint_named_is_used_by_the_next_run(workspace: Path):
    # The model table says 8,192 tokens; the server holds 4,096 and says so when a prompt
    # does not fit. The first run learns it; the next process starts from it.
    def fits(body: dict[str, object]) -> bool:
        return prompt_tokens(body) + int(body["max_tokens"]) <= 4096  # type: ignore[call-overload]

    with ScriptedModelServer(window=4096, overflow_style="llamacpp") as server:
        server.push(call("read_file", {"path": "pkg/big.py"}),
                    say("generated_function_7 is in pkg/big.py."))
        options = ("--root", str(workspace), "--model", "scripted-model", "--base-url",
                   server.base_url)
        first = _codekeep("agent", "Where is generated_function_7?", *options, env={})
        assert first.returncode == 0, first.stderr
        assert not all(fits(body) for body in server.requests)  # refused once, then fitted
        kept = json.loads((workspace / ".codekeep" / "endpoints.json").read_text())
        assert [(e["baseUrl"], e["model"], e["contextWindow"]) for e in kept["endpoints"]] \
            == [(server.base_url, "scripted-model", 4096)]

        sent_before = len(server.requests)
        server.push(call("read_file", {"path": "pkg/big.py"}),
                    say("generated_function_8 is in pkg/big.py."))
        second = _codekeep("agent", "Where is generated_function_8?", *options, env={})
        assert second.returncode == 0, second.stderr
        assert second.stdout.strip() == "generated_function_8 is in pkg/big.py."
        later = server.requests[sent_before:]  # the task's calls, then memory's
        assert all(fits(body) for body in later)  # nothing refused
        assert later[0]["max_tokens"] == 512  # the allowance of a 4,096 window, not 8,192
