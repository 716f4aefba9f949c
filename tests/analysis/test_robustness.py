"""Bad input never crashes the index, loses data or yields wrong positions."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from codekeep.analysis import CodeMap
from codekeep.analysis.extract import SIGNATURE_SCAN


def _index(workspace: Callable[..., Path], open_map: Callable[..., CodeMap],
           files: dict[str, str | bytes], **settings: object) -> CodeMap:
    codemap = open_map(workspace(files), **settings)
    codemap.index()
    return codemap


def _names(codemap: CodeMap, path: str) -> list[str]:
    return [s.name for s in codemap.symbols_in([path])]


def test_syntax_errors_keep_what_tree_sitter_recovers(workspace, open_map) -> None:
    codemap = _index(workspace, open_map, {
        "broken.py": "def good():\n    return 1\n\ndef bad(:\n    pass\n\nclass Fine:\n"
                     "    def method(self):\n        good()\n",
        "broken.ts": "export function ok(): number { return 1 }\nfunction (( {\n"
                     "export class Still { run() { ok(); } }\n",
    })
    assert {"good", "Fine", "method"} <= set(_names(codemap, "broken.py"))
    assert "ok" in _names(codemap, "broken.ts")
    refs, _ = codemap.find_references(name="good")
    assert [r.range.start.line for r in refs] == [8]


def test_invalid_utf8_is_indexed_with_replacement_characters(workspace, open_map) -> None:
    codemap = _index(workspace, open_map, {
        "latin1.py": b"# caf\xe9 \xff\xfe\ndef after_bad_bytes():\n    return '\xe9'\n",
    })
    [symbol] = codemap.find_symbol("after_bad_bytes")
    assert symbol.range.start.line == 1


# A Latin-1 byte (0xe9) in comments, doc comments and strings; the last line naming
# ``hello`` holds that byte before its call.
STRAY_BYTES = {
    "a.js": b"// caf\xe9\n/** caf\xe9 */\nfunction hello() { return 'caf\xe9'; }\n"
            b"/* caf\xe9 */ hello();\n",
    "a.ts": b"// caf\xe9\n/** caf\xe9 */\nfunction hello(): string { return 'caf\xe9'; }\n"
            b"/* caf\xe9 */ hello();\n",
    "a.go": b"package main\n// caf\xe9\nfunc hello() string { return \"caf\xe9\" }\n"
            b"func main() {\n/* caf\xe9 */ hello()\n}\n",
    "a.rs": b"// caf\xe9\n/// caf\xe9\nfn hello() -> &'static str { \"caf\xe9\" }\n"
            b"fn main() {\n/* caf\xe9 */ hello();\n}\n",
    "A.java": b"// caf\xe9\n/** caf\xe9 */\nclass A { String hello() { return \"caf\xe9\"; }\n"
              b"void m() {\n/* caf\xe9 */ hello(); } }\n",
    "a.c": b"// caf\xe9\nconst char *hello(void) { return \"caf\xe9\"; }\nint main(void) {\n"
           b"/* caf\xe9 */ hello(); }\n",
    "A.cs": b"// caf\xe9\n/// caf\xe9\nclass A { string hello() { return \"caf\xe9\"; }\n"
            b"void M() {\n/* caf\xe9 */ hello(); } }\n",
    "a.rb": b"# caf\xe9\ndef hello\n  1\nend\n\ndef main\n  x = 'caf\xe9'; hello\nend\n",
    "a.py": b"# caf\xe9\ndef hello():\n    '''caf\xe9'''\n    return 'caf\xe9'\n\n\n"
            b"x = 'caf\xe9'; hello()\n",
}


def test_stray_bytes_in_comments_and_strings_lose_no_file(workspace, open_map) -> None:
    """py-tree-sitter reads the text its query predicates test as strict UTF-8: one
    Latin-1 byte in a comment used to fail the whole file (``failed: UnicodeDecodeError``).
    The file is indexed, and columns after the byte count it as one character."""
    codemap = _index(workspace, open_map, STRAY_BYTES)
    assert codemap.status().files == len(STRAY_BYTES)
    for path, data in STRAY_BYTES.items():
        assert [s.path for s in codemap.find_symbol("hello") if s.path == path] == [path]
        last_line = max(n for n, line in enumerate(data.splitlines()) if b"hello" in line)
        [use] = [r for r in codemap.find_references(name="hello")[0]
                 if r.path == path and r.range.start.line == last_line]
        before = data.splitlines()[last_line].split(b"hello")[0]
        assert (use.range.start.byte_col, use.range.start.utf16_col) == (
            len(before), len(before.decode("latin-1"))), path


def test_a_buffer_with_a_lone_surrogate_is_kept_live(workspace, open_map) -> None:
    """An editor's text may hold a lone surrogate (JSON ``"\\ud800"``); encoded, it is no
    valid UTF-8, and the buffer's facts must still follow every keystroke."""
    codemap = _index(workspace, open_map, {"a.js": "function old() {}\n"})
    codemap.open_document("a.js", "// \ud800 /** \ud800 */\nfunction hello() {}\n")
    assert [s.range.start.line for s in codemap.find_symbol("hello")] == [1]
    codemap.apply_edit("a.js", (2, 0), (2, 0), "/* \udc00 */ function again() { hello() }\n")
    [again] = codemap.find_symbol("again")
    assert (again.range.start.line, again.selection_range.start.byte_col) == (2, 19)
    assert [r.range.start.line for r in codemap.find_references(name="hello")[0]] == [2]
    assert codemap.find_symbol("old") == []


