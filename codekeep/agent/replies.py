"""Replies that are not a clean answer, and what the loop tells the model about them.

Real endpoints stop an answer at the output allowance (``finish_reason: length``),
filter it (``content_filter``), send nothing, or refuse. A cut-off reply's tool calls
carry unterminated arguments: repairing them would "close" a ``write_file`` content
mid-file and overwrite the file with its first lines, so such a call is never run and
the model is asked again with the reason. These texts are what the model and the user
read in each case; the loop decides when they apply.
"""

from __future__ import annotations

from typing import Any

from codekeep.agent.model_client import ChatResponse

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
