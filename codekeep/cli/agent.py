"""``codekeep agent "TASK"``: run the agent on a task from the terminal.

Thin door: parse arguments, open the workspace services, hand the task to
:func:`codekeep.agent.runner.run_task`, print the result.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from codekeep.cli.options import common_options, emit_json, fail, positive_int, root_of, settings_of

ORDER = 90
COMMANDS = {"agent": "run the agent on a task (needs CODEKEEP_MODEL)"}


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
             only: str | None = None) -> None:
    parser = subparsers.add_parser(
        "agent", parents=[common_options()],
        help=COMMANDS["agent"],
        description="Run the CodeKeep agent on TASK with the code map, memory and tools. "
                    "The model comes from the settings (codekeep.agent in "
                    ".codekeep/config.toml ...), CODEKEEP_MODEL / CODEKEEP_BASE_URL / "
                    "CODEKEEP_API_KEY (or OPENAI_API_KEY), or --model / --base-url.",
    )
    parser.add_argument("task", help="what the agent should do, in plain words")
    parser.add_argument("--capability", choices=("explore", "chat", "edit"), default="chat",
                        help="which tools the agent may use (default: chat)")
    parser.add_argument("--model", help="model name (overrides CODEKEEP_MODEL)")
    parser.add_argument("--base-url", help="OpenAI-compatible endpoint (overrides "
                                           "CODEKEEP_BASE_URL)")
    parser.add_argument("--budget", type=positive_int, default=None,
                        help="token budget for this task (warned at 75 %%, summarised at 100 %%)")
    parser.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    import asyncio

    from codekeep.agent.model_client import ModelError
    from codekeep.agent.runner import run_task
    from codekeep.settings.agent import ModelNotConfigured

    settings = settings_of(args, {"agent": {"model": args.model, "baseUrl": args.base_url}})
    on_event = None if args.json else _print_event
    try:
        result = asyncio.run(run_task(root_of(args), args.task, capability=args.capability,
                                      settings=settings, token_budget=args.budget,
                                      on_event=on_event))
    except ModelNotConfigured as exc:
        return fail(str(exc), 2)
    except (ModelError, ValueError) as exc:
        return fail(str(exc))
    if args.json:
        emit_json(result.to_json())
    else:
        print(result.answer)
        print(f"\n[{result.task_id}] {result.iterations} model calls · {result.tokens:,} tokens "
              f"· {len(result.tool_calls)} tool calls · stopped: {result.stop_reason}",
              file=sys.stderr)
        for number, call in enumerate(result.tool_calls, 1):
            print(f"  {number}. {tool_call_line(call.to_json())}", file=sys.stderr)
        for line in learned_lines(result.extracted):
            print(line, file=sys.stderr)
    return 0 if result.finished else 1  # a cut-off, empty or refused answer is no success


def learned_lines(extracted: dict[str, Any] | None) -> list[str]:
    """What memory took from the task (observed until seen again or confirmed)."""
    from codekeep.memory.model import KEPT  # the CLI starts without memory's package

    if not extracted:
        return []
    kept = [w for w in extracted["written"] if w["action"] in KEPT]
    lines = [f"  learned: {w['content']} [{w['id']}]" for w in kept]
    if extracted["rejected"]:
        lines.append(f"  not learned: {len(extracted['rejected'])} (codekeep agent --json "
                     "lists each with its reason)")
    return lines


def tool_call_line(call: dict[str, Any]) -> str:
    """``find_symbol -> ok (12 ms) pkg/billing.py``: one tool call, as printed."""
    files = call["files"]
    shown = " ".join(files[:3]) + (f" (+{len(files) - 3} more)" if len(files) > 3 else "")
    return f"{call['name']} -> {call['outcome']} ({call['durationMs']:,.0f} ms) {shown}".rstrip()


def _print_event(kind: str, payload: dict[str, Any]) -> None:
    """Progress on stderr so stdout stays the answer."""
    if kind == "nudge":
        line = f"nudge {payload['type']}: {payload['text'].splitlines()[0]}"
    elif kind == "budget":
        used, limit, threshold = payload["used"], payload["limit"], payload["threshold"]
        # One round can cross 75 % and 100 % at once: say which mark each line is for.
        mark = "budget spent" if threshold >= 1 else f"past the {threshold:.0%} mark"
        line = f"budget: {used:,} of {limit:,} tokens ({payload['ratio']:.0%}), {mark}"
    elif kind == "tool":
        line = f"  {tool_call_line(payload)}"
    elif kind == "progress" and not payload.get("done"):
        line = f"[{payload['phase']}] step {payload['step']}/{payload['maxSteps']}"
    else:
        return
    print(line, file=sys.stderr, flush=True)