def test_binary_files_are_skipped_and_counted(workspace, open_map) -> None:
    codemap = open_map(workspace({
        "blob.py": b"\x00\x01\x02def nope(): pass\x00" * 50,
        "real.py": "def real():\n    pass\n",
    }))
    stats = codemap.index()
    assert stats.files == 1 and stats.skipped.get("binary") == 1
    assert codemap.find_symbol("nope") == []


def test_huge_file_is_skipped_by_the_cap_and_parsed_when_it_is_raised(
    workspace, open_map
) -> None:
    # long comment lines make 10 MB cheap to parse while keeping real definitions
    filler = "# " + "z" * 5000 + "\n"
    body = "".join(f"def function_{i}(a, b):\n    return a + b\n{filler}" for i in range(2100))
    assert len(body) > 10 * 1024 * 1024
    root = workspace({"huge.py": body, "small.py": "def small():\n    pass\n"})
    codemap = open_map(root)
    stats = codemap.index()
    assert stats.files == 1 and stats.skipped.get("too large") == 1
    assert codemap.find_symbol("function_0") == []
    codemap.close()
    raised = open_map(root, max_file_bytes=64 * 1024 * 1024)
    stats = raised.index()
    assert stats.files == 2 and stats.parsed == 1
    [last] = raised.find_symbol("function_2099")
    assert last.range.start.line == 3 * 2099


def test_deeply_nested_code_does_not_break_the_parser_or_the_walk(
    workspace, open_map
) -> None:
    depth = 3000
    nested = "x = " + "[" * depth + "]" * depth + "\n"
    deep_functions = "".join("    " * i + f"def level_{i}():\n" for i in range(200))
    deep_functions += "    " * 200 + "pass\n"
    codemap = _index(workspace, open_map, {
        "nested.py": nested + "def after():\n    pass\n",
        "deep.py": deep_functions,
    })
    assert "after" in _names(codemap, "nested.py")
    assert _names(codemap, "deep.py") == ["level_0"]  # the rest are locals


def test_unreadable_entries_are_skipped(workspace, open_map) -> None:
    root = workspace({"ok.py": "def ok():\n    pass\n"})
    os.mkfifo(root / "pipe.py")  # opening a FIFO would block the indexer forever
    (root / "dangling.py").symlink_to(root / "missing-target.py")
    codemap = open_map(root)
    stats = codemap.index()
    assert stats.files == 1
    assert stats.skipped.get("not a regular file") == 1
    assert stats.skipped.get("broken symlink") == 1


def test_symlink_loops_are_walked_once(workspace, open_map) -> None:
    root = workspace({"pkg/mod.py": "def inside():\n    pass\n"})
    (root / "pkg" / "loop").symlink_to(root / "pkg", target_is_directory=True)
    (root / "pkg" / "up").symlink_to(root, target_is_directory=True)
    codemap = open_map(root)
    stats = codemap.index()
    assert stats.files == 1
    assert [s.path for s in codemap.find_symbol("inside")] == ["pkg/mod.py"]
    assert stats.skipped.get("symlink loop") == 2


