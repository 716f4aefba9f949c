"""A small Python project every door is asked about: a function re-exported by its
package's ``__init__.py`` and imported from the package, and a function used as
``web.url_for`` by a test while a fixture module deeper in the tests is itself named
``web.py`` (Python never imports it as ``web``); and two classes' ``register`` methods,
called on a local built from one class and on a parameter annotated with the other
(the receiver's class decides which method each call is)."""

from __future__ import annotations

from pathlib import Path

FILES = {
    "pkg/__init__.py": "from .mod import build\n",
    "pkg/mod.py": "def build():\n    return 1\n",
    "use.py": "from pkg import build\n\n\ndef make():\n    return build()\n",
    "src/web/__init__.py": "from .helpers import url_for\n",
    "src/web/helpers.py": "def url_for(endpoint):\n    return endpoint\n",
    "tests/test_helpers.py": "import web\n\n\ndef test_link():\n    web.url_for('x')\n",
    "tests/apps/inner/web.py": "def url_for(endpoint):\n    return None\n",
    "pkg/serial.py": ("class Serializer:\n    def register(self, tag):\n        return tag\n\n\n"
                      "class Blueprint:\n    def register(self, app):\n        return app\n"),
    "typed.py": ("from pkg.serial import Blueprint, Serializer\n\n\n"
                 "def setup(bp: Blueprint):\n    s = Serializer()\n    s.register('t')\n"
                 "    bp.register(None)\n"),
}
# (path, 1-based line) of the uses each door must report, all labelled ``resolved``
BUILD_USES = {("use.py", 1), ("use.py", 5)}
URL_FOR_USE = ("tests/test_helpers.py", 5)
# ``Serializer.register`` is called at REGISTER_USE (``s = Serializer()``), and never at
# BLUEPRINT_REGISTER_USE (``bp: Blueprint``), which is ``Blueprint.register``'s
REGISTER = "pkg/serial.py::Serializer.register"
REGISTER_USE = ("typed.py", 6)
BLUEPRINT_REGISTER_USE = ("typed.py", 7)


def write_python_imports(root: Path) -> Path:
    """Write :data:`FILES` under ``root`` and return it."""
    for relative, text in FILES.items():
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return root
