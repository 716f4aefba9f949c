"""Python receivers whose class is written in sight: ``s = Serializer()``, a parameter
``app: App``, ``x: App | None``, ``mod.App()``. The class
(or the base it inherits the method from) decides which method ``receiver.m()`` is,
however the question is asked and after live edits; a receiver nothing is known about
is judged by its name as before."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

from codekeep.analysis import CodeMap
from codekeep.analysis.python_scopes import (
    annotation_type,
    bindings,
    module_bindings_changed,
    module_lines,
    parameters,
)
from tests.analysis.test_python_imports import _indexed, _uses

CLASSES = {
    "pkg/__init__.py": "from .serial import Serializer\n",
    "pkg/serial.py": (
        "class Serializer:\n"
        "    def register(self, tag):\n"
        "        return tag\n"
    ),
    "pkg/app.py": (
        "from .serial import Serializer\n"
        "\n"
        "\n"
        "class Scaffold:\n"
        "    def register(self, name):\n"
        "        return name\n"
        "\n"
        "\n"
        "class App(Scaffold):\n"
        "    def serializer(self) -> Serializer:\n"
        "        return Serializer()\n"
        "\n"
        "    def setup(self):\n"
        "        ser = self.serializer()\n"
        "        ser.register('x')\n"
        "\n"
        "\n"
        "def make_app() -> 'App':\n"
        "    return App()\n"
    ),
}


def _index(open_map: Callable[..., CodeMap], workspace: Callable[..., Path],
           use: str) -> CodeMap:
    return _indexed(open_map, workspace({**CLASSES, "use.py": use}))


def _in_use(codemap: CodeMap, symbol: str, path: str) -> list[tuple[int, str]]:
    return [(line, label) for file, line, label in _uses(codemap, symbol, path)
            if file == "use.py"]


def test_a_constructed_local_and_an_annotated_parameter_pick_their_class(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap],
) -> None:
    codemap = _index(open_map, workspace, (
        "import pkg\n"
        "from pkg.app import App\n"
        "\n"
        "\n"
        "def f(app: App, other: 'App | None' = None):\n"
        "    s = pkg.Serializer()\n"
        "    s.register('t')\n"          # 7: Serializer's
        "    app.register('n')\n"        # 8: Scaffold's, inherited by App
        "    other.register('n')\n"      # 9: Scaffold's too
        "    make = make_app\n"
    ))
    assert _in_use(codemap, "Serializer.register", "pkg/serial.py") == [(7, "resolved")]
    assert _in_use(codemap, "Scaffold.register", "pkg/app.py") == [(8, "resolved"),
                                                                    (9, "resolved")]


def test_a_class_reached_through_its_module_and_a_base_it_inherits_from(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap],
) -> None:
    codemap = _index(open_map, workspace, (
        "from pkg import app as appmod\n"
        "from pkg.app import make_app\n"
        "\n"
        "app = appmod.App()\n"
        "app.register('n')\n"           # 5: App inherits Scaffold's
        "made = make_app()\n"
        "made.register('m')\n"          # 7: a function's result is not read: a name match
    ))
    assert _in_use(codemap, "Scaffold.register", "pkg/app.py") == [(5, "resolved"),
                                                                    (7, "name")]
    assert _in_use(codemap, "Serializer.register", "pkg/serial.py") == [(7, "name")]


def test_an_object_of_the_standard_library_has_none_of_our_methods(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap],
) -> None:
    codemap = _index(open_map, workspace, (
        "import copy\n"
        "from collections import OrderedDict\n"
        "from pathlib import Path\n"
        "\n"
        "def f(p: Path, items):\n"
        "    d = OrderedDict()\n"
        "    d.register(1)\n"            # a dict's attribute: not ours
        "    p.register(2)\n"            # pathlib's class: not ours
        "    items.register(3)\n"        # nothing known: a name match, as before
        "    c = copy.copy(items)\n"
        "    c.register(4)\n"            # an outside function's result: unknown too
    ))
    assert _in_use(codemap, "Serializer.register", "pkg/serial.py") == [(9, "name"),
                                                                       (11, "name")]


def test_a_rebinding_the_patterns_cannot_read_leaves_the_receiver_unknown(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap],
) -> None:
    codemap = _index(open_map, workspace, (
        "from pkg.serial import Serializer\n"
        "\n"
        "\n"
        "def f(rows):\n"
        "    s = Serializer()\n"
        "    s.register(1)\n"            # 6: Serializer's
        "    s, t = rows\n"
        "    s.register(2)\n"            # 8: unknown now: a name match
        "    for s in rows:\n"
        "        s.register(3)\n"        # 10: a loop's target: a name match
    ))
    assert _in_use(codemap, "Serializer.register", "pkg/serial.py") == [
        (6, "resolved"), (8, "name"), (10, "name")]
    assert (8, "name") in _in_use(codemap, "Scaffold.register", "pkg/app.py")
    assert (6, "resolved") not in _in_use(codemap, "Scaffold.register", "pkg/app.py")


def test_a_use_is_labelled_the_same_asked_by_name(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap],
) -> None:
    codemap = _index(open_map, workspace, (
        "from pkg.app import App\n"
        "from pkg.serial import Serializer\n"
        "\n"
        "\n"
        "def f(app: App):\n"
        "    Serializer().register(0)\n"
        "    s = Serializer()\n"
        "    s.register(1)\n"
        "    app.register(2)\n"
    ))
    refs, _total = codemap.find_references(name="register")
    by_line = {ref.range.start.line + 1: (ref.confidence, ref.symbol_id)
               for ref in refs if ref.path == "use.py"}
    assert by_line[8] == ("resolved", "pkg/serial.py::Serializer.register")
    assert by_line[9] == ("resolved", "pkg/app.py::Scaffold.register")


def test_editing_a_binding_retypes_the_uses_below_it(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap],
) -> None:
    source = ("from pkg.app import App\n"
              "from pkg.serial import Serializer\n"
              "\n"
              "s = Serializer()\n"
              "\n"
              "\n"
              "def f(app: App):\n"
              "    x = Serializer()\n"
              "    x.register(1)\n"
              "    s.register(2)\n"
              "    app.register(3)\n")
    codemap = _index(open_map, workspace, source)
    codemap.open_document("use.py", source)
    assert _in_use(codemap, "Serializer.register", "pkg/serial.py") == [
        (9, "resolved"), (10, "resolved")]
    codemap.apply_edit("use.py", (7, 8), (7, 18), "App")       # x = App()
    codemap.apply_edit("use.py", (3, 4), (3, 14), "App")       # s = App() (module level)
    codemap.apply_edit("use.py", (6, 11), (6, 14), "Serializer")  # app: Serializer
    assert _in_use(codemap, "Serializer.register", "pkg/serial.py") == [(11, "resolved")]
    assert _in_use(codemap, "Scaffold.register", "pkg/app.py") == [
        (9, "resolved"), (10, "resolved")]


def test_the_binding_patterns() -> None:
    assert annotation_type("t.Optional['App']") == "App"
    assert annotation_type("sansio.App | None") == "sansio.App"
    assert annotation_type("App | Blueprint") is None
    assert annotation_type("list[App]") is None
    assert parameters("(self, app: App, *args, bp: 'Blueprint' = None, **kw)") == {
        "self": None, "app": "App", "args": None, "bp": "Blueprint", "kw": None}
    text = (b"x = Foo(1)\nf(a, b=1)\ny = Foo(1).bar\nz = Foo() or w\n"
            b"    w=Foo(),\nv: Foo = make()\nif v == x:\n    a, (v, c) = pair\n"
            b"[v.f() for v in rows]\nwith open(p) as x:\n    x.read()\n")
    assert bindings(text, "x") == [(0, "Foo()"), (text.index(b"as x") + 3, None)]
    assert bindings(text, "f") == []  # a call binds nothing, nor its arguments
    assert bindings(text, "a") == [(text.index(b"a, ("), None)]  # a tuple's target
    assert bindings(text, "y") == [(text.index(b"y ="), None)]  # the result's attribute
    assert bindings(text, "z") == [(text.index(b"z ="), None)]
    assert bindings(text, "w") == [(text.index(b"w="), None)]  # a keyword argument
    assert bindings(text, "v") == [(text.index(b"v:"), "Foo"), (text.index(b"v, c"), None),
                                      (text.index(b"v in"), None)]
    assert bindings(text, "w", top_level_only=True) == []


def test_the_edited_lines_decide_as_the_whole_module_would() -> None:
    # a keystroke compares only the lines it touched; the answer is the whole module's
    source = ("import os\nfrom pkg import App\n\napp = App()\n\n\ndef f(x):\n"
              "    return x.run()\n\nclass C:\n    y = 1\n")
    pieces = ["", "\n", "a", "app = App()", "    ", "def g():\n", "# c", "x = 1\n",
              "from m import n"]
    chance = random.Random(7)
    for _ in range(2_000):
        start = chance.randrange(len(source) + 1)
        end = min(len(source), start + chance.randrange(12))
        inserted = chance.choice(pieces)
        after = source[:start] + inserted + source[end:]
        whole = ([line for _at, line in module_lines(source.encode())]
                 != [line for _at, line in module_lines(after.encode())])
        assert module_bindings_changed(source.encode(), after.encode(), start,
                                       start + len(inserted)) == whole, (start, end, inserted)
        source = after if len(after) < 400 else source
