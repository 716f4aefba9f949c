"""The project knowledge base: the workspace's documentation,
chunked by structure, searched with BM25 fused with the code map and embeddings.

Never imports ``server``, ``mcp`` or ``agent``; uses ``analysis`` for files and symbols.
"""

from codekeep.docs.errors import DocsError, EmptyQueryError, InvalidLimitError
from codekeep.docs.model import Chunk, DocHit, DocLink, DocsStats, SearchOutcome
from codekeep.docs.service import DocsIndex
from codekeep.settings.docs import DocsSettings

__all__ = [
    "Chunk",
    "DocHit",
    "DocLink",
    "DocsError",
    "DocsIndex",
    "DocsSettings",
    "DocsStats",
    "EmptyQueryError",
    "InvalidLimitError",
    "SearchOutcome",
]
