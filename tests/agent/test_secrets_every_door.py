"""No secret reaches a file, whichever door it came through (secrets class).

Every format of the corpus is planted through memory's remember (project and user
scope), the ledger with content storage on, and the agent against the scripted model:
in the task text, in tool arguments (remember, also of a secret only its words name;
note_finding, run_command, write_file)
and in the final answer. Afterwards every byte of every file under ``.codekeep/`` and
the user data dir is searched for each secret.
"""

from __future__ import annotations

from pathlib import Path

from codekeep.agent.runner import build_loop
from codekeep.analysis.codemap import CodeMap
from codekeep.ledger import Ledger
from codekeep.memory import MemoryService
from codekeep.settings.agent import ModelSettings
from codekeep.settings.ledger import LedgerSettings
from codekeep.testing.scripted_server import ScriptedCall, ScriptedModelServer, calls, say
from tests.common.secret_corpus import CORPUS, PROSE_FACT


def _leaks(folders: list[Path]) -> list[str]:
    found = []
    for folder in folders:
        for path in folder.rglob("*"):
            if not path.is_file():
                continue
            data = path.read_bytes()
            found += [f"{kind} in {path.name}" for kind, _text, secret in CORPUS
                      if secret.encode() in data]
    return found


async def test_secrets_planted_through_every_door_reach_no_file(
    workspace: Path, model_server: ScriptedModelServer, model_settings: ModelSettings,
    isolated_user_data: Path,
) -> None:
    codemap = CodeMap.open(workspace)
    codemap.index()
    memory = MemoryService.open(workspace)
    ledger = Ledger.open(workspace, settings=LedgerSettings(store_content=True),
                         start_flusher=False)
    texts = [text for _kind, text, _secret in CORPUS]
    try:
        for n, text in enumerate(texts):  # the memory door, both durable scopes
            for scope in ("project", "user"):
                memory.remember(f"Deploy step {n} of the {scope} runbook needs {text} today",
                                scope=scope)
        ledger.record(task_id="ledger-door", call_type="plan", model="gpt-4o",
                      prompt_text="\n".join(texts), completion_text=" ".join(reversed(texts)))

        model_server.push(
            calls(ScriptedCall("run_command", {"command": f"echo {texts[0]} {texts[9]}"}),
                  ScriptedCall("write_file", {"path": "notes/creds.txt",
                                              "content": "\n".join(texts[28:])})),
            calls(*(ScriptedCall("remember", {"content": f"The deploy uses {text} here"})
                    for text in texts[:6]), ScriptedCall("remember", {"content": PROSE_FACT})),
            calls(ScriptedCall("note_finding",
                               {"finding": "CI reads " + " and ".join(texts[6:28])})),
            say("Done. For the record: " + " ; ".join(texts)),
        )
        loop = build_loop(workspace, model_settings, codemap=codemap, memory=memory,
                          ledger=ledger)
        result = await loop.run("Set up the deploy with these: " + " ; ".join(texts), "edit")
        assert result.stop_reason == "answered"
        assert [c.name for c in result.tool_calls].count("remember") == 7
    finally:
        ledger.close()
        memory.close()
        codemap.close()

    assert (workspace / "notes" / "creds.txt").is_file()  # the workspace itself may hold them
    assert any((workspace / ".codekeep").glob("audit.db*"))
    leaks = _leaks([workspace / ".codekeep", isolated_user_data])
    assert leaks == []
