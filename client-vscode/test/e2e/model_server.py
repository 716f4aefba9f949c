"""A scripted OpenAI-compatible model on 127.0.0.1 for the VS Code end-to-end test.

Prints its base URL on the first line of stdout, then serves until stdin closes (the test
runner holds the pipe, so the model dies with the run). The agent asks it twice: first it
calls the find_symbol tool, then it answers — so Run Agent Task exercises the real agent
loop, tools, ledger and progress end to end without any network beyond 127.0.0.1.
"""

import sys

from codekeep.testing.scripted_server import ScriptedModelServer, call, say

ANSWER = "Inventory is defined in shop/inventory.py; OrderBook.place takes goods out of it."


def main() -> None:
    script = [call("find_symbol", {"name": "Inventory"}), say(ANSWER)]
    with ScriptedModelServer(script, responder=lambda _body: say(ANSWER)) as server:
        print(server.base_url, flush=True)
        sys.stdin.read()


if __name__ == "__main__":
    main()
