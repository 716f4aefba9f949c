"""What the user chose for one ``codekeep mcp`` process (flags today, settings later).

Kept free of the SDK so the command line can validate its flags without importing it.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from pathlib import Path

DEFAULT_ANSWER_CHARS = 12_000  # about 3,000 tokens: an answer never floods the client


class OptionsError(ValueError):
    """A flag combination that cannot be served safely; the message says what to add."""


@dataclass(frozen=True, slots=True)
class HttpBind:
    """Where the streamable HTTP transport listens (``/mcp`` on ``host:port``)."""

    host: str
    port: int

    @classmethod
    def parse(cls, value: str) -> HttpBind:
        """``127.0.0.1:8765`` or ``[::1]:8765``; the port must be 1-65535."""
        host, sep, port = value.rpartition(":")
        host = host.strip("[]")
        if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise OptionsError(f"expected HOST:PORT (e.g. 127.0.0.1:8765), got {value!r}")
        return cls(host, int(port))

    @property
    def loopback(self) -> bool:
        if self.host == "localhost":
            return True
        try:
            return ipaddress.ip_address(self.host).is_loopback
        except ValueError:  # a host name other than localhost may resolve anywhere
            return False

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/mcp"


@dataclass(frozen=True, slots=True)
class McpOptions:
    """``allow_write`` / ``allow_commands`` switch on ``write_file`` / ``run_command``
    (still path-guarded and policy-checked); ``all_tools`` lists every tool up front
    for hosts that ignore ``tools/list_changed``; ``answer_chars`` bounds each answer.
    Over HTTP a non-loopback bind needs ``allow_remote`` and a bearer ``token``.
    """

    root: Path
    allow_write: bool = False
    allow_commands: bool = False
    all_tools: bool = False
    answer_chars: int = DEFAULT_ANSWER_CHARS
    http: HttpBind | None = None
    allow_remote: bool = False
    token: str | None = None

    def checked(self) -> McpOptions:
        """These options, or an :class:`OptionsError` naming what is missing."""
        if self.answer_chars < 500:
            raise OptionsError("--max-answer-chars must be at least 500")
        if self.token is not None and len(self.token) < 16:
            raise OptionsError("the bearer token must be at least 16 characters long")
        if self.http is not None and not self.http.loopback:
            if not self.allow_remote:
                raise OptionsError(
                    f"{self.http.host} is not a loopback address; pass --allow-remote "
                    "(and a token) to serve other machines"
                )
            if self.token is None:
                raise OptionsError(
                    "serving a non-loopback address needs a bearer token "
                    "(--token-env NAME, the variable holding it)"
                )
        return self