def test_non_ascii_before_a_symbol_gives_utf16_columns(workspace, open_map) -> None:
    codemap = _index(workspace, open_map, {
        "wide.py": 'x = "日本語😀"; y = lambda: 0\n'
                   "def f():\n    pass\n"
                   'msg = "😀😀"; f()\n',
        "wide.ts": "/* 日本 😀 */ export function greet(): void {}\n",
    })
    [f_ref] = codemap.find_references(symbol_id="wide.py::f")[0]
    start = f_ref.range.start
    assert (start.line, start.byte_col, start.utf16_col) == (3, 18, 14)
    assert f_ref.to_json(codemap.root)["range"]["start"] == {"line": 3, "character": 14}
    assert f_ref.to_json(codemap.root, "utf-8")["range"]["start"] == {"line": 3, "character": 18}
    [greet] = codemap.find_symbol("greet")
    prefix = "/* 日本 😀 */ export function "
    assert greet.selection_range.start.utf16_col == len(prefix.encode("utf-16-le")) // 2
    assert greet.selection_range.start.byte_col == len(prefix.encode("utf-8"))


def test_many_uses_on_one_long_non_ascii_line_keep_exact_utf16_columns(
    workspace, open_map
) -> None:
    # Generated code on one line: every use sits after wide text, some after a broken
    # UTF-8 sequence; each column is counted as the whole prefix would count it.
    items = [b"f()", '"é😀"'.encode(), b"f()", b'"\xff"', b"f()", '"中"'.encode(), b"f()"] * 40
    data = b"def f():\n    pass\nx = [" + b", ".join(items) + b"]\n"
    codemap = _index(workspace, open_map, {"gen.py": data})
    uses = sorted(codemap.find_references(symbol_id="gen.py::f")[0],
                  key=lambda ref: ref.range.start.byte_col)
    line = data.split(b"\n")[2]
    assert len(uses) == 160
    for use in uses:
        start = use.range.start
        prefix = line[:start.byte_col].decode("utf-8", "replace")
        assert start.utf16_col == len(prefix.encode("utf-16-le")) // 2
        assert use.range.end.utf16_col == start.utf16_col + 1


def test_gitignore_and_excludes_are_respected(workspace, open_map) -> None:
    codemap = _index(workspace, open_map, {
        ".gitignore": "generated/\n*.gen.py\n!keep.gen.py\n",
        "src/.gitignore": "local_only.py\n",
        "src/app.py": "def app():\n    pass\n",
        "src/local_only.py": "def hidden():\n    pass\n",
        "generated/out.py": "def generated():\n    pass\n",
        "x.gen.py": "def gen():\n    pass\n",
        "keep.gen.py": "def kept():\n    pass\n",
        "node_modules/lib/index.js": "function dependency() {}\n",
        "deep/build/artifact.py": "def artifact():\n    pass\n",
        ".venv/lib/site.py": "def venv():\n    pass\n",
        "notes.md": "# not code\n",
    })
    assert sorted(codemap.files()) == ["keep.gen.py", "src/app.py"]
    assert codemap.index().skipped.get("unsupported language") == 3  # 2 .gitignore, notes


def test_a_damaged_index_file_is_rebuilt(workspace, open_map) -> None:
    root = workspace({"a.py": "def a():\n    pass\n"})
    state = root / ".codekeep"
    state.mkdir()
    (state / "index.db").write_bytes(b"this is not a database" * 100)
    codemap = open_map(root)
    assert codemap.index().files == 1
    assert [s.id for s in codemap.find_symbol("a")] == ["a.py::a"]
    with sqlite3.connect(state / "index.db") as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] >= 1


def test_unsupported_and_oversized_documents_are_ignored_by_live_updates(
    workspace, open_map
) -> None:
    codemap = _index(workspace, open_map, {"a.py": "def a():\n    pass\n"},
                     max_file_bytes=1000)
    assert codemap.open_document("notes.txt", "hello").is_empty()
    assert codemap.open_document("a.py", "def b():\n    pass\n" + "#" * 2000).is_empty()
    assert codemap.open_document("a.py", "def c():\0\n    pass\n").is_empty()  # binary
    assert [s.name for s in codemap.symbols_in(["a.py"])] == ["a"]


