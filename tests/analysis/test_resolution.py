"""Module text -> workspace files, per import style, and resolution across real files."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from codekeep.analysis import CodeMap
from codekeep.analysis.facts import ImportFact
from codekeep.analysis.resolve import ModuleResolver

FILES = [
    "src/shop/__init__.py", "src/shop/models.py", "src/shop/util/__init__.py",
    "src/shop/util/text.py", "web/app.ts", "web/lib/index.ts", "web/lib/format.tsx",
    "web/legacy.js", "go/pkg/store/store.go", "go/pkg/store/cache.go", "go/cmd/main.go",
    "java/com/acme/model/User.java", "java/com/acme/model/Role.java",
    "java/com/acme/App.java", "rs/src/net/mod.rs", "rs/src/net/tcp.rs", "rs/src/net/udp.rs",
    "rs/src/main.rs",
    "c/include/ring.h", "c/src/ring.c", "c/src/main.c",
    "php/app/Services/PdfRenderer.php", "php/app/Models/Invoice.php", "php/helpers.php",
    "php/app/Http/Controller.php", "rb/lib/billing/invoice.rb", "rb/lib/billing.rb",
]


@pytest.fixture
def resolver() -> ModuleResolver:
    return ModuleResolver(FILES)


@pytest.mark.parametrize(("style", "importer", "module", "name", "expected"), [
    ("python", "src/shop/util/text.py", "shop.models", "Cart", ["src/shop/models.py"]),
    ("python", "src/shop/util/text.py", "..models", "Cart", ["src/shop/models.py"]),
    ("python", "src/shop/models.py", ".util", "text",
     ["src/shop/util/__init__.py", "src/shop/util/text.py"]),
    ("python", "src/shop/models.py", "shop", None, ["src/shop/__init__.py"]),
    ("python", "src/shop/models.py", "requests", None, []),
    ("typescript", "web/app.ts", "./lib", "fmt", ["web/lib/index.ts"]),
    ("typescript", "web/app.ts", "./lib/format", None, ["web/lib/format.tsx"]),
    ("typescript", "web/lib/format.tsx", "../legacy.js", None, ["web/legacy.js"]),
    ("typescript", "web/app.ts", "react", None, []),
    ("go", "go/cmd/main.go", "example.com/proj/go/pkg/store", None,
     ["go/pkg/store/cache.go", "go/pkg/store/store.go"]),
    ("java", "java/com/acme/App.java", "com.acme.model.User", None,
     ["java/com/acme/model/User.java"]),
    ("java", "java/com/acme/App.java", "com.acme.model.*", None,
     ["java/com/acme/model/Role.java", "java/com/acme/model/User.java"]),
    ("rust", "rs/src/main.rs", "crate::net::tcp::Stream", None, ["rs/src/net/tcp.rs"]),
    ("rust", "rs/src/net/tcp.rs", "super::udp::Socket", None, ["rs/src/net/udp.rs"]),
    ("rust", "rs/src/net/mod.rs", "self::tcp", None, ["rs/src/net/tcp.rs"]),
    ("rust", "rs/src/main.rs", "self::net", None, ["rs/src/net/mod.rs"]),
    ("c", "c/src/main.c", "ring.h", None, ["c/include/ring.h"]),
    ("php", "php/app/Http/Controller.php", "App\\Models\\Invoice", "Invoice",
     ["php/app/Models/Invoice.php"]),
    ("php", "php/app/Http/Controller.php", "App\\Services", "PdfRenderer",
     ["php/app/Services/PdfRenderer.php"]),
    ("php", "php/app/Http/Controller.php", "/../../helpers.php", None, ["php/helpers.php"]),
    ("ruby", "rb/lib/billing.rb", "./billing/invoice", None, ["rb/lib/billing/invoice.rb"]),
    ("ruby", "rb/lib/billing/invoice.rb", "billing", None, ["rb/lib/billing.rb"]),
])
def test_module_paths_resolve_to_files(
    resolver: ModuleResolver, style: str, importer: str, module: str, name: str | None,
    expected: list[str],
) -> None:
    found = resolver.targets(style, importer, ImportFact(module, name, None, 0))
    assert sorted(found) == expected


def test_package_and_companion_files_see_each_other(resolver: ModuleResolver) -> None:
    go = resolver.imported_names("go", "go/pkg/store/store.go", [])
    assert go == {"go/pkg/store/cache.go": None}
    c = resolver.imported_names("c", "c/src/ring.c", [ImportFact("ring.h", None, None, 0)])
    assert c == {"c/include/ring.h": None}


def test_specific_names_limit_what_an_import_resolves(resolver: ModuleResolver) -> None:
    names = resolver.imported_names("python", "src/shop/util/text.py", [
        ImportFact("shop.models", "Cart", None, 0), ImportFact("shop.models", "Item", "I", 1)])
    assert names == {"src/shop/models.py": {"Cart"}}  # `Item as I` binds I: see aliases_of


def test_typescript_imports_resolve_across_files(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap]
) -> None:
    root = workspace({
        "src/format.ts": "export function format(x: number): string { return `${x}`; }\n",
        "src/other/format.ts": "export function format(): void {}\n",
        "src/components/Price.tsx": (
            'import { format } from "../format";\n'
            "export const Price = ({ v }: { v: number }) => <b>{format(v)}</b>;\n"),
        "src/index.js": 'const { format } = require("./other/format");\nformat();\n',
    })
    codemap = open_map(root)
    codemap.index()
    refs, _ = codemap.find_references(symbol_id="src/format.ts::format")
    confident = {(r.path, r.range.start.line) for r in refs if r.confidence == "resolved"}
    assert confident == {("src/components/Price.tsx", 0), ("src/components/Price.tsx", 1)}
    refs, _ = codemap.find_references(symbol_id="src/other/format.ts::format")
    assert ("src/index.js", 1, "resolved") in {
        (r.path, r.range.start.line, r.confidence) for r in refs}


def _uses(codemap: CodeMap, symbol_id: str) -> set[tuple[str, int, str]]:
    refs, total = codemap.find_references(symbol_id=symbol_id)
    assert total == len(refs)
    return {(r.path, r.range.start.line, r.confidence) for r in refs}


GO_MODULE = {
    "go.mod": "module example.com/m\n",
    "cmd/command.go": (
        "package cmd\n"
        "type Command struct{ name string }\n"
        "func (c *Command) Name() string { return c.name }\n"
        "func (c *Command) MarkFlagDirname(n string) {}\n"
        "func MarkFlagDirname(n string) {}\n"),
    "cmd/other.go": "package cmd\nfunc setup() {\n\tMarkFlagDirname(\"d\")\n}\n",
    "flags/flags.go": (
        "package flags\n"
        "type FlagSet struct{}\n"
        "func (f *FlagSet) String() string { return \"\" }\n"
        "func String(name string) *string { return nil }\n"),
    "main.go": (
        "package main\n"
        "import (\n\t\"os\"\n\t\"example.com/m/cmd\"\n\tfl \"example.com/m/flags\"\n)\n"
        "func main() {\n"
        "\tfile, _ := os.Open(\"x\")\n"            # line 7
        "\t_ = file.Name()\n"                       # 8: os.File, not Command.Name
        "\tfl.String(\"a\")\n"                      # 9: the function, through the alias
        "\tcmd.MarkFlagDirname(\"d\")\n"            # 10: the function
        "\tvar c cmd.Command\n"
        "\tc.MarkFlagDirname(\"d\")\n"              # 12: the method, by c's declared type
        "}\n"),
}


def test_go_functions_and_methods_of_one_name_are_different_symbols(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap]
) -> None:
    codemap = open_map(workspace(GO_MODULE))
    codemap.index()
    assert _uses(codemap, "cmd/command.go::MarkFlagDirname") == {
        ("main.go", 10, "resolved"), ("cmd/other.go", 2, "resolved")}
    # `var c cmd.Command` declares the receiver's type (tests/analysis/test_go_receivers.py)
    assert _uses(codemap, "cmd/command.go::Command.MarkFlagDirname") == {
        ("main.go", 12, "resolved")}
    assert _uses(codemap, "flags/flags.go::String") == {("main.go", 9, "resolved")}
    assert _uses(codemap, "flags/flags.go::FlagSet.String") == set()


def test_member_calls_with_common_names_on_unknown_receivers_are_not_uses(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap]
) -> None:
    codemap = open_map(workspace(GO_MODULE))
    codemap.index()
    assert _uses(codemap, "cmd/command.go::Command.Name") == set()
    ref = codemap.reference_at("main.go", 8, 10)
    assert ref is not None and ref.name == "Name" and ref.confidence == "name"
    assert ref.symbol_id is None


def test_typescript_member_calls_follow_only_known_receivers(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap]
) -> None:
    root = workspace({
        "src/ops/filter.ts": "export function filter<T>(p: (x: T) => boolean) { return p; }\n",
        "src/ops/from.ts": "export function from<T>(xs: T[]) { return xs; }\n",
        "src/cart.ts": (
            "export class Cart {\n"
            "  checkout(): void { this.checkout(); }\n"
            "  static empty(): Cart { return new Cart(); }\n"
            "}\n"),
        "src/app.ts": (
            'import { Cart } from "./cart";\n'
            'import * as ops from "./ops/filter";\n'
            "const kept = [1, 2].filter((x) => x > 1);\n"    # 2: Array.prototype.filter
            "const copy = Array.from(kept);\n"               # 3: Array.from
            "ops.filter((x: number) => x > 0);\n"            # 4: the function
            "const cart = Cart.empty();\n"                   # 5: static, through its class
            "cart.checkout();\n"),                           # 6: type unknown to us
    })
    codemap = open_map(root)
    codemap.index()
    assert _uses(codemap, "src/ops/filter.ts::filter") == {("src/app.ts", 4, "resolved")}
    assert _uses(codemap, "src/ops/from.ts::from") == set()
    assert _uses(codemap, "src/cart.ts::Cart.empty") == {("src/app.ts", 5, "resolved")}
    assert _uses(codemap, "src/cart.ts::Cart.checkout") == {
        ("src/cart.ts", 1, "resolved"), ("src/app.ts", 6, "name")}


def test_uses_through_an_import_alias_and_re_export_lines_are_references(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap]
) -> None:
    root = workspace({
        "src/operators/refCount.ts": "export function refCount() { return 1; }\n",
        "src/index.ts": 'export { refCount } from "./operators/refCount";\n',
        "src/share.ts": (
            'import { refCount as higherOrderRefCount } from "./operators/refCount";\n'
            "export function share() {\n"
            "  return higherOrderRefCount();\n"
            "}\n"),
        "py/pricing.py": "def total(xs):\n    return sum(xs)\n",
        "py/cart.py": "from pricing import total as grand_total\n\nprint(grand_total([1]))\n",
    })
    codemap = open_map(root)
    codemap.index()
    uses = _uses(codemap, "src/operators/refCount.ts::refCount")
    assert {("src/index.ts", 0), ("src/share.ts", 0), ("src/share.ts", 2)} <= {
        (path, line) for path, line, _label in uses}
    assert ("src/share.ts", 2, "resolved") in uses
    refs, _ = codemap.find_references(symbol_id="src/operators/refCount.ts::refCount")
    assert {r.name for r in refs if r.path == "src/share.ts"} == {
        "refCount", "higherOrderRefCount"}
    assert ("py/cart.py", 2, "resolved") in _uses(codemap, "py/pricing.py::total")


def test_named_imports_follow_re_exporting_barrels(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap]
) -> None:
    root = workspace({
        "src/operators/refCount.ts": "export function refCount() { return 1; }\n",
        "src/operators/index.ts": 'export * from "./refCount";\n',
        "src/index.ts": 'export { refCount } from "./operators";\n',
        "src/app.ts": 'import { refCount } from "./index";\nrefCount();\n',
        "src/deep.ts": 'import { refCount } from "./operators";\nrefCount();\n',
        "src/other.ts": 'import { refCount } from "rxjs";\nrefCount();\n',
    })
    codemap = open_map(root)
    codemap.index()
    uses = _uses(codemap, "src/operators/refCount.ts::refCount")
    assert {("src/app.ts", 1, "resolved"), ("src/deep.ts", 1, "resolved"),
            ("src/index.ts", 0, "resolved"), ("src/other.ts", 1, "name")} <= uses


def test_typescript_classes_used_as_values_are_references(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap]
) -> None:
    root = workspace({
        "src/Observable.ts": "export class Observable {}\n",
        "src/util.ts": (
            'import { Observable } from "./Observable";\n'
            "export function isObservable(x: unknown): boolean {\n"
            "  return x instanceof Observable;\n"
            "}\n"
            "export type Ctor = typeof Observable;\n"),
    })
    codemap = open_map(root)
    codemap.index()
    assert {("src/util.ts", 2, "resolved"), ("src/util.ts", 4, "resolved")} <= _uses(
        codemap, "src/Observable.ts::Observable")
