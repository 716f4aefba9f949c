"""A scripted OpenAI-compatible model on 127.0.0.1 for the VS Code end-to-end test.

Prints its base URL on the first line of stdout, then serves until stdin closes (the test
runner holds the pipe, so the model dies with the run). The first task's two requests
follow the script: the find_symbol tool, then the answer — so Run Agent Task exercises
the real agent loop, tools, ledger and progress end to end without any network beyond
127.0.0.1. Afterwards every request that offers ``write_file`` (an edit task) is
answered with that call cut off at the output limit (``finish_reason: length``, its
arguments unterminated mid-string, as real endpoints send it), and anything else
(memory's summary and extraction calls) with the answer.
"""

import sys
from typing import Any

from codekeep.testing.scripted_server import Reply, ScriptedModelServer, call, cut_off, say

ANSWER = "Inventory is defined in shop/inventory.py; OrderBook.place takes goods out of it."
# What the cut-off write would have made of shop/inventory.py: its first lines only.
REWRITE = {"path": "shop/inventory.py",
           "content": '"""Stock levels per product."""\n\n' + "# refuses negative amounts\n" * 40}


def respond(body: dict[str, Any]) -> Reply:
    offered = {tool["function"]["name"] for tool in body.get("tools") or []}
    return cut_off("write_file", REWRITE) if "write_file" in offered else say(ANSWER)


def main() -> None:
    script = [call("find_symbol", {"name": "Inventory"}), say(ANSWER)]
    with ScriptedModelServer(script, responder=respond) as server:
        print(server.base_url, flush=True)
        sys.stdin.read()


if __name__ == "__main__":
    main()
