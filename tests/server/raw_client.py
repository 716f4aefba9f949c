"""A JSON-RPC client that speaks raw bytes to a real ``codekeep serve`` over stdio.

pytest-lsp's client refuses to send malformed messages and cannot send batches; this one
puts anything on the wire and reads every answer as plain JSON. Requests the server
sends us (``workspace/configuration``, ``client/registerCapability``, progress tokens)
are answered the way a minimal editor answers them, so the server never waits on us.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Sequence
from typing import Any

from tests.server.lsp_harness import SERVER_COMMAND, SERVER_ENV

ANSWER_TIMEOUT = 15.0  # seconds; far above any normal latency, so "no answer" fails


class RawServer:
    """One server process; :meth:`send` writes, :meth:`answer` waits for a response."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self._answers: asyncio.Queue[Any] = asyncio.Queue()
        self._reader = asyncio.create_task(self._read())

    @classmethod
    async def start(cls, command: Sequence[str] = SERVER_COMMAND) -> RawServer:
        process = await asyncio.create_subprocess_exec(
            *command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            env=SERVER_ENV,
        )
        return cls(process)

    def send_bytes(self, body: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))

    def send(self, message: Any) -> None:
        """Any JSON value as one message (an object, an array for a batch, ...)."""
        self.send_bytes(json.dumps(message).encode("utf-8"))

    async def answer(self, timeout: float = ANSWER_TIMEOUT) -> Any:
        """The next response (or batch of responses) the server sends."""
        return await asyncio.wait_for(self._answers.get(), timeout)

    async def call(self, method: str, params: Any = None, msg_id: Any = 1) -> Any:
        """Send one well-formed request and return its response object."""
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": msg_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        response = await self.answer()
        assert isinstance(response, dict) and response.get("id") == msg_id, response
        return response

    def quiet(self) -> bool:
        """True when no answer is waiting (a notification must not be answered)."""
        return self._answers.empty()

    async def close(self) -> int:
        """Shut down and exit politely; the process's exit code."""
        if self.process.returncode is None:
            with contextlib.suppress(Exception):
                self.send({"jsonrpc": "2.0", "id": "bye", "method": "shutdown"})
                await self.answer()
                self.send({"jsonrpc": "2.0", "method": "exit"})
            try:
                await asyncio.wait_for(self.process.wait(), 30)
            except TimeoutError:
                self.process.kill()
                await self.process.wait()
        self._reader.cancel()
        return self.process.returncode or 0

    async def _read(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        while True:
            length = 0
            while (line := await stdout.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode("ascii").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            if not line:
                return
            message = json.loads(await stdout.readexactly(length))
            if isinstance(message, dict) and "method" in message:
                self._serve_client_side(message)
            else:
                self._answers.put_nowait(message)

    def _serve_client_side(self, message: dict[str, Any]) -> None:
        if "id" not in message:
            return  # a notification: logs, progress, diagnostics
        result: Any = None
        if message["method"] == "workspace/configuration":
            result = [None] * len(message["params"]["items"])
        self.send({"jsonrpc": "2.0", "id": message["id"], "result": result})
