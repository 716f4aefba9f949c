"""Python imports resolve as Python would import them: the project's package roots,
a package's ``__init__.py`` re-exports, never a stray module that shares a name; and a
use resolved to one definition is labelled so however the question is asked."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

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


def test_importing_a_function_is_no_use_of_a_method_of_the_same_name(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap],
) -> None:
    codemap = _indexed(open_map, workspace({
        "web/__init__.py": ("from .app import Web\n"
                            "from .helpers import make_response as make_response\n"),
        "web/app.py": "class Web:\n    def make_response(self, rv):\n        return rv\n",
        "web/helpers.py": "def make_response(rv):\n    return rv\n",
    }))
    assert not any(use[0] == "web/__init__.py"
                   for use in _uses(codemap, "Web.make_response", "web/app.py"))
def test_an_aliased_base_and_a_stdlib_module_of_the_same_name_are_no_uses(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap],
) -> None:
    codemap = _indexed(open_map, workspace({
        "src/web/__init__.py": "from .wrappers import Response\n",
        "src/web/wrappers.py": (
            "from werkzeug.wrappers import Response as BaseResponse\n\n\n"
            "class Response(BaseResponse):\n    pass\n"),
        "src/web/json/__init__.py": "def loads(s):\n    return s\n",
        "src/web/app.py": "import json\n\n\ndef load(s):\n    return json.loads(s)\n",
    }))
    assert not any(use[0] == "src/web/wrappers.py" and use[1] == 1
                   for use in _uses(codemap, "Response", "src/web/wrappers.py"))
    assert not any(use[0] == "src/web/app.py"
                   for use in _uses(codemap, "loads", "src/web/json/__init__.py"))


def test_a_star_import_of_a_re_exporting_package_and_class_attribute_reads_are_uses(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap],
) -> None:
    codemap = _indexed(open_map, workspace({
        "pp/__init__.py": "from .core import *\n",
        "pp/core.py": ("__all__ = ['ParserElement']\n\n\nclass ParserElement:\n"
                       "    @staticmethod\n    def enable_packrat():\n        pass\n"),
        "examples/calc.py": "from pp import *\n\nParserElement.enable_packrat()\n",
    }))
    assert ("examples/calc.py", 3, "resolved") in _uses(codemap, "ParserElement", "pp/core.py")


def test_a_module_a_re_exporter_imports_by_name_passes_on_none_of_its_names(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap],
) -> None:
    codemap = _indexed(open_map, workspace({
        "pkg/__init__.py": "from .env import Template as Template\n",
        "pkg/env.py": "from . import nodes\n\n\nclass Template:\n    pass\n",
        "pkg/nodes.py": "class Template:\n    pass\n",
        "use.py": "from pkg import Template\n\nTemplate()\n",
    }))
    assert ("use.py", 3, "resolved") in _uses(codemap, "Template", "pkg/env.py")
    assert not any(use[0] == "use.py" for use in _uses(codemap, "Template", "pkg/nodes.py"))


def test_a_name_re_exported_from_a_subpackage_the_package_also_imports_whole(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap],
) -> None:
    codemap = _indexed(open_map, workspace({
        "web/__init__.py": "from . import json as json\nfrom .json import jsonify as jsonify\n",
        "web/json/__init__.py": "def jsonify(value):\n    return value\n",
        "tests/test_json.py": "import web\n\nweb.jsonify(1)\n",
    }))
    assert ("tests/test_json.py", 3, "resolved") in _uses(
        codemap, "jsonify", "web/json/__init__.py")


LIB_LAYOUT = {
    "lib/web/__init__.py": "from .helpers import url_for\n",
    "lib/web/helpers.py": "def url_for(endpoint):\n    return endpoint\n",
    "tests/test_views.py": "import web\n\nweb.url_for('index')\n",
    # a flat module named like the package, closer to nothing Python would import
    "tests/fixtures/web.py": "def url_for(endpoint):\n    return None\n",
}


@pytest.mark.parametrize("config", [
    {"pyproject.toml": '[project]\nname = "web"\n[tool.setuptools.package-dir]\n"" = "lib"\n'},
    {"pyproject.toml": '[tool.setuptools.packages.find]\nwhere = ["lib"]\n'},
    {"setup.cfg": "[metadata]\nname = web\n[options]\npackage_dir =\n    =lib\n"},
    {"setup.cfg": "[options.packages.find]\nwhere = lib\n"},
], ids=["pyproject package-dir", "pyproject packages.find", "setup.cfg package_dir",
        "setup.cfg packages.find"])
def test_the_package_folder_a_project_declares_is_where_imports_go(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap], config: dict[str, str],
) -> None:
    codemap = _indexed(open_map, workspace({**LIB_LAYOUT, **config}))
    assert ("tests/test_views.py", 3, "resolved") in _uses(
        codemap, "url_for", "lib/web/helpers.py")
    assert not any(use[0] == "tests/test_views.py"
                   for use in _uses(codemap, "url_for", "tests/fixtures/web.py"))


def test_a_broken_project_file_declares_nothing_and_breaks_nothing(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap],
) -> None:
    codemap = _indexed(open_map, workspace({
        **SHADOWED, "pyproject.toml": "[tool.setuptools.package-dir\nwhere = \n",
        "setup.cfg": "[options\npackage_dir = =lib\n"}))
    assert ("tests/test_helpers.py", 5, "resolved") in _uses(
        codemap, "url_for", "src/web/helpers.py")
