"""Which registry tools the door serves, and each client's own context."""

from __future__ import annotations

from pathlib import Path

from codekeep.docs import DocsIndex
from codekeep.mcp.policy import door_capability
from codekeep.mcp.sessions import MAX_SESSIONS, ClientId, ClientSessions
from codekeep.tools import ToolKit
from codekeep.tools.context import DocsExpander


def test_writes_and_commands_follow_the_flags_and_agent_loop_tools_stay_out(
    tmp_path: Path,
) -> None:
    kit = ToolKit.open(tmp_path)
    try:
        plain = door_capability(kit.registry, allow_write=False, allow_commands=False)
        everything = door_capability(kit.registry, allow_write=True, allow_commands=True)
    finally:
        kit.close()
    assert {"find_symbol", "read_file", "remember", "not_this", "search_docs"} <= plain.tools
    assert not {"write_file", "run_command"} & plain.tools
    assert {"write_file", "run_command"} <= everything.tools
    for capability in (plain, everything):
        assert not {"forge_tool", "note_finding"} & capability.tools
        assert capability.core <= capability.tools and len(capability.core) == 10


def test_clients_get_their_own_context_named_after_them(tmp_path: Path) -> None:
    kit = ToolKit.open(tmp_path)
    try:
        capability = door_capability(kit.registry, allow_write=False, allow_commands=False)
        sessions = ClientSessions(kit, capability, all_tools=False)
        claude = sessions.get(ClientId.of("claude-code", None))
        again = sessions.get(ClientId.of("claude-code", None))
        odd = sessions.get(ClientId.of("  my client/\u00e9 v2 ", None))
        http = sessions.get(ClientId.of("claude-code", "abc123"))
        first = sessions.get(ClientId.of("client-0", None))
        for number in range(1, MAX_SESSIONS + 1):
            sessions.get(ClientId.of(f"client-{number}", None))
        returning = sessions.get(ClientId.of("client-0", None))
    finally:
        kit.close()
    assert claude is again and claude is not http
    assert claude.context.actor == "mcp:claude-code" and claude.context.client == "claude-code"
    assert claude.context.task_id.startswith("mcp-claude-code-")
    assert odd.context.client == "my-client-v2"
    assert returning is not first  # dropped as the least recently used, starts afresh


async def test_with_a_model_each_sessions_search_docs_is_expanded_for_its_own_task(
    tmp_path: Path,
) -> None:
    """The door hands each session an expander billed to that session's task; without
    a model (the default) search_docs searches the question as asked."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "retries.md").write_text("# Retries\n\nFailed uploads back off.\n")
    kit = ToolKit.open(tmp_path, docs=DocsIndex.open(tmp_path))
    assert kit.docs is not None
    kit.docs.index()
    asked: list[tuple[str, str]] = []

    def expander_for(task_id: str) -> DocsExpander:
        async def expand(question: str) -> tuple[list[str], list[str], list[str]]:
            asked.append((task_id, question))
            return ["failed uploads back off"], [], []

        return expand

    try:
        capability = door_capability(kit.registry, allow_write=False, allow_commands=False)
        plain = ClientSessions(kit, capability, all_tools=False).get(ClientId.of("a", None))
        assert plain.context.expand_docs is None
        sessions = ClientSessions(kit, capability, all_tools=False, expander=expander_for)
        session = sessions.get(ClientId.of("claude-code", None))
        result = await kit.pipeline.execute(
            "search_docs", {"query": "what happens when a transfer breaks"}, session.context)
    finally:
        kit.docs.close()
        kit.close()
    assert asked == [(session.context.task_id, "what happens when a transfer breaks")]
    assert result.ok and result.data["results"][0]["path"] == "docs/retries.md"
    assert result.data["expansions"] == ["failed uploads back off"]
