"""Python uses the references follow beyond a plain name or call: chains of attributes
whose head is a module or an object, names from packages outside the workspace,
unions in annotations, exceptions, functions and methods read as values, and a class
body's own names."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from codekeep.analysis import CodeMap
from tests.analysis.test_python_imports import _indexed, _uses

PACKAGE = {
    "web/__init__.py": "from . import json\nfrom .app import Web\n",
    "web/json/__init__.py": "def loads(text):\n    return text\n",
    "web/app.py": (
        "class Web:\n"
        "    def make_response(self, body):\n"
        "        return body\n"
        "\n"
        "    def handler(self):\n"
        "        return self.make_response\n"
    ),
    "web/helpers.py": "def make_response(body):\n    return body\n",
}


def test_a_chain_headed_by_a_module_follows_its_submodules(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap],
) -> None:
    root = workspace({**PACKAGE, "use.py": (
        "import web\n"
        "from web import current\n"
        "web.json.loads('1')\n"
        "current.json.loads('2')\n"  # an object's attribute: a provider's method
        "web.helpers.make_response('x')\n"
    )})
    codemap = _indexed(open_map, root)
    uses = [use for use in _uses(codemap, "loads", "web/json/__init__.py")
            if use[0] == "use.py"]
    assert uses == [("use.py", 3, "resolved")]
    # a module's function is no use of a class's method of the same name
    assert not any(use[0] == "use.py"
                   for use in _uses(codemap, "Web.make_response", "web/app.py"))


def test_a_name_imported_from_outside_the_workspace_is_not_ours(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap],
) -> None:
    root = workspace({
        "web/__init__.py": "",
        "web/wrappers.py": "class Request:\n    pass\n",
        "web/testing.py": ("from werkzeug.wrappers import Request as BaseRequest\n"
                           "from .wrappers import Request\n"
                           "Request()\n"),
        "web/compat.py": "from werkzeug.wrappers import Request\nRequest()\n",
    })
    codemap = _indexed(open_map, root)
    uses = _uses(codemap, "Request", "web/wrappers.py")
    assert uses == [("web/testing.py", 2, "resolved"), ("web/testing.py", 3, "resolved")]


def test_unions_exceptions_and_values_are_uses(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap],
) -> None:
    root = workspace({**PACKAGE, "web/errors.py": "class Failed(Exception):\n    pass\n",
                      "use.py": (
        "import web\n"
        "from web.errors import Failed\n"
        "from web.app import Web\n"
        "def f(app: Web | None = None) -> int | Web | None:\n"
        "    try:\n"
        "        pass\n"
        "    except Failed:\n"
        "        raise Failed\n"
        "    except (KeyError, Failed) as error:\n"
        "        pass\n"
        "    handlers = [web.json.loads]\n"
    )})
    codemap = _indexed(open_map, root)
    assert [use for use in _uses(codemap, "Web", "web/app.py")
            if use[0] == "use.py"] == [
        ("use.py", 3, "resolved"), ("use.py", 4, "resolved"), ("use.py", 4, "resolved")]
    assert [line for path, line, _label in _uses(codemap, "Failed", "web/errors.py")
            if path == "use.py"] == [2, 7, 8, 9]
    assert ("use.py", 11, "resolved") in _uses(codemap, "loads", "web/json/__init__.py")
    # a method read on self, not called
    assert ("web/app.py", 6, "resolved") in _uses(
        codemap, "Web.make_response", "web/app.py")


def test_a_property_setter_decorator_is_a_use_of_the_property(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap],
) -> None:
    root = workspace({"box.py": (
        "class Box:\n"
        "    @property\n"
        "    def size(self):\n"
        "        return 1\n"
        "\n"
        "    @size.setter\n"
        "    def size(self, value):\n"
        "        pass\n"
    )})
    codemap = open_map(root)
    codemap.index()
    [getter, _setter] = sorted(codemap.find_symbol("Box.size"),
                               key=lambda s: s.range.start.line)
    refs, _total = codemap.find_references(symbol_id=getter.id)
    assert [(r.range.start.line + 1, r.confidence) for r in refs] == [(6, "resolved")]


def test_a_modules_type_stub_declares_the_same_definitions(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap],
) -> None:
    root = workspace({
        "pkg/__init__.py": "",
        "pkg/validators.py": "class Base:\n    pass\n\n\ndef gt(bound):\n    return bound\n",
        "pkg/validators.pyi": ("class Base: ...\n"
                               "class Strict(Base): ...\n"
                               "def gt(bound: int) -> Base: ...\n"),
    })
    codemap = _indexed(open_map, root)
    assert _uses(codemap, "gt", "pkg/validators.py") == [
        ("pkg/validators.pyi", 3, "resolved")]
    # the stub's own uses of its names are the module's definitions' uses
    assert _uses(codemap, "Base", "pkg/validators.py") == [
        ("pkg/validators.pyi", 1, "resolved"), ("pkg/validators.pyi", 2, "resolved"),
        ("pkg/validators.pyi", 3, "resolved")]


def test_a_class_read_through_its_module_or_chosen_and_a_hub_imported_both_ways(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap],
) -> None:
    root = workspace({
        "pp/__init__.py": "from .core import *\n",
        "pp/core.py": "class Literal:\n    pass\n\n\nclass Keyword:\n    pass\n",
        "example.py": ("import pp\n"
                       "from pp import Literal\n"  # by name, next to the whole module
                       "pp.Literal.using_each('+-')\n"
                       "chosen = Keyword if True else Literal\n"),
    })
    codemap = _indexed(open_map, root)
    assert [use for use in _uses(codemap, "Literal", "pp/core.py")
            if use[0] == "example.py"] == [
        ("example.py", 2, "resolved"), ("example.py", 3, "resolved"),
        ("example.py", 4, "resolved")]


def test_a_parameter_named_like_a_function_is_that_local(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap],
) -> None:
    root = workspace({"make.py": (
        "def attrs(cls):\n"
        "    return cls\n"
        "\n"
        "\n"
        "def add_hash(cls, attrs):\n"
        "    return hash(attrs)\n"
        "\n"
        "\n"
        "register = [attrs]\n"
    )})
    codemap = _indexed(open_map, root)
    assert _uses(codemap, "attrs", "make.py") == [("make.py", 9, "resolved")]


def test_a_stub_declaration_is_no_caller(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap],
) -> None:
    root = workspace({
        "pkg/__init__.py": "",
        "pkg/validators.py": "def gt(bound):\n    return bound\n\n\ndef check():\n    gt(1)\n",
        "pkg/validators.pyi": "def gt(bound: int) -> int: ...\ndef check() -> None: ...\n",
    })
    codemap = _indexed(open_map, root)
    [gt] = [s for s in codemap.find_symbol("gt") if s.path == "pkg/validators.py"]
    assert [(edge.symbol.path, edge.symbol.name) for edge in codemap.incoming_calls(gt.id)] == [
        ("pkg/validators.py", "check")]
