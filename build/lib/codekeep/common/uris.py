"""File URIs <-> paths, the only conversion between LSP's and the filesystem's names."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote, unquote, urlparse


def path_to_uri(path: Path | str) -> str:
    """``/a/b c.py`` -> ``file:///a/b%20c.py`` (absolute paths only)."""
    return "file://" + quote(str(Path(path).absolute()), safe="/:@")


def uri_to_path(uri: str) -> Path:
    """``file:///a/b%20c.py`` -> ``/a/b c.py``; raises ``ValueError`` for other schemes."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        raise ValueError(f"not a file URI: {uri!r}")
    return Path(unquote(parsed.path))
