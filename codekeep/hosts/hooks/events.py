"""One handler per Claude Code hook event: what CodeKeep does, and what it answers.

Each takes a :class:`HookCall` and returns the JSON object to print (``{}``: nothing
to add). SessionStart and UserPromptSubmit answer with
``hookSpecificOutput.additionalContext`` (the documented way to add context); the
others answer nothing and only record.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from codekeep.hosts.hooks import pending
from codekeep.hosts.hooks.session import HookInputError, SessionState, session_id, task_id

if TYPE_CHECKING:
    from codekeep.memory.service import MemoryService
    from codekeep.settings import Settings

#: Kinds a session start offers besides preferences, newest first within each.
_START_KINDS = ("note", "fact", "insight", "case", "soft_preference")
_PROMPT_KINDS = ("preference", "soft_preference", "fact", "insight", "note", "case")
_READ_TOOLS = {"Read", "NotebookRead"}
_EDIT_TOOLS = {"Edit", "MultiEdit", "NotebookEdit"}


@dataclass
class HookCall:
    """One hook invocation: its event, its JSON and the workspace it is about."""

    event: str
    payload: dict[str, Any]
    root: Path

    @cached_property
    def session(self) -> str:
        return session_id(self.payload)

    @cached_property
    def task(self) -> str:
        return task_id(self.session)

    @cached_property
    def settings(self) -> Settings:
        from codekeep.settings import load_settings

        return load_settings(self.root).settings

    @cached_property
    def memory(self) -> MemoryService:
        """The workspace's memory, with the tool uses PostToolUse noted since the last
        memory hook recorded first (see :mod:`~codekeep.hosts.hooks.pending`)."""
        from codekeep.memory import MemoryService

        memory = MemoryService.open(self.root, settings=self.settings.memory)
        try:
            with pending.taken(self.root, self.session) as noted:
                for item in noted:
                    memory.record_event(self.task, item.event_type, item.summary,
                                        files=item.files, data=item.data)
        except BaseException:
            memory.close()
            raise
        return memory

    @cached_property
    def state(self) -> SessionState:
        return SessionState.load(self.root, self.session)

    def save_state(self) -> None:
        self.state.save(self.root, self.session)

    def close(self) -> None:
        if "memory" in self.__dict__:
            self.memory.close()

    def relative(self, path: Any) -> str | None:
        """``path`` (absolute or relative to the hook's cwd) inside the workspace, else None."""
        if not isinstance(path, str) or not path:
            return None
        cwd = Path(str(self.payload.get("cwd") or self.root))
        full = Path(os.path.normpath(cwd / path))
        try:
            return full.relative_to(self.root).as_posix()
        except ValueError:
            return None


def _context(event: str, text: str) -> dict[str, Any]:
    if not text:
        return {}
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}


# ---- SessionStart -----------------------------------------------------------------------


def session_start(call: HookCall) -> dict[str, Any]:
    """What memory knows that matters now; after a compaction the session's corrections
    and last request first, since the compaction's summary may have lost them."""
    from codekeep.hosts.hooks import fence
    from codekeep.memory.model import MARKDOWN_SOURCE

    source = str(call.payload.get("source") or "startup")
    memory = call.memory
    sections: list[tuple[str, list[str]]] = []
    if source in ("compact", "resume"):
        state = call.state
        kept = [fence.plain_line(text, "your correction earlier in this session")
                for text in state.corrections]
        kept.append(fence.plain_line(state.last_request, "the request you were working on"))
        sections.append(("Earlier in this session the user said", [k for k in kept if k]))
        if state.changed:
            sections.append(("Files changed in this session",
                             [f"- {path}" for path in state.changed[-20:]]))
    defaults = memory.catalog.defaults()
    chosen = {k: v for k, v in memory.preferences().items() if v != defaults.get(k)}
    lines = [fence.plain_line(f"{key} = {value}", "preference") for key, value in
             sorted(chosen.items())]
    sections.append(("Preferences", [line for line in lines if line]))
    active = [m for m in memory.list(kinds=_START_KINDS, statuses=("active",), limit=80)
              if fence.injectable(m)]
    notes = [m for m in active if m.source == MARKDOWN_SOURCE]
    others = sorted((m for m in active if m.source != MARKDOWN_SOURCE),
                    key=lambda m: (-m.importance, -m.last_seen_at))
    sections.append(("From MEMORY.md", [fence.label(m) for m in notes]))
    sections.append(("Decisions, facts and cases", [fence.label(m) for m in others]))
    text = fence.fenced(sections, call.settings.hosts.session_start_budget)
    return _context("SessionStart", text)


# ---- UserPromptSubmit -------------------------------------------------------------------


def prompt_submit(call: HookCall) -> dict[str, Any]:
    """Learn from the user's words (the rule stage, through memory's write path), then
    inject what memory holds above the relevance floor for this prompt."""
    from codekeep.hosts.hooks import fence
    from codekeep.memory import extraction

    prompt = call.payload.get("prompt")
    if not isinstance(prompt, str):
        raise HookInputError("UserPromptSubmit without a prompt")
    call.state.asked(prompt)
    call.save_state()
    if not prompt.strip():
        return {}
    memory = call.memory
    memory.record_event(call.task, "user_message", prompt.strip())
    extraction.extract(memory, call.task)
    floor = call.settings.hosts.relevance_floor
    found = [r.memory for r in memory.recall(prompt, limit=12, kinds=_PROMPT_KINDS)
             if r.parts.relevance >= floor and fence.injectable(r.memory)]
    text = fence.fenced([("Recalled for this request", [fence.label(m) for m in found])],
                        call.settings.hosts.prompt_budget)
    return _context("UserPromptSubmit", text)