def test_indexing_works_while_another_process_reads_the_index(workspace, open_map) -> None:
    files = {f"m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(120)}
    root = workspace(files)
    open_map(root).close()  # create the database
    reader = sqlite3.connect(root / ".codekeep" / "index.db")
    reader.execute("BEGIN")
    reader.execute("SELECT COUNT(*) FROM files").fetchone()  # holds a read snapshot
    try:
        codemap = open_map(root)
        stats = codemap.index()  # its compaction must give way, not fail or stall
        assert stats.files == 120 and stats.seconds < 5
        assert [s.id for s in codemap.find_symbol("f119")] == ["m119.py::f119"]
    finally:
        reader.rollback()
        reader.close()


def test_a_file_that_breaks_extraction_is_recorded_not_fatal(
    workspace, open_map, monkeypatch
) -> None:
    from codekeep.analysis import parsing

    real = parsing.analyse_source

    def exploding(spec, data):  # type: ignore[no-untyped-def]
        if b"explode" in data:
            raise RuntimeError("extraction bug")
        return real(spec, data)

    monkeypatch.setattr(parsing, "analyse_source", exploding)
    codemap = open_map(workspace({"ok.py": "def ok():\n    pass\n",
                                  "bad.py": "def explode():\n    pass\n"}))
    stats = codemap.index()
    assert stats.files == 1 and stats.skipped.get("failed") == 1
    assert [s.id for s in codemap.find_symbol("ok")] == ["ok.py::ok"]


def test_missing_names_from_error_recovery_make_no_symbols(workspace, open_map) -> None:
    # tree-sitter repairs `typedef struct {...} ;` with a zero-width MISSING type name
    codemap = _index(workspace, open_map, {"broken.c": "typedef struct { int a; } ;\n"
                                                       "int later(void) { return 0; }\n"})
    names = _names(codemap, "broken.c")
    assert "" not in names and "later" in names


def test_links_out_of_the_workspace_are_never_indexed(workspace, open_map, tmp_path) -> None:
    """A symlinked folder or file leading out of the workspace, or a hard link (whose
    other name may be anywhere), is not indexed, so search and the repo map never
    serve outside code; a symlink that stays inside is followed as before."""
    outside = tmp_path / "elsewhere"
    (outside / "lib").mkdir(parents=True)
    (outside / "lib" / "private.py").write_text("def outside_secret_helper():\n    pass\n")
    (outside / "alone.py").write_text("def outside_single_file():\n    pass\n")
    root = workspace({"src/app.py": "def inside_function():\n    pass\n"})
    os.symlink(outside / "lib", root / "vendor")
    os.symlink(outside / "alone.py", root / "alone.py")
    os.link(outside / "lib" / "private.py", root / "copy_of_private.py")
    os.symlink(root / "src", root / "src_alias")
    codemap = open_map(root)
    stats = codemap.index()
    assert codemap.find_symbol("outside_secret_helper") == []
    assert codemap.find_symbol("outside_single_file") == []
    assert codemap.search_symbols("outside")[:1] == []
    assert "outside" not in codemap.repo_map(token_budget=2000).text
    assert stats.skipped.get("symlink out of the workspace") == 2
    assert stats.skipped.get("hard link") == 1
    assert [s.path for s in codemap.find_symbol("inside_function")] == ["src/app.py"]


# A header longer than the bytes a signature is read from (extract.SIGNATURE_SCAN: an
# open docstring can stretch one over the rest of the file): the cut falls between
# tokens, so a credential at its start is hidden all the same.
LONG_HEADER = "".join(f", option_{i}=None" for i in range(SIGNATURE_SCAN // 10))


@pytest.mark.parametrize("rest", ["", LONG_HEADER], ids=["short", "long header"])
def test_secrets_in_signatures_never_reach_index_db(workspace, open_map, rest: str) -> None:
    """The code map stores signatures; a credential in a default value or a constant is
    redacted there (the source file keeps it, index.db under .codekeep/ does not)."""
    from tests.common.secret_corpus import CORPUS

    lines = [f"SETTING_{n} = {text!r}\n\ndef connect_{n}(value={text!r}{rest}):\n    pass\n\n"
             for n, (_kind, text, _secret) in enumerate(CORPUS)]
    root = workspace({"conf.py": "".join(lines)})
    codemap = open_map(root)
    codemap.index()
    (found,) = codemap.find_symbol("connect_0")
    assert "[REDACTED:" in found.signature
    codemap.close()
    stored = b"".join(p.read_bytes() for p in (root / ".codekeep").glob("index.db*"))
    leaked = [kind for kind, _text, secret in CORPUS if secret.encode() in stored]
    assert leaked == []



def test_a_long_header_without_late_spaces_keeps_its_name(workspace, open_map) -> None:
    """Minified code: a header past SIGNATURE_SCAN whose only space is right after
    ``def`` is cut mid-token, not at that space (which would leave just "def")."""
    params = ",".join(f"p{i}" for i in range(SIGNATURE_SCAN // 3))
    root = workspace({"mini.py": f"def squeeze({params}):\n    pass\n"})
    codemap = open_map(root)
    codemap.index()
    (found,) = codemap.find_symbol("squeeze")
    assert found.signature.startswith("def squeeze(p0,p1,p2,")
    codemap.close()
