"""Impact over LSP: what the folder's git diff changes, who calls it, which tests reach it.

Request (also the command ``codekeep.impact`` taking the same object):
``codekeep/impact`` ``{uri?, revRange?, staged?, worktree?, depth?}`` -> what ``codekeep
impact --json`` prints (docs/codemap.md, *Impact of a diff*): ``{base, head, files,
symbols: [{id, name, kind, path, line, change, risk, callers, tests}]}``, lines 1-based.
With none of ``revRange``, ``staged``, ``worktree``: HEAD against the files on disk
(open buffers count as they are on disk: save first). Editors draw it as a tree (VS Code)
or a quickfix list (Neovim).
"""

from __future__ import annotations

from typing import Any

from codekeep.analysis.impact import DEFAULT_DEPTH, DiffSides, ImpactError, impact
from codekeep.server import params as p
from codekeep.server.app import CodeKeepServer
from codekeep.server.extensions import custom_request, target_folder
from codekeep.services import WorkspaceServices

MAX_DEPTH = 10


def _sides(params: dict[str, Any]) -> DiffSides:
    rev_range = p.optional_str(params, "revRange")
    staged, worktree = bool(params.get("staged")), bool(params.get("worktree"))
    if sum(map(bool, (rev_range, staged, worktree))) > 1:
        raise p.InvalidParams("give one of revRange, staged, worktree")
    if rev_range is not None and rev_range.startswith("-"):
        raise p.InvalidParams("a revision range never starts with '-'")
    return DiffSides.of(rev_range, staged=staged, worktree=worktree)


async def impact_request(server: CodeKeepServer, params: dict[str, Any]) -> Any:
    """The folder's diff mapped to symbols, on the folder's worker (it reads the index)."""
    folder = target_folder(server, params)
    sides = _sides(params)
    given = p.optional_int(params, "depth", maximum=MAX_DEPTH)
    depth = DEFAULT_DEPTH if given is None else given

    def run(services: WorkspaceServices) -> Any:
        try:
            return impact(services.codemap, sides, depth).to_json()
        except ImpactError as error:
            raise p.InvalidParams(str(error)) from None

    return await folder.run(run)


def register(server: CodeKeepServer) -> None:
    custom_request(server, "impact")(impact_request)
