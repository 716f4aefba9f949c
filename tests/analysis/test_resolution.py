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
    assert names == {"src/shop/models.py": {"Cart", "Item"}}


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