# ---- PostToolUse ------------------------------------------------------------------------


def tool_used(call: HookCall) -> dict[str, Any]:
    """Which files' text entered the context (re-reads counted), searches and commands,
    noted for the session's next memory hook (this hook runs after every tool call and
    then opens no store); which files changed, recorded at once with the edited file's
    symbols re-read, so memory links to code that went stale say so."""
    tool = str(call.payload.get("tool_name") or "")
    arguments = call.payload.get("tool_input")
    arguments = arguments if isinstance(arguments, dict) else {}
    path = call.relative(arguments.get("file_path") or arguments.get("notebook_path"))
    noted: pending.Noted | None = None
    if tool in _READ_TOOLS and path:
        times = call.state.read(path)
        call.save_state()
        note = f"read {path}" + (f" (read {times} times in this session)" if times > 1 else "")
        noted = pending.Noted("file_read", note, [path], {"reads": times})
    elif (tool in _EDIT_TOOLS or tool == "Write") and path:
        # An edit is recorded at once (after what was noted before it): memory links to
        # the symbols it removed go stale now, not at the end of the turn.
        created = tool == "Write" and path not in call.state.reads
        call.state.edited(path)
        call.save_state()
        memory = call.memory
        memory.record_event(call.task, "file_create" if created else "file_edit",
                            f"{'wrote' if created else 'edited'} {path}", files=[path])
        _relink(call, memory, path)
    elif tool in ("Grep", "Glob"):
        pattern = str(arguments.get("pattern") or "")
        noted = pending.Noted("search", f"{tool} {pattern}"[:300])
    elif tool == "Bash":
        command = str(arguments.get("command") or "").strip()
        if command:
            noted = pending.Noted("command", command[:500], data={
                "command": command[:500], "exit_code": _exit_code(call.payload)})
    elif tool.startswith("mcp__codekeep__"):
        files = sorted({p for p in map(call.relative, _paths_in(call.payload.get("tool_response")))
                        if p})[:20]
        noted = pending.Noted("search", f"{tool.removeprefix('mcp__codekeep__')} "
                              f"{_brief(arguments)}"[:300], files)
    if noted is not None:
        pending.note(call.root, call.session, noted)
    return {}


def _paths_in(response: Any) -> list[str]:
    """The ``path`` values of a CodeKeep tool's answer (its JSON, as text blocks or
    parsed): the files whose code the answer carried into the context."""
    if isinstance(response, str):
        try:
            response = json.loads(response)
        except ValueError:
            return []
    found: list[str] = []
    if isinstance(response, dict):
        value = response.get("path")
        if isinstance(value, str):
            found.append(value)
        for item in response.values():
            found += _paths_in(item) if isinstance(item, (dict, list)) else []
    elif isinstance(response, list):
        for item in response:
            if isinstance(item, dict) and item.get("type") == "text":
                found += _paths_in(item.get("text"))
            elif isinstance(item, (dict, list)):
                found += _paths_in(item)
    return found


def _exit_code(payload: dict[str, Any]) -> int | None:
    response = payload.get("tool_response")
    if not isinstance(response, dict):
        return None
    for key in ("exitCode", "exit_code", "returnCode"):
        if isinstance(response.get(key), int):
            return int(response[key])
    return 1 if response.get("interrupted") or response.get("is_error") else None


def _brief(arguments: dict[str, Any]) -> str:
    return " ".join(f"{k}={v}" for k, v in arguments.items() if isinstance(v, (str, int)))


def _relink(call: HookCall, memory: MemoryService, path: str) -> None:
    """Re-read ``path`` into the code map (when the workspace has one) and let memory
    mark links to symbols that are gone as stale — only when a memory is linked to the
    file or its symbols (parsing costs most of an edit's handling)."""
    from codekeep.analysis.codemap import INDEX_FILE, CodeMap

    if not (call.root / ".codekeep" / INDEX_FILE).is_file():
        return
    if not memory.memories_for_file(path):
        return
    codemap = CodeMap.open(call.root, call.settings.index)
    try:
        changes = codemap.refresh_file(path)
    finally:
        codemap.close()
    if not changes.is_empty():
        memory.apply_code_changes(changes)


# ---- PreCompact, Stop, SessionEnd ---------------------------------------------------------


def fold(call: HookCall) -> dict[str, Any]:
    """The transcript into the ledger (each call once) and the session into memory: a
    summary when enough happened (Stop), always before a compaction or at the end (the
    session's task closes at SessionEnd) — the model's when one is configured."""
    from codekeep.hosts.hooks.summary import session_summary
    from codekeep.hosts.hooks.transcript import fold_transcript

    transcript = call.payload.get("transcript_path")
    if isinstance(transcript, str) and transcript:
        fold_transcript(call, Path(transcript).expanduser())
    session_summary(call)
    return {}


HANDLERS: dict[str, Callable[[HookCall], dict[str, Any]]] = {
    "SessionStart": session_start,
    "UserPromptSubmit": prompt_submit,
    "PostToolUse": tool_used,
    "PreCompact": fold,
    "Stop": fold,
    "SessionEnd": fold,
}
