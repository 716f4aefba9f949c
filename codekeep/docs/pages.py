"""One docs file's bytes made into the chunks the knowledge base stores, kept by content.

Reading a page is most of a docs index: on Django, every Python file's docstrings
parsed with ``ast`` and markitdown's conversions were 83 % of a new checkout's
``codekeep index --import``. What a page becomes depends only on its bytes, its path
(a docstring chunk is headed by it; the title falls back to it), the chunk sizes and the
code that reads it, so the result is kept in the facts cache (:mod:`codekeep.analysis.factcache`)
under the content hash, with a key naming the rest: ``docs:<fingerprint>:<chunk
tokens>:<overlap>:<path>``. The fingerprint hashes this package's reading modules, the
secret redaction and markitdown's version, so any change to them is a miss. The entries
travel with the facts: an ``--export`` file and the team database carry them, and they
are checked by the same checksum on every use. Only a page that was read is kept;
a reason for not reading it ("binary", "needs markitdown") is decided again each time.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import marshal
import sys
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath

from codekeep.analysis.factcache import FactCache
from codekeep.analysis.parsing import is_binary
from codekeep.common.secrets import redact_text
from codekeep.docs.chunking import ChunkSizes, parse_document
from codekeep.docs.conversion import (
    NEEDS_EXTRA,
    ConversionError,
    converter_available,
    is_template,
    to_markdown,
)
from codekeep.docs.docstrings import parse_docstrings
from codekeep.docs.formats import DocFormat, candidate_format, looks_generated, sniff_format
from codekeep.docs.model import Chunk, ParsedDocument
from codekeep.docs.notebooks import NotebookError, notebook_markdown
from codekeep.docs.store import IndexedChunk
from codekeep.docs.text import indexed_body

KEY_PREFIX = "docs:"
_PACKAGE = Path(__file__).resolve().parent.parent
# What decides a page's chunks besides its bytes, path and the chunk sizes.
_SOURCES = ("docs/pages.py", "docs/chunking.py", "docs/markdown.py", "docs/rst.py",
            "docs/asciidoc.py", "docs/plaintext.py", "docs/docstrings.py", "docs/mentions.py",
            "docs/notebooks.py", "docs/conversion.py", "docs/formats.py", "docs/text.py",
            "docs/model.py", "common/secrets.py")


@dataclass(frozen=True, slots=True)
class Page:
    """A page as the store writes it: its chunks redacted, with their FTS bodies."""

    title: str
    format: str
    lines: int
    chunks: list[IndexedChunk]


@functools.cache
def fingerprint() -> str:
    digest = hashlib.blake2b(digest_size=10)
    for name in _SOURCES:
        digest.update(name.encode() + b"\0" + (_PACKAGE / name).read_bytes() + b"\0")
    try:
        markitdown = importlib.metadata.version("markitdown")
    except importlib.metadata.PackageNotFoundError:
        markitdown = "-"
    digest.update(f"markitdown={markitdown}\0python={sys.version_info[:2]}".encode())
    return digest.hexdigest()


def cache_key(path: str, sizes: ChunkSizes) -> str:
    """The cache entry's second key (the facts cache's ``language``) for a page at
    ``path`` read with ``sizes``; the first is the content hash."""
    return f"{KEY_PREFIX}{fingerprint()}:{sizes.chunk_tokens}:{sizes.overlap_tokens}:{path}"


def read_page(path: str, data: bytes, digest: str, sizes: ChunkSizes,
              cache: FactCache | None) -> tuple[Page | str, bool]:
    """The page ``path`` holding ``data`` (content hash ``digest``), or the reason it is
    not indexed; and whether it came from ``cache``."""
    key = cache_key(path, sizes)
    if cache is not None and (held := cache.get_bytes(key, digest)) is not None:
        page = decoded(held)
        if page is not None:
            return page, True
    parsed = parse(path, data, sizes)
    if isinstance(parsed, str):
        return parsed, False
    page = Page(parsed.title, parsed.format, parsed.lines,
                [redacted(chunk) for chunk in parsed.chunks])
    if cache is not None:
        cache.put_bytes(key, digest, encoded(page))
    return page, False


def encoded(page: Page) -> bytes:
    return marshal.dumps((page.title, page.format, page.lines, [
        (item.chunk.heading_path, item.chunk.start_line, item.chunk.end_line, item.chunk.text,
         item.chunk.mentions, item.body) for item in page.chunks]))


def decoded(data: bytes) -> Page | None:
    """The page in a cache entry; None for bytes of another shape (a miss, not an error)."""
    try:
        title, fmt, lines, rows = marshal.loads(data)
        chunks = []
        for heading_path, start, end, text, mentions, body in rows:
            if not (isinstance(heading_path, tuple) and isinstance(start, int)
                    and isinstance(end, int) and isinstance(text, str)
                    and isinstance(mentions, tuple) and isinstance(body, str)):
                return None
            chunks.append(IndexedChunk(Chunk(heading_path, start, end, text, mentions), body))
    except (ValueError, EOFError, TypeError):
        return None
    if not (isinstance(title, str) and isinstance(fmt, str) and isinstance(lines, int)):
        return None
    return Page(title, fmt, lines, chunks)


def parse(path: str, data: bytes, sizes: ChunkSizes) -> ParsedDocument | str:
    """The file's chunks, or the reason it is not indexed."""
    hint = candidate_format(path)
    if hint == "convert":  # PDF, Office, HTML: binary or markup that markitdown reads
        return _converted(path, data, sizes)
    if is_binary(data):
        return "binary"
    if looks_generated(data):
        return "generated"
    # Invalid UTF-8 is read with replacement characters: the rest of the page stays
    # searchable, and what is shown cannot be mistaken for the original bytes.
    text = data.decode("utf-8", errors="replace")
    if hint is None:  # Python source: its docstrings
        return parse_docstrings(path, text)
    if hint == "notebook":
        return _notebook(path, text, sizes)
    fmt: DocFormat = sniff_format(data) if hint == "sniff" else hint
    return parse_document(path, text, fmt, sizes)


