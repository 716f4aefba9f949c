"""The event stream and the rule-based summary layer above it.

* ``record`` appends an event (file read/edit, command, test result, ...). Events are
  never changed; the database refuses updates.
* A task's unsummarised events are summarised when they exceed 8,000 tokens **and**
  are at least 3× the size of the summary that would replace them (summarising a short
  task costs more than it saves). At task end the remainder is always summarised.
* The summary always carries the three fields that stop summaries losing information:
  **Files**, **Operations**, **Result**. When the agent has a model it asks it for
  exactly that template (:func:`model_summary` checks the answer: every field present,
  every file real); an answer that fails the check is not used and the rule-based
  summary is written instead, with the reason in its history.
* Each successful command in a summarised batch is recorded as an *observed* fact
  with the event as evidence; when the same fact recurs in 5 tasks the write path
  promotes it to knowledge.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codekeep.common.secrets import redact_text, redact_value
from codekeep.common.tokens import token_len
from codekeep.memory.model_json import parse_model_json
from codekeep.memory.store import MemoryStore
from codekeep.settings.memory import MemorySettings

SUMMARY_FIELDS = ("files", "operations", "result")
RESULT_CHARS = 2_000

_OPERATION_NAMES = {
    "file_read": "read",
    "file_edit": "edited",
    "file_create": "created",
    "file_delete": "deleted",
    "command": "ran",
    "test_result": "tested",
    "search": "searched",
    "user_message": "asked",
}


@dataclass(frozen=True, slots=True)
class Event:
    id: int
    task_id: str
    at: float
    event_type: str
    summary: str
    files: list[str]
    data: dict[str, Any] | None
    tokens: int

    def text(self) -> str:
        return self.summary + (" " + json.dumps(self.data, sort_keys=True) if self.data else "")

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "taskId": self.task_id,
            "at": self.at,
            "type": self.event_type,
            "summary": self.summary,
            "files": self.files,
            "data": self.data,
            "tokens": self.tokens,
        }


def _event(row: Any) -> Event:
    return Event(
        row["id"],
        row["task_id"],
        row["at"],
        row["event_type"],
        row["summary"],
        json.loads(row["files"]),
        json.loads(row["data"]) if row["data"] else None,
        row["tokens"],
    )


class EventLog:
    def __init__(self, store: MemoryStore, settings: MemorySettings) -> None:
        self.store = store
        self.settings = settings

    def record(
        self,
        task_id: str,
        event_type: str,
        summary: str,
        files: Sequence[str],
        data: dict[str, Any] | None,
    ) -> Event:
        # task text, answers and tool summaries arrive here verbatim: hide their secrets
        summary, data = redact_text(summary), redact_value(data) if data else None
        body = summary + (json.dumps(data, sort_keys=True) if data else "")
        with self.store.transaction():
            row = self.store.events.append(
                task_id, self.settings.clock(), event_type, summary, files, data, token_len(body)
            )
        return _event(row)

    def event_text(self, event_id: int) -> str | None:
        row = self.store.events.get(event_id)
        return _event(row).text() if row else None

    def events(self, task_id: str, after: int = 0) -> list[Event]:
        return [_event(r) for r in self.store.events.of_task(task_id, after)]

    def summarised_up_to(self, task_id: str) -> int:
        return self.store.events.summarised_up_to(task_id)

    def unsummarised(self, task_id: str) -> list[Event]:
        return self.events(task_id, self.summarised_up_to(task_id))

    def over_threshold(self, events: Sequence[Event]) -> bool:
        return sum(e.tokens for e in events) > self.settings.summary_threshold_tokens

    def should_summarise(self, events: Sequence[Event], summary_text: str) -> bool:
        """Over the threshold *and* at least 3× the size of the summary replacing them."""
        return self.over_threshold(events) and sum(
            e.tokens for e in events
        ) >= self.settings.summary_min_ratio * token_len(summary_text)

    def cover(
        self, summary_id: str, task_id: str, events: Sequence[Event], summary_tokens: int
    ) -> None:
        self.store.events.cover(
            summary_id,
            task_id,
            events[0].id,
            events[-1].id,
            sum(e.tokens for e in events),
            summary_tokens,
        )


def structured_summary(task_id: str, events: Sequence[Event]) -> str:
    """Files, operations and result of a batch of events, deterministically."""
    per_file: dict[str, Counter[str]] = {}
    operations: Counter[str] = Counter()
    commands: Counter[str] = Counter()
    for event in events:
        operation = _OPERATION_NAMES.get(event.event_type, event.event_type)
        operations[operation] += 1
        for path in event.files:
            per_file.setdefault(path, Counter())[operation] += 1
        command = (event.data or {}).get("command")
        if command:
            commands[str(command)] += 1
    files = (
        "; ".join(
            f"{path} ({', '.join(f'{op} ×{n}' if n > 1 else op for op, n in ops.items())})"
            for path, ops in sorted(per_file.items())
        )
        or "none"
    )
    ops_text = ", ".join(f"{op} ×{n}" for op, n in operations.most_common())
    if commands:
        ops_text += "; commands: " + ", ".join(
            f"`{c}`" + (f" ×{n}" if n > 1 else "") for c, n in commands.most_common(8)
        )
    result = batch_result(events)
    if len(result) > RESULT_CHARS:  # a summary stays a summary, whatever the last event held
        result = result[:RESULT_CHARS] + " …"
    return (
        f"Task {task_id}: {len(events)} events.\n"
        f"Files: {files}\nOperations: {ops_text or 'none'}\nResult: {result}"
    )


def batch_result(events: Sequence[Event]) -> str:
    """The outcome a reader needs: the last test result or failing command, else the last event."""
    for event in reversed(events):
        data = event.data or {}
        if event.event_type == "test_result" or "passed" in data or "failed" in data:
            return f"{event.summary}"
        if event.event_type == "command" and data.get("exit_code") not in (None, 0):
            return f"command failed (exit {data['exit_code']}): {event.summary}"
    return events[-1].summary if events else "nothing happened"


def successful_commands(events: Sequence[Event]) -> list[Event]:
    """Command events that exited 0: candidates for recurring-fact promotion."""
    seen: dict[str, Event] = {}
    for event in events:
        data = event.data or {}
        if event.event_type == "command" and data.get("command") and data.get("exit_code") == 0:
            seen.setdefault(str(data["command"]), event)
    return list(seen.values())


SUMMARY_TEMPLATE = (
    'Summarise these events of a coding task as ONLY a JSON object {"files": ["<workspace '
    'path>", ...], "operations": "<what was done, one sentence>", "result": "<how it ended, '
    'one sentence>"}. All three fields are required; list only files that appear in the '
    "events."
)


def model_summary(task_id: str, events: Sequence[Event], text: str, root: Path
                  ) -> tuple[str | None, str | None]:
    """``(summary text, None)`` when the model's answer follows the template, else
    ``(None, reason)``: not JSON, a field missing or empty, or a file that does not
    exist in the workspace and is not named by any event."""
    try:
        payload = parse_model_json(text)
    except ValueError as exc:
        return None, f"the model's summary is not JSON ({exc})"
    if not isinstance(payload, dict):
        return None, "the model's summary is not a JSON object"
    missing = [name for name in SUMMARY_FIELDS if not payload.get(name)]
    if missing:
        return None, f"the model's summary is missing the {', '.join(missing)} field"
    files, operations, result = (payload[name] for name in SUMMARY_FIELDS)
    if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
        return None, "the model's summary lists files that are not paths"
    if not isinstance(operations, str) or not isinstance(result, str):
        return None, "the model's summary has operations or result that is not text"
    named = {path for event in events for path in event.files}
    for path in files:
        if path not in named and not _inside_file(root, path):
            return None, f"the model's summary names a file that does not exist: {path}"
    return (f"Task {task_id}: {len(events)} events (summary written by the model).\n"
            f"Files: {'; '.join(files)}\nOperations: {' '.join(operations.split())}\n"
            f"Result: {' '.join(result.split())}"), None


def summary_request(events: Sequence[Event]) -> list[dict[str, str]]:
    """The messages asking a model for :data:`SUMMARY_TEMPLATE` over ``events``."""
    lines = [f"[{e.event_type}] {e.summary[:600]}" + (f" (files: {', '.join(e.files)})"
                                                      if e.files else "") for e in events]
    return [{"role": "system", "content": SUMMARY_TEMPLATE},
            {"role": "user", "content": "\n".join(lines)[-16_000:]}]


def _inside_file(root: Path, path: str) -> bool:
    candidate = (root / path).resolve()
    return candidate.is_relative_to(root.resolve()) and candidate.is_file()
