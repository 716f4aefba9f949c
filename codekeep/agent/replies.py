"""Replies that are not a clean answer, and what the loop tells the model about them.

Real endpoints stop an answer at the output allowance (``finish_reason: length``),
filter it (``content_filter``), send nothing, or refuse. A cut-off reply's tool calls
carry unterminated arguments: repairing them would "close" a ``write_file`` content
mid-file and overwrite the file with its first lines, so such a call is never run and
the model is asked again with the reason. These texts are what the model and the user
read in each case; the loop decides when they apply.
"""

from __future__ import annotations

import re
from typing import Any

from codekeep.agent.model_client import ChatResponse

# A reply that says it will not do the task, as models word it (short replies only: a
# long answer that apologises for something is still an answer).
_REFUSAL = re.compile(
    r"^\W*(?:i'?m sorry|sorry|i apologi[sz]e|unfortunately)?[,.!\s]*(?:but\s+)?"
    r"(?:i\s+(?:can(?:no|')t|cannot|am not able to|am unable to|won'?t|will not)"
    r"\s+(?:help|assist|comply)\b"
    r"|i'?m (?:not able|unable) to (?:help|assist|comply))", re.IGNORECASE)
_REFUSAL_MAX_CHARS = 300
EMPTY_NUDGE = ("Your previous reply was empty. Answer the task in plain text, or call one "
               "of your tools to find what you need.")
REFUSAL_NUDGE = ("Your previous reply declined the task. It is a coding task in the "
                 "developer's own workspace: do it with your tools, or say in one sentence "
                 "what exactly stops you.")


def refused(response: ChatResponse) -> str | None:
    """The refusal a reply without tool calls carries, or None."""
    if response.refusal:
        return response.refusal
    text = response.content.strip()
    if text and len(text) <= _REFUSAL_MAX_CHARS and _REFUSAL.search(text):
        return text
    return None


def no_answer(kind: str, text: str | None) -> str:
    """The task's answer when the model gave none, or refused twice: never ``""``."""
    if kind == "refused":
        return f"The model refused the task: {text}"
    return "The model gave no answer (its replies were empty)."


# A cut-off reply is asked again at most this often in a row (each time with a larger
# output allowance where the endpoint's window has room), then the task stops.
MAX_CUT_OFF_REASKS = 2


def cut_off_call(name: str, arguments_chars: int, reason: str | None) -> str:
    """The tool result standing in for a call from a cut-off reply (it did not run)."""
    return (f"NOT RUN [cut_off]: your reply was cut off (finish_reason: {reason}) after "
            f"{arguments_chars} characters of this {name} call's arguments, so they are "
            "incomplete. Nothing was run and no file was changed. Send the call again, "
            "complete; write a large change in smaller pieces.")


def cut_off_answer(reason: str | None) -> str:
    """What the next request says after a text answer was cut off."""
    return (f"Your previous answer was cut off (finish_reason: {reason}) before it ended. "
            "Answer again, complete and shorter.")


def cut_off_assistant(response: ChatResponse) -> dict[str, Any]:
    """The cut-off reply as the conversation keeps it: its text, and each call with an
    empty argument object (the unterminated JSON would make some servers refuse the
    whole next request)."""
    message: dict[str, Any] = {"role": "assistant", "content": response.content}
    if response.tool_calls:
        message["tool_calls"] = [
            {"id": call.id, "type": "function",
             "function": {"name": call.name, "arguments": "{}"}}
            for call in response.tool_calls]
    return message


def marked_cut_off(content: str, reason: str | None, calls_not_run: int) -> str:
    """The task's answer when the model's last reply was still cut off: the user must
    not take a partial text for a complete one."""
    note = (f"[cut off: the model's reply stopped at its output limit (finish_reason: "
            f"{reason}) and was not finished")
    if calls_not_run:
        note += f"; {calls_not_run} cut-off tool call(s) were not run and no file was changed"
    note += "]"
    return f"{content.rstrip()}\n\n{note}" if content.strip() else note
