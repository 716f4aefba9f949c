"""The editor's open buffers of a code map: the live-edit part of :class:`CodeMap`.

An open buffer is the truth for its path until it is closed. An edit arrives as the
editor sends it — an LSP range (line, character in the negotiated encoding) and the new
text, or the whole text — and is converted to the buffer's (line, byte column) here,
against the buffer as it is before that edit (as the protocol defines), under one lock:
the server hands the edits over and is done. The buffer is re-parsed at once; with
``defer`` its facts are owed until :meth:`LiveBuffers.settle` (the requests that follow a
keystroke are answered from the new tree first).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from codekeep.analysis.errors import DocumentNotOpenError
from codekeep.analysis.model import ChangeSet, Encoding
from codekeep.analysis.registry import LanguageRegistry
from codekeep.common.positions import column_to_byte
from codekeep.settings.codemap import IndexSettings

if TYPE_CHECKING:
    from codekeep.analysis.documents import Document


@dataclass(frozen=True, slots=True)
class Edit:
    """One content change as the editor sent it: an LSP range as (line, character) pairs
    (None: the whole document) and the new text."""

    start: tuple[int, int] | None
    end: tuple[int, int] | None
    text: str


def clamped_byte_position(
    found: tuple[int, bytes], line: int, character: int, encoding: Encoding
) -> tuple[int, int]:
    """``(line, byte col)`` for an edit's LSP position, given the buffer's line as
    ``Document.line`` returns it (that line, or the last one when ``line`` does not
    exist): a line past the end means the end of the text (an edit range must always land
    somewhere)."""
    number, content = found
    if number != line:
        return number, len(content)
    return line, column_to_byte(content.removesuffix(b"\r"), character, encoding)


class LiveBuffers:
    """The buffer half of :class:`~codekeep.analysis.codemap.CodeMap`, which provides
    what is declared here (its lock, settings, language registry, and the commit of a
    file's facts to the index)."""

    root: Path
    settings: IndexSettings
    registry: LanguageRegistry
    _lock: threading.RLock
    _documents: dict[str, Document]
    _commit: Callable[..., ChangeSet]
    _refresh: Callable[..., ChangeSet]
    _disk_mtime: Callable[[str], int]
    _merge: Callable[[ChangeSet, ChangeSet], None]

    def open_document(self, path: str, text: str) -> ChangeSet:
        """The editor's buffer becomes the truth for ``path`` until it is closed."""
        from codekeep.analysis.documents import Document
        from codekeep.analysis.parsing import describe, is_binary

        data = text.encode("utf-8", "surrogatepass")
        with self._lock:
            spec = self.registry.for_path(path)
            if spec is None or len(data) > self.settings.max_file_bytes:
                self._documents.pop(path, None)
                return ChangeSet()
            if is_binary(data):  # a binary buffer: keep what the disk gave us
                return ChangeSet()
            spec = self.registry.refine(spec, path, data)
            document = Document.parse(spec, data)
            self._documents[path] = document
            result = describe(path, spec.name, data, self._disk_mtime(path), "indexed",
                              document.facts)
            return self._commit(path, document.facts, result=result, from_buffer=True)

    def apply_edit(self, path: str, start: tuple[int, int], end: tuple[int, int],
                   new_text: str, *, defer: bool = False) -> ChangeSet:
        """Apply one edit, (line, byte column) positions in the current buffer.

        With ``defer`` the buffer is re-parsed but its facts are owed until
        :meth:`settle` (an empty ChangeSet now; subscribers hear of it then).
        """
        with self._lock:
            document = self._documents.get(path)
            if document is None:
                raise DocumentNotOpenError(f"document is not open: {path}")
            document.edit(start, end, new_text)
            return ChangeSet() if defer else self._settle_document(path, document)

    def owes_facts(self) -> bool:
        """Does an open buffer owe its facts (an edit applied with ``defer``)?"""
        with self._lock:
            return any(not d.settled for d in self._documents.values())

    def settle(self) -> ChangeSet:
        """Extract and store the facts every open buffer owes (nothing to do: nothing
        happens); subscribers hear of what changed."""
        changes = ChangeSet()
        with self._lock:
            for path, document in list(self._documents.items()):
                if not document.settled:
                    self._merge(changes, self._settle_document(path, document))
        return changes

    def _settle_document(self, path: str, document: Document) -> ChangeSet:
        before = document.facts  # what the store holds for the buffer
        if not document.settle():
            return ChangeSet()
        return self._commit(path, document.facts, before=before, spec=document.spec)

    def close_document(self, path: str) -> ChangeSet:
        """Back to the disk content (the buffer may have diverged without being saved)."""
        with self._lock:
            was_open = self._documents.pop(path, None) is not None
            return self._refresh(path, trust_hash=not was_open)

    def document_text(self, path: str) -> bytes | None:
        with self._lock:
            document = self._documents.get(path)
            if document is not None:
                return document.data
        try:
            return (self.root / path).read_bytes()
        except OSError:
            return None

    def is_open(self, path: str) -> bool:
        return path in self._documents

    def apply_edits(self, path: str, edits: Sequence[Edit], encoding: Encoding, *,
                    defer: bool = False) -> None:
        """Apply the editor's edits in order, each range converted against the buffer as it
        is before that edit. Ranges outside the buffer are clamped to it; the next save
        (which carries the full text) re-syncs a buffer should a client ever send edits
        that do not match what it sent before. A path that is not open as a buffer
        (unknown language, over the size cap, binary) is left alone."""
        with self._lock:
            if path not in self._documents:
                return
            for edit in edits:
                if edit.start is None or edit.end is None:
                    self.open_document(path, edit.text)
                    continue
                document = self._documents.get(path)
                if document is None:
                    raise DocumentNotOpenError(f"document is not open: {path}")
                start, end = (clamped_byte_position(document.line(point[0]), *point, encoding)
                              for point in (edit.start, edit.end))
                self.apply_edit(path, min(start, end), max(start, end), edit.text, defer=defer)
