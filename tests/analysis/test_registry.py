"""Language files: loading, shared fragments, broken files, content rules for shared extensions."""

from __future__ import annotations

import json
from pathlib import Path

from codekeep.analysis.registry import LanguageRegistry, default_registry


def _language(directory: Path, name: str, table: dict, query: str) -> None:
    (directory / f"{name}.json").write_text(json.dumps(table))
    (directory / f"{name}.scm").write_text(query)


def test_bundled_languages_all_load_and_compile() -> None:
    registry = default_registry()
    assert {"python", "javascript", "typescript", "tsx"} <= set(registry.names())
    for name in registry.names():
        spec = registry.get(name)
        assert spec is not None and spec.query.pattern_count > 0, name
    assert registry.for_path("src/App.TSX").name == "tsx"  # type: ignore[union-attr]
    assert registry.for_path("types.d.ts").name == "typescript"  # type: ignore[union-attr]
    assert registry.for_path("README.md") is None


def test_content_rules_hand_shared_extensions_to_the_right_language(tmp_path: Path) -> None:
    _language(tmp_path, "plain", {
        "grammar": "c", "extensions": [".c", ".h"],
        "content_rules": [{"extensions": [".h"], "language": "fancy",
                           "pattern": r"^\s*(class|namespace|template\s*<)\b"}],
    }, "(function_definition) @definition.function")
    _language(tmp_path, "fancy", {"grammar": "cpp", "extensions": [".hpp"]},
              "(class_specifier name: (type_identifier) @name) @definition.class")
    _language(tmp_path, "broken", {"grammar": "c"}, "")  # no extensions: skipped
    registry = LanguageRegistry(tmp_path)
    assert registry.names() == ["fancy", "plain"]
    plain = registry.for_path("x.h")
    assert plain is not None and plain.alternatives == {"plain", "fancy"}
    assert registry.refine(plain, "x.h", b"namespace ns {\nclass A {};\n}\n").name == "fancy"
    assert registry.refine(plain, "x.h", b"int add(int a, int b);\n").name == "plain"
    assert registry.refine(plain, "x.c", b"class A {};\n").name == "plain"  # only .h
