"""Python imports resolve as Python would import them: the project's package roots,
a package's ``__init__.py`` re-exports, never a stray module that shares a name; and a
use resolved to one definition is labelled so however the question is asked."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from codekeep.analysis import CodeMap

REEXPORT = {
    "pkg/__init__.py": "from .mod import X\n",
    "pkg/mod.py": "class X:\n    pass\n",
    "use.py": "from pkg import X\nX()\n",
}

SHADOWED = {
    "pyproject.toml": "[project]\nname = 'web'\n",
    "src/web/__init__.py": "from .helpers import url_for\n",
    "src/web/helpers.py": "def url_for(endpoint):\n    return endpoint\n",
    "tests/test_helpers.py": "import web\n\n\ndef test_it():\n    web.url_for('x')\n",
    # a fixture module named like the package, deeper in the tree: Python never
    # imports it as `web` when the tests run
    "tests/apps/inner/web.py": "def url_for(endpoint):\n    return None\n",
}


def _indexed(open_map: Callable[..., CodeMap], root: Path) -> CodeMap:
    codemap = open_map(root)
    codemap.index()
    return codemap


def _uses(codemap: CodeMap, symbol: str, path: str) -> list[tuple[str, int, str]]:
    [definition] = [s for s in codemap.find_symbol(symbol) if s.path == path]
    refs, _total = codemap.find_references(symbol_id=definition.id)
    return sorted((r.path, r.range.start.line + 1, r.confidence) for r in refs)


def test_from_package_import_follows_the_init_re_export(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap],
) -> None:
    codemap = _indexed(open_map, workspace(REEXPORT))
    uses = [use for use in _uses(codemap, "X", "pkg/mod.py") if use[0] == "use.py"]
    assert uses == [("use.py", 1, "resolved"), ("use.py", 2, "resolved")]


def test_a_deeper_module_named_like_the_package_does_not_shadow_it(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap],
) -> None:
    codemap = _indexed(open_map, workspace(SHADOWED))
    assert ("tests/test_helpers.py", 5, "resolved") in _uses(
        codemap, "url_for", "src/web/helpers.py")
    assert not any(use[0] == "tests/test_helpers.py"
                   for use in _uses(codemap, "url_for", "tests/apps/inner/web.py"))


def test_a_use_resolved_to_one_definition_is_labelled_so_when_asked_by_name(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap],
) -> None:
    codemap = _indexed(open_map, workspace({
        **SHADOWED,
        "tests/test_views.py": "from web import url_for\n\nurl_for('index')\n",
    }))
    by_id = {use for use in _uses(codemap, "url_for", "src/web/helpers.py")
             if use[0] == "tests/test_views.py"}
    refs, _total = codemap.find_references(name="url_for")
    by_name = {(r.path, r.range.start.line + 1, r.confidence) for r in refs
               if r.path == "tests/test_views.py"}
    assert by_id == by_name == {("tests/test_views.py", 1, "resolved"),
                                ("tests/test_views.py", 3, "resolved")}
