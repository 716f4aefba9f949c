"""Language files: loading, shared fragments, broken files, content rules for shared extensions."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
import tree_sitter as ts

from codekeep.analysis import CodeMap
from codekeep.analysis.registry import LanguageError, LanguageRegistry, default_registry
from tests.analysis.conftest import WriteFiles


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


def test_h_files_with_cpp_content_are_indexed_as_cpp(
    workspace: WriteFiles, open_map: Callable[..., CodeMap]
) -> None:
    root = workspace({
        "include/shapes.h": """
            #pragma once
            namespace geo {
            class Shape {
            public:
                virtual double area() const = 0;
            };
            }
        """,
        "include/vec.h": """
            template <typename T>
            struct Vec { T x; };
        """,
        "include/out_of_line.h": """
            #include "shapes.h"
            double geo::Circle::area() const { return 3.14; }
        """,
        "include/plain.h": """
            /* a C header: the class keyword only in a comment */
            struct point { int x; };
            int add(int a, int b);
        """,
    })
    codemap = open_map(root)
    stats = codemap.index()
    assert stats.languages == {"cpp": 3, "c": 1}
    shape = codemap.find_symbol("geo.Shape")
    assert [(s.kind, s.language) for s in shape] == [("class", "cpp")]
    assert [s.language for s in codemap.find_symbol("point")] == ["c"]
    # The verdict is stable across warm starts: nothing is re-parsed.
    assert codemap.index().parsed == 0


def test_each_pattern_is_one_fact_read_from_its_text(tmp_path: Path) -> None:
    """A pattern's family and kind come from its text (the query drops the use captures
    it no longer records); an ``@`` in a comment or string is not a capture, and a
    pattern that would be two facts at once is refused, naming the file."""
    _language(tmp_path, "tiny", {"grammar": "python", "extensions": [".py"]}, """
        ; a comment mentioning @definition.class is not a capture
        (function_definition name: (identifier) @name) @definition.function
        (call function: (identifier) @name
          (#not-eq? @name "@reference.type")) @reference.call
        (import_statement name: (dotted_name) @import.module) @import
    """)
    spec = LanguageRegistry(tmp_path).get("tiny")
    assert spec is not None
    assert spec.roles == ((0, "definition.function"), (1, "call"), (2, "import"))
    names = [spec.query.capture_name(i) for i in range(spec.query.capture_count)]
    assert "reference.call" in names and "definition.function" in names
    tree = spec.new_parser().parse(b"def f():\n    g()\n")
    matches = ts.QueryCursor(spec.query).matches(tree.root_node)
    # a use's match holds its name alone: the node of the whole pattern is not recorded
    assert [(pattern, set(captures)) for pattern, captures in matches] == [
        (0, {"definition.function", "name"}), (1, {"name"})]
    _language(tmp_path, "twofold", {"grammar": "python", "extensions": [".py"]},
              "(class_definition name: (identifier) @name) @definition.class @reference.type")
    twofold = LanguageRegistry(tmp_path).get("twofold")
    assert twofold is not None
    with pytest.raises(LanguageError, match=r"twofold\.scm: pattern 0 has several roles"):
        _ = twofold.roles


def test_a_predicate_on_a_role_capture_is_refused(tmp_path: Path) -> None:
    """Role captures record no node (``disable_capture``), and py-tree-sitter passes a
    predicate on a capture without nodes: such a filter would let every match through."""
    _language(tmp_path, "leaky", {"grammar": "python", "extensions": [".py"]}, """
        ((call function: (identifier) @name) @reference.call
          (#not-match? @reference.call "^print"))
    """)
    leaky = LanguageRegistry(tmp_path).get("leaky")
    assert leaky is not None
    with pytest.raises(LanguageError, match=r"leaky\.scm: the predicate .* names a role"):
        _ = leaky.query


@pytest.mark.parametrize(("path", "source"), [
    ("A.java", "class A { void f() { Foo x = new Bar(); } }\n"),
    ("A.cs", "class A { void F() { Foo x = new Bar(); } }\n"),
])
def test_an_object_creation_is_a_new_use_not_a_type_use(
    path: str, source: str, tmp_path: Path, open_map: Callable[..., CodeMap],
) -> None:
    (tmp_path / path).write_text(source, encoding="utf-8")
    codemap = open_map(tmp_path)
    codemap.index()
    kinds = {name: sorted(r.kind for r in codemap.find_references(name=name)[0])
             for name in ("Foo", "Bar")}
    assert kinds == {"Foo": ["type"], "Bar": ["new"]}
    codemap.close()
