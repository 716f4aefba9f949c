"""PDF, Word, PowerPoint, Excel and HTML pages read as Markdown, through Microsoft's
``markitdown`` (the optional ``documents`` extra: ``pip install 'codekeep[documents]'``).

A project keeps knowledge in more than Markdown: a design in a PDF, a runbook in Word,
a decision deck, a budget sheet, an exported wiki page. markitdown turns each into
Markdown with headings, lists and tables kept, which is then chunked by heading path like
any other page. It is imported only when such a file is met (the import alone takes
~0.9 s), and without it the file is recorded with :data:`NEEDS_EXTRA` as its reason, so
``codekeep docs index`` says what to install, and the next index reads those files
again once it is installed. HTML that is a template (``{% … %}``, ``{{ … }}``) is
skipped: it is code for a web framework, not a page a person wrote.
"""

from __future__ import annotations

import importlib.util
import io
import re
import zipfile
from functools import cache
from pathlib import PurePosixPath
from typing import Any

CONVERTED_SUFFIXES = frozenset({".pdf", ".docx", ".pptx", ".xlsx", ".html", ".htm"})
NEEDS_EXTRA = "needs the documents extra (pip install 'codekeep[documents]')"
HTML_SUFFIXES = frozenset({".html", ".htm"})
# What each binary format's file starts with: markitdown falls back to reading anything
# as text, so a damaged or misnamed file would otherwise be indexed as its raw bytes.
_MAGIC = {".pdf": (b"%PDF-", "a PDF"), ".docx": (b"PK\x03\x04", "an Office (zip) file"),
          ".pptx": (b"PK\x03\x04", "an Office (zip) file"),
          ".xlsx": (b"PK\x03\x04", "an Office (zip) file")}
_TEMPLATE_TAG = re.compile(rb"\{%-?\s*\w+|\{\{\s*[\w.]+")
TEMPLATE_SNIFF_BYTES = 64 * 1024


class ConversionError(ValueError):
    """markitdown could not read the file (damaged, encrypted, not what its name says)."""


def is_converted(rel: str) -> bool:
    """A document kept in a format markitdown reads (by its name)."""
    return PurePosixPath(rel).suffix.lower() in CONVERTED_SUFFIXES


def converter_available() -> bool:
    """Whether the ``documents`` extra is installed (checked without importing it)."""
    return importlib.util.find_spec("markitdown") is not None


def is_template(rel: str, data: bytes) -> bool:
    """An HTML file with template tags: a web framework's view, not a document."""
    return (PurePosixPath(rel).suffix.lower() in HTML_SUFFIXES
            and _TEMPLATE_TAG.search(data[:TEMPLATE_SNIFF_BYTES]) is not None)


def to_markdown(rel: str, data: bytes) -> str:
    """The document's text as Markdown. Raises :class:`ConversionError` when markitdown
    cannot read it; call only when :func:`converter_available`."""
    suffix = PurePosixPath(rel).suffix.lower()
    magic, kind = _MAGIC.get(suffix, (b"", ""))
    if not data.startswith(magic) or (magic.startswith(b"PK") and not _is_zip(data)):
        raise ConversionError(f"not {kind}")
    try:
        result = _converter().convert_stream(
            io.BytesIO(data), file_extension=suffix)
    except Exception as error:  # markitdown wraps each format's own reader's errors
        raise ConversionError(f"{type(error).__name__}: {str(error)[:200]}") from None
    return str(result.text_content or "")


def _is_zip(data: bytes) -> bool:
    return zipfile.is_zipfile(io.BytesIO(data))


@cache
def _converter() -> Any:
    """One markitdown instance per process, with no plugins (a plugin may reach out).
    markitdown imports numpy (through magika), so numpy is loaded first the way every
    CodeKeep module loads it, with its BLAS on one thread: loaded by markitdown, it took
    every core, and the local model's products after it spun threads on a loaded
    machine (a Django docs search cost 316 ms of CPU instead of ~30)."""
    from codekeep.common.numeric import numpy

    numpy()
    from markitdown import MarkItDown

    return MarkItDown(enable_plugins=False)
