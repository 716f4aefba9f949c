"""The token ledger through a real ``codekeep serve`` over stdio (pytest-lsp as editor):
record calls, receive ``codekeep/budget`` at 75 % and 100 %, read the report and the
"tokens this week" code lens."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from codekeep.common.uris import path_to_uri
from tests.server.lsp_harness import make_client, request, session_fixture, write_project

pytestmark = pytest.mark.slow


def budget_client() -> LanguageClient:
    """The harness client, also collecting ``codekeep/budget`` as it arrives.

    The handler is registered before the session starts, so no notification can be sent
    before the client listens for it.
    """
    client = make_client()
    client.budgets = []  # type: ignore[attr-defined]

    @client.feature("codekeep/budget")
    def on_budget(params: Any) -> None:
        client.budgets.append(params)  # type: ignore[attr-defined]

    return client


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write_project(tmp_path / "shapes")


client = session_fixture(client_factory=budget_client)


async def record(client: LanguageClient, **params: Any) -> dict[str, Any]:
    return await request(
        client,
        "codekeep/ledger/record",  # type: ignore[no-any-return]
        {"callType": "read_code", "model": "gpt-4o", **params},
    )


async def wait_for_budgets(client: LanguageClient, count: int) -> list[dict[str, Any]]:
    for _ in range(200):
        if len(client.budgets) >= count:  # type: ignore[attr-defined]
            break
        await asyncio.sleep(0.025)
    return list(client.budgets)  # type: ignore[attr-defined]


async def test_budget_thresholds_notify_once_each(client: LanguageClient) -> None:
    state = await request(client, "codekeep/ledger/budget", {"taskId": "refactor", "limit": 1000})
    assert state["task"] == {
        "taskId": "refactor",
        "used": 0,
        "limit": 1000,
        "ratio": 0.0,
        "hardStop": False,
    }
    await record(client, taskId="refactor", inputTokens=600, outputTokens=100)
    assert client.budgets == []  # type: ignore[attr-defined]
    await record(client, taskId="refactor", inputTokens=100, outputTokens=0)  # 800
    await record(client, taskId="refactor", inputTokens=50, outputTokens=0)  # 850
    await record(client, taskId="refactor", inputTokens=200, outputTokens=0)  # 1050
    budgets = await wait_for_budgets(client, 2)
    await asyncio.sleep(0.2)  # nothing more may arrive
    assert [(b["taskId"], b["used"], b["limit"], b["threshold"]) for b in client.budgets] == [  # type: ignore[attr-defined]
        ("refactor", 800, 1000, 0.75),
        ("refactor", 1050, 1000, 1.0),
    ]
    assert budgets[1]["ratio"] == pytest.approx(1.05)
    shown = [message.message for message in client.messages if "Token budget" in message.message]
    assert any("warning: task refactor used 800 of 1,000" in text for text in shown)
    assert any("exceeded: task refactor used 1,050 of 1,000" in text for text in shown)


async def test_report_and_code_lens_show_attributed_tokens(
    client: LanguageClient, project: Path
) -> None:
    geometry = project / "pkg" / "geometry.py"
    await record(
        client,
        taskId="explain",
        inputTokens=12_000,
        outputTokens=300,
        files={path_to_uri(geometry): 3 * 1000, "pkg/app.py": 1000},
    )
    await record(
        client,
        taskId="explain",
        callType="generate_code",
        inputTokens=400,
        outputTokens=900,
        files={"pkg/geometry.py": 50},
    )

    report = await request(client, "codekeep/ledger/report", {"taskId": "explain"})
    assert {row["key"]: row["calls"] for row in report["rows"]} == {
        "read_code.files": 1,
        "generate_code": 1,
    }
    assert [(row["path"], row["tokens"]) for row in report["byFile"]] == [
        ("pkg/geometry.py", 9_400),
        ("pkg/app.py", 3_000),
    ]
    assert report["total"]["tokens"] == 13_600
    assert "read_code.files" in report["text"] and "reason" not in report
    # calls recorded without what their prompts carried: no buckets, no reads to count
    assert (report["overhead"], report["warnings"]) == ([], [])
    assert report["rereads"] == {"scope": "task", "lastTasks": 5, "files": []}
    unknown = await request(client, "codekeep/ledger/report", {"taskId": "nosuchtask"})
    assert (unknown["rows"], unknown["byFile"], unknown["total"]["calls"]) == ([], [], 0)
    assert unknown["reason"] == "no calls recorded for task nosuchtask"

    lenses = await request(
        client,
        types.TEXT_DOCUMENT_CODE_LENS,
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=path_to_uri(geometry))),
    )
    titles = [lens.command.title for lens in lenses if lens.range.start.line == 0]
    assert "≈ 9.4k tokens this week" in titles
    lens = next(lens for lens in lenses if lens.command.title.startswith("≈"))
    assert lens.command.command == "codekeep.ledger.report"

    # the lens's command runs the same report through workspace/executeCommand
    by_file = await request(
        client,
        types.WORKSPACE_EXECUTE_COMMAND,
        types.ExecuteCommandParams(command=lens.command.command, arguments=lens.command.arguments),
    )
    assert by_file["rows"][0]["key"] == "pkg/geometry.py"


async def test_bad_ledger_params_are_invalid_params_and_lose_nothing(
    client: LanguageClient,
) -> None:
    await record(client, taskId="keep", inputTokens=5)
    for method, params in (
        ("codekeep/ledger/record", {"callType": "browse", "model": "m", "inputTokens": 1}),
        ("codekeep/ledger/record", {"callType": "plan", "model": "m", "inputTokens": -1}),
        (
            "codekeep/ledger/record",
            {"callType": "plan", "model": "m", "files": ["a.py"], "inputTokens": 1},
        ),
        ("codekeep/ledger/record", {"callType": "plan", "model": "m"}),
        ("codekeep/ledger/report", {"since": "someday"}),
        ("codekeep/ledger/report", {"groupBy": "colour"}),
        ("codekeep/ledger/budget", {"limit": 10}),
    ):
        with pytest.raises(JsonRpcException) as caught:
            await request(client, method, params)
        assert "Invalid params" in str(caught.value)
    report = await request(client, "codekeep/ledger/report", {})
    assert report["total"]["calls"] == 1


async def test_hard_stop_is_reported_and_the_call_kept(client: LanguageClient) -> None:
    await request(
        client, "codekeep/ledger/budget", {"taskId": "capped", "limit": 100, "hardStop": True}
    )
    stopped = await record(client, taskId="capped", inputTokens=150)
    assert stopped["budgetExceeded"]["used"] == 150
    report = await request(
        client,
        types.WORKSPACE_EXECUTE_COMMAND,
        types.ExecuteCommandParams(
            command="codekeep.ledger.report", arguments=[{"taskId": "capped"}]
        ),
    )
    assert report["total"]["calls"] == 1
    assert report["budget"]["task"]["hardStop"] is True


half_warning_client = session_fixture(
    options={"ledger": {"warnRatios": [0.5], "retentionDays": 7}}, client_factory=budget_client
)


async def test_ledger_settings_come_from_the_editor(half_warning_client: LanguageClient) -> None:
    client = half_warning_client
    await request(client, "codekeep/ledger/budget", {"daily": 100})
    await record(client, taskId="any", inputTokens=60)
    budgets = await wait_for_budgets(client, 1)
    assert [(b["scope"], b["threshold"], b["used"]) for b in budgets] == [("daily", 0.5, 60)]


async def test_current_task_is_where_calls_without_a_task_id_land(client: LanguageClient) -> None:
    """``ledger/task`` tells an editor its task and makes a named one current again, so a
    call recorded without a task id lands on it (a closed task continues as ``T#2``)."""
    current = await request(client, "codekeep/ledger/task", {})
    assert current["taskId"].startswith("task-") and current["name"] == current["taskId"]
    assert current["budget"] == {"task": None, "daily": None}
    stored = await record(client, inputTokens=10, outputTokens=1)
    assert stored["taskId"] == current["taskId"]

    named = await request(client, "codekeep/ledger/task", {"taskId": "nvim-review"})
    assert (named["taskId"], named["name"]) == ("nvim-review", "nvim-review")
    await request(client, "codekeep/ledger/budget", {"taskId": "nvim-review", "limit": 1000})
    stored = await record(client, inputTokens=600, outputTokens=200)
    assert stored["taskId"] == "nvim-review"
    (crossing,) = await wait_for_budgets(client, 1)
    assert (crossing["taskId"], crossing["used"], crossing["threshold"]) == (
        "nvim-review", 800, 0.75
    )

    again = await request(client, "codekeep/ledger/task", {"taskId": "nvim-review"})
    assert again["taskId"] == "nvim-review"  # still open: the same task
    assert again["budget"]["task"] == {
        "taskId": "nvim-review", "used": 800, "limit": 1000, "ratio": 0.8, "hardStop": False,
    }
    with pytest.raises(JsonRpcException, match="taskId"):
        await request(client, "codekeep/ledger/task", {"taskId": ""})


def changes_client() -> LanguageClient:
    """The harness client, also collecting ``codekeep/ledgerChanged``."""
    client = budget_client()
    client.changes = []  # type: ignore[attr-defined]

    @client.feature("codekeep/ledgerChanged")
    def on_changed(params: Any) -> None:
        client.changes.append(params)  # type: ignore[attr-defined]

    return client


@pytest.fixture
async def watching(project: Path) -> Any:
    from tests.server.lsp_harness import session

    async with session(project, client_factory=changes_client) as lsp:
        yield lsp


async def test_a_claude_code_session_folded_by_a_hook_shows_live_by_host(
        watching: LanguageClient, project: Path, tmp_path: Path) -> None:
    import subprocess
    import sys

    from tests.ledger.transcripts import SESSION, assistant, write

    await record(watching, taskId="ours", inputTokens=100, outputTokens=10)
    before = await request(watching, "codekeep/ledger/report", {})
    assert [row["host"] for row in before["hosts"]] == ["codekeep"]
    transcript = write(tmp_path / "projects" / f"{SESSION}.jsonl", [
        assistant("msg_1", fresh=10, write_1h=3000, output=100),
        assistant("msg_2", model="claude-nova-9", fresh=10, output=10)])
    # the hook runs in its own process, as Claude Code starts it
    subprocess.run([sys.executable, "-c",
                    "import sys; from pathlib import Path; from codekeep.ledger import Ledger; "
                    "from codekeep.ledger.fold import fold_claude_code; "
                    "ledger = Ledger.open(Path(sys.argv[1]), start_flusher=False); "
                    "fold_claude_code(ledger, Path(sys.argv[2])); ledger.close()",
                    str(project), str(transcript)], check=True)
    for _ in range(200):
        if watching.changes:  # type: ignore[attr-defined]
            break
        await asyncio.sleep(0.05)
    assert watching.changes == [{"uri": path_to_uri(project)}]  # type: ignore[attr-defined]
    report = await request(watching, "codekeep/ledger/report", {"host": "claude-code"})
    assert report["total"]["calls"] == 2 and report["total"]["unpricedCalls"] == 1
    assert {row["host"]: row["calls"] for row in report["hosts"]} == {"claude-code": 2,
                                                                      "codekeep": 1}
    assert "claude-nova-9" in report["text"] and "unpriced" in report["text"]
    with pytest.raises(JsonRpcException, match="'host' must be one of"):
        await request(watching, "codekeep/ledger/report", {"host": "cursor"})


async def test_codex_sessions_in_the_folder_are_folded_live(
        project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.ledger.test_import_codex import line, token_count
    from tests.server.lsp_harness import SERVER_ENV, session

    monkeypatch.setitem(SERVER_ENV, "CODEX_HOME", str(tmp_path / "codex"))
    day = tmp_path / "codex" / "sessions" / "2026" / "12" / "01"
    day.mkdir(parents=True)

    def rollout(name: str, cwd: Path) -> None:
        (day / f"rollout-{name}.jsonl").write_text("\n".join([
            line("session_meta", {"id": name, "cwd": str(cwd)}),
            line("turn_context", {"model": "gpt-5-codex", "cwd": str(cwd)}),
            token_count({"input_tokens": 1000, "cached_input_tokens": 200, "output_tokens": 50,
                         "reasoning_output_tokens": 20}, 1050),
        ]) + "\n")

    rollout("elsewhere", tmp_path / "other-project")
    async with session(project, client_factory=changes_client) as lsp:
        rollout("here", project)
        for _ in range(300):
            if lsp.changes:
                break
            await asyncio.sleep(0.05)
        assert lsp.changes == [{"uri": path_to_uri(project)}]
        report = await request(lsp, "codekeep/ledger/report", {"host": "codex", "groupBy": "task"})
    assert [row["key"] for row in report["rows"]] == ["codex:here"]  # not the other project's
    assert report["total"]["reasoningTokens"] == 20
