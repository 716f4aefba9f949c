"""Rename Symbol from the editor: ``textDocument/prepareRename`` and ``textDocument/rename``.

The edit is the one ``codekeep rename`` makes (``analysis.rename.plan_rename``: the
definition, resolved uses, imports, re-exports, ``__all__`` entries, ``export { }``,
``{@link}``), planned on the text the index holds (open buffers as they are) and
returned as a ``WorkspaceEdit`` for the editor to apply; the server writes nothing. Uses
matched only by name go in as edits that need the user's confirmation when the client
supports change annotations (VS Code's refactor preview); otherwise they are left out
and listed in a warning message: never changed silently.

Off for a file unless the setting ``renameLanguages`` lists its language (or ``*``): an
editor with the language's own server renames there, and two answers to one rename
compete. Off, both requests answer null, so the editor asks its other servers.
A refused rename (a name taken in the scope, not an identifier, a stale file) fails with
the reason as the message.
"""

from __future__ import annotations

from collections.abc import Callable

from lsprotocol import types

from codekeep.analysis.model import Encoding, Range, Symbol
from codekeep.analysis.registry import default_registry
from codekeep.analysis.rename import RenamePlan, plan_rename
from codekeep.analysis.symbol_edits import SymbolEditError
from codekeep.common.positions import byte_to_column
from codekeep.common.uris import path_to_uri
from codekeep.server.app import CodeKeepServer, DocumentRef
from codekeep.server.extensions import RequestFailed
from codekeep.server.locations import line_of, lsp_range
from codekeep.server.symbols import cursor, symbols_at
from codekeep.services import WorkspaceServices

NAME_MATCH = "codekeep.nameMatch"  # the change annotation of uses matched by name only
LISTED_MATCHES = 10  # name matches a message lists; the count says how many there are


def rename_enabled(services: WorkspaceServices, path: str) -> bool:
    """The setting lists ``path``'s language (or ``*``)."""
    wanted = services.settings.index.rename_languages
    if "*" in wanted:
        return True
    spec = default_registry().for_path(path)
    if spec is None:
        return False
    data = services.codemap.document_text(path) or b""
    return default_registry().refine(spec, path, data).name in wanted


def _target(services: WorkspaceServices, document: DocumentRef,
            position: types.Position) -> tuple[Symbol, Range] | None:
    """The one definition the name under the cursor designates, and that name's range;
    None off a name; refused when the name is ambiguous or an alias."""
    codemap = services.codemap
    at = cursor(codemap, document.path, position.line, position.character, document.encoding)
    if at is None:
        return None
    reference = codemap.reference_at(document.path, *at)
    if reference is not None:
        spot, name = reference.range, reference.name
        targets = symbols_at(codemap, document.path, *at)
    else:
        symbol = codemap.symbol_at(document.path, *at)
        if symbol is None or not symbol.selection_range.contains(*at):
            return None  # inside a body, not on a name
        spot, name, targets = symbol.selection_range, symbol.name, [symbol]
    if len(targets) != 1:
        raise RequestFailed(f"{name} may be any of {len(targets)} definitions; rename one "
                            "by id with codekeep rename" if targets
                            else f"{name} leads to no definition CodeKeep knows")
    if targets[0].name != name:
        raise RequestFailed(f"{name} is an alias of {targets[0].id}; rename it where it "
                            "is defined")
    return targets[0], spot


def prepare(services: WorkspaceServices, document: DocumentRef,
            position: types.Position) -> types.PrepareRenamePlaceholder | None:
    if not rename_enabled(services, document.path):
        return None
    found = _target(services, document, position)
    if found is None:
        return None
    symbol, spot = found
    return types.PrepareRenamePlaceholder(range=lsp_range(spot, document.encoding),
                                          placeholder=symbol.name)


def _range(text: bytes, line: int, byte_col: int, length: int,
           encoding: Encoding) -> types.Range:
    content = line_of(text, line) or b""
    return types.Range(
        start=types.Position(line=line, character=byte_to_column(content, byte_col, encoding)),
        end=types.Position(line=line, character=byte_to_column(content, byte_col + length,
                                                               encoding)))


