"""Claude Code transcript lines as Claude Code 2.1 writes them (field names checked
against real transcripts: ``message.usage.cache_creation.ephemeral_1h_input_tokens``,
``output_tokens_details.thinking_tokens``, ``toolUseResult.file``, ``compact_boundary``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SESSION = "7ae0755f-401a-408e-bb04-1c29d7e5c084"
SONNET = "claude-sonnet-4-5-20250929"


def usage(*, fresh: int = 100, read: int = 0, write_5m: int = 0, write_1h: int = 0,
          output: int = 20, thinking: int = 0, searches: int = 0,
          speed: str = "standard", geo: str = "not_available") -> dict[str, Any]:
    return {
        "input_tokens": fresh, "cache_creation_input_tokens": write_5m + write_1h,
        "cache_read_input_tokens": read, "output_tokens": output,
        "output_tokens_details": {"thinking_tokens": thinking},
        "server_tool_use": {"web_search_requests": searches, "web_fetch_requests": 0},
        "service_tier": "standard",
        "cache_creation": {"ephemeral_1h_input_tokens": write_1h,
                           "ephemeral_5m_input_tokens": write_5m},
        "inference_geo": geo, "speed": speed,
    }


def _common(uuid: str, ts: str, sidechain: bool, agent: str | None) -> dict[str, Any]:
    entry = {"parentUuid": None, "isSidechain": sidechain, "userType": "external",
             "cwd": "/proj", "sessionId": SESSION, "version": "2.1.332", "gitBranch": "main",
             "uuid": uuid, "timestamp": ts}
    if agent:
        entry["agentId"] = agent
    return entry


def assistant(message_id: str, *, request: str | None = None, model: str = SONNET,
              content: list[dict[str, Any]] | None = None, ts: str = "2026-12-01T10:00:00.000Z",
              sidechain: bool = False, agent: str | None = None,
              **counts: Any) -> dict[str, Any]:
    return {
        **_common(f"u-{message_id}-{len(json.dumps(content))}", ts, sidechain, agent),
        "type": "assistant", "requestId": request or f"req-{message_id}",
        "message": {"id": message_id, "type": "message", "role": "assistant", "model": model,
                    "content": content or [{"type": "text", "text": "Done."}],
                    "stop_reason": None, "stop_sequence": None, "usage": usage(**counts)},
    }


def read_use(tool_id: str, path: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_id, "name": "Read", "input": {"file_path": path}}


def read_result(tool_id: str, path: str, text: str, *, ts: str = "2026-12-01T10:00:01.000Z",
                sidechain: bool = False, agent: str | None = None) -> dict[str, Any]:
    numbered = "\n".join(f"{n:>6}\t{line}" for n, line in enumerate(text.splitlines(), 1))
    return {
        **_common(f"u-result-{tool_id}", ts, sidechain, agent),
        "type": "user",
        "message": {"role": "user", "content": [
            {"tool_use_id": tool_id, "type": "tool_result", "content": numbered}]},
        "toolUseResult": {"type": "text", "file": {
            "filePath": path, "content": text, "numLines": len(text.splitlines()),
            "startLine": 1, "totalLines": len(text.splitlines())}},
    }


def user(text: str, ts: str = "2026-12-01T09:59:59.000Z") -> dict[str, Any]:
    return {**_common(f"u-user-{len(text)}", ts, False, None), "type": "user",
            "message": {"role": "user", "content": text}}


def compact_boundary(ts: str = "2026-12-01T10:05:00.000Z") -> dict[str, Any]:
    return {**_common("u-compact", ts, False, None), "type": "system",
            "subtype": "compact_boundary", "content": "Conversation compacted",
            "compactMetadata": {"trigger": "manual", "preTokens": 12000}}


def api_error(text: str, ts: str = "2026-12-01T10:06:00.000Z") -> dict[str, Any]:
    return {**_common(f"u-error-{ts}", ts, False, None), "type": "assistant",
            "isApiErrorMessage": True,
            "message": {"id": f"err-{ts}", "type": "message", "role": "assistant",
                        "model": "<synthetic>", "content": [{"type": "text", "text": text}],
                        "usage": usage(fresh=0, output=0)}}


def write(path: Path, entries: list[dict[str, Any]], *, tail: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(e) + "\n" for e in entries) + tail, encoding="utf-8")
    return path


def append(path: Path, entries: list[dict[str, Any]], *, tail: str = "") -> None:
    with path.open("a", encoding="utf-8") as handle:
        handle.write("".join(json.dumps(e) + "\n" for e in entries) + tail)
