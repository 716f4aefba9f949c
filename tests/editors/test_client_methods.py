"""Both editor clients name the server's methods in one table each, and every name in
them is a method `codekeep serve` registers: a method renamed on the server fails here,
not in a user's editor. Fast: the tables are read as text, the server is built but not
started."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from codekeep.server.app import create_server

REPO = Path(__file__).resolve().parents[2]
LUA_TABLE = REPO / "editors/neovim/lua/codekeep/methods.lua"
TS_TABLE = REPO / "client-vscode/src/protocol.ts"
METHOD = re.compile(r"""(\w+)\s*[=:]\s*['"](codekeep/[\w/]+)['"]""")


def _table(text: str, start: str, stop: str | None = None) -> dict[str, str]:
    section = text.split(start, 1)[1]
    if stop is not None:
        section = section.split(stop, 1)[0]
    return dict(METHOD.findall(section))


@pytest.fixture(scope="module")
def registered() -> tuple[set[str], set[str]]:
    server = create_server()
    return set(server.custom_methods), set(server.client_notifications)


def _tables() -> dict[str, tuple[dict[str, str], dict[str, str]]]:
    lua, ts = LUA_TABLE.read_text(encoding="utf-8"), TS_TABLE.read_text(encoding="utf-8")
    return {
        "methods.lua": (_table(lua, "M.requests", "M.notifications"),
                        _table(lua, "M.notifications")),
        "protocol.ts": (_table(ts, "export const Methods", "export const Notifications"),
                        _table(ts, "export const Notifications", "export interface")),
    }


@pytest.mark.parametrize("client", ["methods.lua", "protocol.ts"])
def test_every_method_a_client_names_is_registered_by_the_server(
    client: str, registered: tuple[set[str], set[str]]
) -> None:
    requests, notifications = _tables()[client]
    assert requests and notifications
    assert sorted(set(requests.values()) - registered[0]) == []
    assert sorted(set(notifications.values()) - registered[1]) == []


def test_no_other_lua_module_spells_a_method_out() -> None:
    spelled = [
        f"{path.relative_to(REPO)}: {match}"
        for path in (REPO / "editors/neovim").rglob("*.lua") if path != LUA_TABLE
        for match in re.findall(r"""['"]codekeep/[\w/]+['"]""", path.read_text(encoding="utf-8"))
    ]
    assert spelled == [], "name it in methods.lua and use methods.requests.<name>"
