"""The code map: a tree-sitter symbol index of the workspace, live on every keystroke.

Public entry point: :class:`CodeMap` (see ``codemap.py``); values in ``model.py``.
"""

from codekeep.analysis.codemap import CodeMap
from codekeep.analysis.errors import (
    CodeMapError,
    DocumentNotOpenError,
    InvalidLimitError,
    LineOutOfRangeError,
    UnknownPathError,
)
from codekeep.analysis.model import (
    ChangeSet,
    IndexStats,
    IndexStatus,
    Position,
    Range,
    Reference,
    Related,
    RepoMap,
    Symbol,
)
from codekeep.settings.codemap import IndexSettings

__all__ = [
    "ChangeSet",
    "CodeMap",
    "CodeMapError",
    "DocumentNotOpenError",
    "IndexSettings",
    "IndexStats",
    "IndexStatus",
    "InvalidLimitError",
    "LineOutOfRangeError",
    "Position",
    "Range",
    "Reference",
    "Related",
    "RepoMap",
    "Symbol",
    "UnknownPathError",
]