def workspace_edit(plan: RenamePlan, document: DocumentRef, annotations: bool,
                   text_of: Callable[[str], bytes | None]) -> types.WorkspaceEdit:
    """The plan's sites as text edits per file; with ``annotations`` also its name
    matches, each needing the user's confirmation (they are left out otherwise).
    ``text_of`` reads a name match's file, which the plan did not read."""
    old = plan.symbol.name.encode("utf-8")
    edits: dict[str, list[types.TextEdit]] = {}
    seen: set[tuple[str, int, int]] = set()
    for site in plan.sites:
        if (site.path, site.line, site.byte_col) not in seen:
            seen.add((site.path, site.line, site.byte_col))
            edits.setdefault(site.path, []).append(types.TextEdit(
                range=_range(plan.old_text[site.path], site.line, site.byte_col, len(old),
                             document.encoding), new_text=plan.new_name))
    if not annotations:
        return types.WorkspaceEdit(changes={path_to_uri(document.root / path): found
                                            for path, found in sorted(edits.items())})
    named: dict[str, list[types.AnnotatedTextEdit]] = {}
    for ref in plan.unconfirmed:
        start = ref.range.start
        if ref.name != plan.symbol.name or (ref.path, start.line, start.byte_col) in seen:
            continue
        text = plan.old_text.get(ref.path) or text_of(ref.path) or b""
        named.setdefault(ref.path, []).append(types.AnnotatedTextEdit(
            annotation_id=NAME_MATCH, new_text=plan.new_name,
            range=_range(text, start.line, start.byte_col, len(old), document.encoding)))
    return types.WorkspaceEdit(
        document_changes=[types.TextDocumentEdit(
            text_document=types.OptionalVersionedTextDocumentIdentifier(
                uri=path_to_uri(document.root / path), version=None),
            edits=[*edits.get(path, []), *named.get(path, [])])
            for path in sorted(edits.keys() | named.keys())],
        change_annotations={NAME_MATCH: types.ChangeAnnotation(
            label="same name, not followed to this definition", needs_confirmation=True,
            description="matched by name only (its receiver's type is unknown): check it")})


def rename(services: WorkspaceServices, document: DocumentRef, params: types.RenameParams,
           annotations: bool) -> tuple[types.WorkspaceEdit, list[str]] | None:
    """The edit, and the name matches it leaves out (``path:line:column``, 1-based) for a
    client that cannot ask about them: the user is told of them instead."""
    if not rename_enabled(services, document.path):
        return None
    found = _target(services, document, params.position)
    if found is None:
        return None
    try:
        plan = plan_rename(services.codemap, found[0].id, params.new_name)
    except SymbolEditError as error:
        raise RequestFailed(str(error)) from None
    left = [] if annotations else [
        f"{ref.path}:{ref.range.start.line + 1}:{ref.range.start.byte_col + 1}"
        for ref in plan.unconfirmed]
    return workspace_edit(plan, document, annotations, services.codemap.document_text), left


def _annotations(server: CodeKeepServer) -> bool:
    """The client applies ``documentChanges`` and asks before annotated edits."""
    workspace = server.client_capabilities.workspace
    edit = workspace.workspace_edit if workspace is not None else None
    return bool(edit is not None and edit.document_changes and edit.change_annotation_support)


async def prepare_rename(
    ls: CodeKeepServer, params: types.PrepareRenameParams
) -> types.PrepareRenamePlaceholder | None:
    return await ls.on_document(params.text_document.uri,
                                lambda s, document: prepare(s, document, params.position))


async def rename_symbol(
    ls: CodeKeepServer, params: types.RenameParams
) -> types.WorkspaceEdit | None:
    annotations = _annotations(ls)
    answer = await ls.on_document(params.text_document.uri,
                                  lambda s, document: rename(s, document, params, annotations))
    if answer is None:
        return None
    edit, left = answer
    if left:
        shown = ", ".join(left[:LISTED_MATCHES]) + (" …" if len(left) > LISTED_MATCHES else "")
        ls.window_show_message(types.ShowMessageParams(
            type=types.MessageType.Warning,
            message=f"CodeKeep: {len(left)} uses of the same name were not renamed (matched by "
                    f"name only, not followed to this definition): {shown}. Check them."))
    return edit


def register(server: CodeKeepServer) -> None:
    server.feature(types.TEXT_DOCUMENT_PREPARE_RENAME)(prepare_rename)
    server.feature(types.TEXT_DOCUMENT_RENAME)(rename_symbol)
