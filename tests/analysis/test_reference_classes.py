"""One small workspace per class of wrong or missing reference that the ground-truth
harness (bench/refs_truth) found against jedi and the TypeScript LanguageService; each
test pins the exact uses and labels a user would get."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from codekeep.analysis import CodeMap

Uses = set[tuple[str, int, str]]


def _uses(codemap: CodeMap, symbol_id: str) -> Uses:
    """(path, 1-based line, label) of every reference of the symbol."""
    refs, total = codemap.find_references(symbol_id=symbol_id)
    assert total == len(refs)
    return {(r.path, r.range.start.line + 1, r.confidence) for r in refs}


def _indexed(workspace: Callable[..., Path], open_map: Callable[..., CodeMap],
             files: dict[str, str]) -> CodeMap:
    codemap = open_map(workspace(files))
    codemap.index()
    return codemap


PY_PACKAGE = {
    "pkg/__init__.py": "from .core import Command as Command\nfrom .utils import echo\n",
    "pkg/core.py": (
        "class Command:\n"
        "    def invoke(self):\n"
        "        return self.close()\n"                    # 3: Command.close
        "    def close(self):\n"
        "        pass\n"
        "class Group(Command):\n"
        "    def close(self):\n"
        "        return self.invoke()\n"                   # 8: Command.invoke, inherited
        "def close():\n"
        "    pass\n"),
    "pkg/utils.py": "def echo(text):\n    print(text)\n",
    "app.py": (
        "import pkg\n"
        "import pkg.utils as u\n"
        "from pkg import echo\n"                            # 3: echo through __init__.py
        "def main(stream):\n"
        "    pkg.echo('a')\n"                               # 5: echo through __init__.py
        "    u.echo('b')\n"                                 # 6: through the aliased module
        "    echo('c')\n"                                   # 7
        "    stream.close()\n"                              # 8: unknown receiver, common name
        "    close()\n"                                     # 9: a function, not a method
        "    cmd = pkg.Command()\n"                         # 10
        "    cmd.invoke()\n"),                              # 11: Command's (cmd = Command())
    "tests/test_app.py": "import pkg.core\n\ndef test():\n    pkg.Command().invoke()\n",
}


def test_python_member_uses_follow_receivers_and_package_re_exports(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap]
) -> None:
    codemap = _indexed(workspace, open_map, PY_PACKAGE)
    assert _uses(codemap, "pkg/utils.py::echo") == {
        ("pkg/__init__.py", 2, "resolved"), ("app.py", 3, "resolved"),
        ("app.py", 5, "resolved"), ("app.py", 6, "resolved"), ("app.py", 7, "resolved")}
    # `import pkg.core` binds `pkg`: `pkg.Command` is the package's re-export
    assert ("tests/test_app.py", 4, "resolved") in _uses(codemap, "pkg/core.py::Command")
    # `stream.close()` could be any file's; a bare `close()` is no method call, and
    # `self.close()` no call of a module-level function
    assert _uses(codemap, "pkg/core.py::Command.close") == {("pkg/core.py", 3, "resolved")}
    assert _uses(codemap, "pkg/core.py::close") == {("app.py", 9, "name")}


def test_self_calls_belong_to_the_enclosing_class(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap]
) -> None:
    codemap = _indexed(workspace, open_map, PY_PACKAGE)
    # Group defines its own close: `self.close()` there would be Group's, and
    # Command.invoke called from Group is inherited: only a name match
    assert _uses(codemap, "pkg/core.py::Group.close") == set()
    assert _uses(codemap, "pkg/core.py::Command.invoke") == {
        ("pkg/core.py", 8, "name"), ("app.py", 11, "resolved"), ("tests/test_app.py", 4, "name")}


def test_a_file_with_its_own_definition_or_import_of_the_name_is_no_use(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap]
) -> None:
    codemap = _indexed(workspace, open_map, {
        "core.py": "class Option:\n    pass\n",
        "parser.py": (
            "from core import Option as CoreOption\n"        # 1: names core.Option
            "class Option:\n    pass\n"
            "def make(o: CoreOption) -> Option:\n"           # 4
            "    return Option()\n"),                        # 5: parser's own Option
        "other.py": "class Option:\n    pass\n",
        "user.py": "from other import Option\nOption()\n",   # other.py's Option
    })
    assert _uses(codemap, "core.py::Option") == {
        ("parser.py", 1, "resolved"), ("parser.py", 4, "resolved")}
    assert _uses(codemap, "parser.py::Option") == {
        ("parser.py", 4, "resolved"), ("parser.py", 5, "resolved")}


def test_python_classes_and_functions_used_as_values_are_references(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap]
) -> None:
    codemap = _indexed(workspace, open_map, {
        "core.py": "class Command:\n    pass\n",
        "use.py": (
            "import typing as t\n"
            "from core import Command\n"                        # 2
            "def check(x, command=None) -> t.Optional[Command]:\n"  # 3: in a subscript
            "    if isinstance(x, (Command, int)):\n"           # 4: in a tuple argument
            "        return x\n"
            "    kinds = [Command]\n"                           # 6
            "    command = Command\n"                           # 7
            "    return register(cls=Command)\n"),              # 8
        "other.py": "def f(Command):\n    return isinstance(1, Command)\n",  # a parameter
    })
    assert _uses(codemap, "core.py::Command") == {
        ("use.py", line, "resolved") for line in (2, 3, 4, 6, 7, 8)}


TS_LIB = {
    "src/zip.ts": "export function zip(...xs: unknown[]): unknown[] { return xs; }\n",
    "src/async.ts": "export const async = { now: () => 0 };\n",
    "src/config.ts": (
        "export interface RepeatConfig { delay: number; count: number }\n"
        "export function sealed(target: unknown): void {}\n"),
    "src/zipAll.ts": (
        "import { zip } from './zip';\n"
        "import { async as asyncScheduler } from './async';\n"
        "import { RepeatConfig, sealed } from './config';\n"
        "/**\n"
        " * Like {@link zip}, on the {@link asyncScheduler}.\n"     # 5: doc links
        " * @param {RepeatConfig} config how often\n"                # 6: a JSDoc type
        " */\n"
        "export function zipAll(config: RepeatConfig, s = asyncScheduler) {\n"  # 8
        "  const delay: RepeatConfig['delay'] = config.delay;\n"    # 9: an indexed type
        "  return joinAll(zip, [zip], { zip }, s ?? asyncScheduler);\n"  # 10: values
        "}\n"
        "@sealed\n"                                                 # 12: a decorator
        "export class Pool {}\n"
        "export const exhaust = zip;\n"),                           # 14
    "src/local.ts": (
        "export function run(zip: number, async: number) {\n"      # parameters, no import
        "  return twice(zip) + async;\n"
        "}\n"
        "/** Unlike {@link zip}. */\n"),                            # not in scope here
}


def test_typescript_values_doc_links_and_type_positions_are_references(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap]
) -> None:
    codemap = _indexed(workspace, open_map, TS_LIB)
    assert _uses(codemap, "src/zip.ts::zip") == {
        ("src/zipAll.ts", line, "resolved") for line in (1, 5, 10, 14)}
    assert _uses(codemap, "src/async.ts::async") == {
        ("src/zipAll.ts", line, "resolved") for line in (2, 5, 8, 10)}
    assert _uses(codemap, "src/config.ts::RepeatConfig") == {
        ("src/zipAll.ts", line, "resolved") for line in (3, 6, 8, 9)}
    assert _uses(codemap, "src/config.ts::sealed") == {
        ("src/zipAll.ts", 3, "resolved"), ("src/zipAll.ts", 12, "resolved")}
    by_name, total = codemap.find_references(name="zip")
    assert total == len(by_name) and not any(r.path == "src/local.ts" for r in by_name)


def test_outgoing_calls_and_related_label_uses_as_references_do(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap]
) -> None:
    codemap = _indexed(workspace, open_map, {
        **PY_PACKAGE,
        "jobs.py": (
            "from pkg.utils import echo as say\n"
            "def run(stream, items):\n"
            "    stream.close()\n"        # a file's close, not Command.close nor close()
            "    say(len(items))\n"       # echo, through the alias
            "    return sorted(items)\n"),
    })
    calls = codemap.outgoing_calls("jobs.py::run")
    assert [(edge.symbol.id, [site.start.line for site in edge.sites]) for edge in calls] == [
        ("pkg/utils.py::echo", [3])]
    related = codemap.find_related("jobs.py", 2)
    assert [s.id for s in related.calls] == ["pkg/utils.py::echo"]
    callers = codemap.incoming_calls("pkg/utils.py::echo")
    assert "jobs.py::run" in [edge.symbol.id for edge in callers]


def test_ruby_bare_word_calls_are_calls_on_self(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap]
) -> None:
    codemap = _indexed(workspace, open_map, {
        "lib/account.rb": (
            "class Account\n"
            "  def activate\n"
            "    @active = true\n"
            "  end\n"
            "  def open\n"
            "    activate\n"                          # 6: on self
            "    refresh if stale\n"                  # 7: `refresh` a statement
            "  end\n"
            "  def refresh\n"
            "  end\n"
            "end\n"),
        "lib/guest.rb": (
            "class Guest\n"
            "  def activate\n"
            "  end\n"
            "  def visit\n"
            "    activate\n"                          # Guest's own activate
            "  end\n"
            "end\n"),
    })
    assert _uses(codemap, "lib/account.rb::Account.activate") == {
        ("lib/account.rb", 6, "resolved")}
    assert _uses(codemap, "lib/account.rb::Account.refresh") == {
        ("lib/account.rb", 7, "resolved")}
    assert _uses(codemap, "lib/guest.rb::Guest.activate") == {("lib/guest.rb", 5, "resolved")}


def test_rust_re_exports_are_followed_and_macro_arguments_are_uses(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap]
) -> None:
    codemap = _indexed(workspace, open_map, {
        "src/net/tcp.rs": (
            "pub struct Stream;\n"
            "impl Stream {\n"
            "    pub fn open() -> Stream { Stream }\n"
            "}\n"
            "pub fn helper(x: u32) -> u32 { x }\n"),
        "src/net/mod.rs": "pub mod tcp;\npub use self::tcp::Stream;\npub use self::tcp::helper;\n",
        "src/main.rs": (
            "use crate::net::Stream;\n"                   # through net's `pub use`
            "use crate::net::helper;\n"
            "fn main() {\n"
            "    println!(\"{}\", helper(1));\n"           # 4: inside a macro
            "    let v = vec![Stream::open()];\n"          # 5
            "}\n"),
    })
    assert _uses(codemap, "src/net/tcp.rs::helper") == {
        ("src/main.rs", 2, "resolved"), ("src/main.rs", 4, "resolved"),
        ("src/net/mod.rs", 3, "resolved")}
    assert ("src/main.rs", 5, "resolved") in _uses(codemap, "src/net/tcp.rs::Stream")
    assert _uses(codemap, "src/net/tcp.rs::Stream.open") == {("src/main.rs", 5, "resolved")}


def test_php_constructor_promoted_properties_are_fields(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap]
) -> None:
    codemap = _indexed(workspace, open_map, {
        "src/Cart.php": (
            "<?php\n"
            "class Cart {\n"
            "    public function __construct(\n"
            "        private readonly Pricing $pricing,\n"      # 4
            "        public int $count = 0,\n"                  # 5
            "    ) {}\n"
            "    public function total(): int {\n"
            "        return $this->count * $this->pricing->unit();\n"  # 8
            "    }\n"
            "}\n"),
    })
    fields = {(s.id, s.kind, s.selection_range.start.line + 1)
              for s in codemap.symbols_in() if s.kind == "field"}
    assert fields == {("src/Cart.php::Cart.pricing", "field", 4),
                      ("src/Cart.php::Cart.count", "field", 5)}
    assert _uses(codemap, "src/Cart.php::Cart.count") == {("src/Cart.php", 8, "resolved")}