def _converted(path: str, data: bytes, sizes: ChunkSizes) -> ParsedDocument | str:
    """A PDF, Office document or HTML page through markitdown, chunked as Markdown (its
    lines are those of the Markdown text), or why it is not read."""
    if is_template(path, data):
        return "template"
    if not converter_available():
        return NEEDS_EXTRA
    try:
        parsed = parse_document(path, to_markdown(path, data), "markdown", sizes)
    except ConversionError as error:
        return f"unreadable: {error}"
    return replace(parsed, format=PurePosixPath(path).suffix.lower().lstrip("."))


def _notebook(path: str, text: str, sizes: ChunkSizes) -> ParsedDocument | str:
    """A notebook's Markdown cells as one Markdown page, each chunk placed on the
    notebook file's own lines, or why it is not read."""
    try:
        notebook = notebook_markdown(text)
    except NotebookError as error:
        return f"unreadable: {error}"
    parsed = parse_document(path, notebook.markdown, "markdown", sizes)
    chunks = [replace(chunk, start_line=notebook.file_line(chunk.start_line),
                      end_line=notebook.file_line(chunk.end_line)) for chunk in parsed.chunks]
    return replace(parsed, format="notebook", chunks=chunks,
                   lines=text.count("\n") + (not text.endswith("\n")))


def redacted(chunk: Chunk) -> IndexedChunk:
    """Secrets pasted into a page (a token in a setup guide) are neither stored nor
    searchable: the chunk keeps ``[REDACTED:<kind>]`` in their place."""
    text = redact_text(chunk.text)
    if text != chunk.text:
        chunk = replace(chunk, text=text)
    return IndexedChunk(chunk, indexed_body(text))
