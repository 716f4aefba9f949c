"""Fuzzy symbol search: word starts, subsequences, typos, ranking."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest

from codekeep.analysis import CodeMap
from codekeep.analysis.errors import InvalidLimitError
from codekeep.analysis.fuzzy import NameIndex, StoredNames, rank, score, word_starts
from tests.analysis.conftest import WriteFiles

NAMES = ["get_user", "getUser", "GetUserById", "target_users", "gut_sr", "get", "user",
         "HTTPServer", "parse_http_response", "ResponseParser", "getattr", "regular"]


def test_word_starts_cover_snake_camel_and_acronyms() -> None:
    assert word_starts("get_user") == {0, 4}
    assert word_starts("getUserById") == {0, 3, 7, 9}
    assert word_starts("HTTPServer") == {0, 4}
    assert word_starts("parse2json") == {0, 5, 6}


def test_word_start_abbreviations_find_both_spellings() -> None:
    index = NameIndex(NAMES)
    found = [name for name, _ in index.search("gtUsr", 5)]
    assert found[:2] in (["getUser", "get_user"], ["get_user", "getUser"])
    assert "GetUserById" in found


def test_exact_then_prefix_then_substring_then_subsequence() -> None:
    ranked = [name for name, _ in NameIndex(NAMES).search("user", 10)]
    assert ranked[0] == "user"
    assert ranked.index("get_user") < ranked.index("gut_sr") if "gut_sr" in ranked else True
    assert score("get", "get") == 1.0
    assert score("get", "getattr") > score("get", "target_users") > 0  # type: ignore[operator]
    assert score("hsv", "HTTPServer") is not None
    assert score("xyz", "HTTPServer") is None


def test_small_typos_are_forgiven_with_a_lower_score() -> None:
    index = NameIndex(NAMES)
    for typo, wanted in [("get_usre", "get_user"), ("pasre_http", "parse_http_response"),
                         ("ResponsParser", "ResponseParser"), ("gte_user", "get_user")]:
        found = dict(index.search(typo, 10))
        assert wanted in found, typo
    assert dict(index.search("get_user", 3))["get_user"] == 1.0


def test_index_follows_additions_and_removals() -> None:
    index = NameIndex(["alpha"])
    index.add("beta")
    index.add("beta")
    index.remove("beta")
    assert [n for n, _ in index.search("bta", 5)] == ["beta"]
    index.remove("beta")
    assert index.search("bta", 5) == []
    assert index.search("", 5) == []
    # (a query's regex characters are matched as themselves)
    assert NameIndex(["ab[cd", "c\\d"]).search("b[c", 5) == [
        ("ab[cd", pytest.approx(0.75, abs=0.2))]
    assert NameIndex(["a_[b", "a[b"]).search("[", 5) == [("a_[b", pytest.approx(0.775))]


def test_search_symbols_through_the_code_map(
    workspace: Callable[..., Path], open_map: Callable[..., CodeMap]
) -> None:
    root = workspace({
        "users.py": "def get_user():\n    pass\n\nclass UserStore:\n    def get_all(self):\n"
                    "        pass\n",
        "api.ts": "export function getUser(): void {}\n",
    })
    codemap = open_map(root)
    codemap.index()
    results = codemap.search_symbols("gtUsr", limit=5)
    assert {s.id for s, _ in results[:2]} == {"users.py::get_user", "api.ts::getUser"}
    assert all(a >= b for (_, a), (_, b) in itertools.pairwise(results))
    codemap.open_document("api.ts", "export function fetchUser(): void {}\n")
    ids = [s.id for s, _ in codemap.search_symbols("ftchusr")]
    assert ids[0] == "api.ts::fetchUser"
    assert "api.ts::getUser" not in [s.id for s, _ in codemap.search_symbols("getUser")]
    assert len(codemap.search_symbols("u", limit=2)) == 2
    found = [s.id for s, _ in codemap.search_symbols("UsrSt.gtall")]
    assert found == ["users.py::UserStore.get_all"]
    assert codemap.search_symbols("Nothing.get_all") == []


def test_find_symbol_limit_keeps_the_order_for_names_defined_in_many_files(
    workspace: WriteFiles, open_map: Callable[..., CodeMap]
) -> None:
    # Enough same-named definitions that a limited lookup walks files in path order
    # instead of sorting every match: it must give exactly the first rows of the full list.
    files: dict[str, str | bytes] = {}
    for i in range(60):
        body = f"class Model{i}:\n    def __init__(self):\n        pass\n"
        if i % 7 == 0:
            body += "\n__init__ = None\n"  # a variable ranks after methods
        if i % 11 == 0:
            body += "\nclass __init__:\n    pass\n"  # a class ranks before them
        files[f"pkg{i % 4}/m{59 - i:02}.py"] = body
    codemap = open_map(workspace(files))
    codemap.index()
    everything = codemap.find_symbol("__init__")
    assert len(everything) == 60 + 9 + 6
    assert [s.kind for s in everything[:6]] == ["class"] * 6
    assert [s.kind for s in everything[-9:]] == ["variable"] * 9
    methods = [s for s in everything if s.kind == "method"]
    assert [s.path for s in methods] == sorted(s.path for s in methods)
    for limit in (1, 3, 7, 20, 66, 100):
        assert codemap.find_symbol("__init__", limit=limit) == everything[:limit]
        assert codemap.find_symbol("__init__", kind="method", limit=limit) == methods[:limit]
    assert codemap.find_symbol("__init__", limit=None) == everything
    for bad in (0, -1):  # one rule for every query: None is "no limit", below 1 an error
        with pytest.raises(InvalidLimitError, match="limit must be a positive number"):
            codemap.find_symbol("__init__", limit=bad)


# Names that trip a SQL candidate step: LIKE's own wildcards, and non-ASCII letters whose
# case LIKE does not fold (the Kelvin sign lower-cases to an ASCII "k").
TRICKY = ["École", "école_normale", "café", "CAFÉ_BAR", "\u212aelvin", "kelvin", "a_b", "axb",
          "ẞtraße", "Σigma", "σίγμα", "get_user", "getUser", "GetUserById", "parse_http",
          "HTTPServer", "x", "X1", "__init__", "_private", "UPPER_CASE", "nested_get_user"]
QUERIES = ["école", "ÉCOLE", "cafe", "café", "kelvin", "KELVIN", "a_b", "_", "%", "\\", "σ",
           "ß", "gtUsr", "get_usre", "pasre_http", "HTTP", "u", "x", "__", "ecole", "ΣΙΓΜΑ",
           "gte_user", "zz", "strasse", "init"]


def test_the_first_search_asks_sqlite_and_finds_exactly_what_memory_finds(
    workspace: WriteFiles, open_map: Callable[..., CodeMap]
) -> None:
    """A one-shot search (``codekeep search``) takes candidates from SQLite; a code map
    searched again keeps the names in memory. Same answers, in the same order."""
    source = "".join(f"def {name}():\n    pass\n\n" for name in TRICKY)
    root = workspace({"names.py": source, "more.py": "class École:\n    pass\n"})
    codemap = open_map(root)
    codemap.index()
    assert {s.name for s in codemap.symbols_in(["names.py"])} == set(TRICKY)
    names = codemap._store
    in_memory = NameIndex(s.name for s in codemap.symbols_in())
    for query in QUERIES:
        for limit in (None, 1, 3, 20):
            expected = in_memory.search(query, limit)
            assert rank(query, limit, StoredNames(names)) == expected, (query, limit)
    assert [n for n, _ in rank("ecole", None, StoredNames(names))] == []
    assert {n for n, _ in rank("école", None, StoredNames(names))} >= {"École", "école_normale"}
    assert {n for n, _ in rank("kelvin", None, StoredNames(names))} == {"kelvin", "\u212aelvin"}
    assert list(StoredNames(names).candidates("a_b")) == ["a_b", "café_bar"]  # not axb

    fresh = open_map(root)
    first = [fresh.search_symbols(q, limit=5) for q in QUERIES]  # each one a fresh map's
    assert fresh._names is not None  # searched again: the names are in memory now
    assert [fresh.search_symbols(q, limit=5) for q in QUERIES] == first
    for query, found in zip(QUERIES, first, strict=True):
        one_shot = open_map(root)
        assert one_shot.search_symbols(query, limit=5) == found, query
        assert one_shot._names is None


def test_a_search_index_built_off_the_lock_hears_of_the_edits_made_meanwhile(
    workspace: WriteFiles, open_map: Callable[..., CodeMap], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server builds the name index once its index is done, while edits go on: a
    name defined meanwhile is found, a name removed meanwhile is not."""
    import codekeep.analysis.codemap as codemap_module

    root = workspace({"a.py": "def old_handler():\n    pass\n", "b.py": "def keep_me(): pass\n"})
    codemap = open_map(root)
    codemap.index()

    def built_while_editing(names: Iterable[str], exists: Callable[[str], bool]) -> NameIndex:
        listed = list(names)  # read before the edit, as prepare_search does
        (root / "a.py").write_text("def new_handler():\n    pass\n")
        codemap.refresh_file("a.py")
        return NameIndex(listed, exists)

    monkeypatch.setattr(codemap_module, "NameIndex", built_while_editing)
    codemap.prepare_search()
    assert codemap._names is not None
    assert [s.name for s, _ in codemap.search_symbols("handler")] == ["new_handler"]
    assert [s.name for s, _ in codemap.search_symbols("kpme")] == ["keep_me"]


def test_searches_while_the_name_index_is_built_ask_sqlite_not_a_second_build(
    workspace: WriteFiles, open_map: Callable[..., CodeMap], monkeypatch: pytest.MonkeyPatch
) -> None:
    """While prepare_search builds the names off the lock, every search (not only the
    first) is answered by SQLite: a second build under the lock made it wait seconds."""
    import codekeep.analysis.codemap as codemap_module

    root = workspace({"a.py": "def old_handler():\n    pass\n", "b.py": "def keep_me(): pass\n"})
    codemap = open_map(root)
    codemap.index()
    builds: list[str] = []
    answers: list[list[str]] = []

    def built_while_searching(names: Iterable[str], exists: Callable[[str], bool]) -> NameIndex:
        builds.append("build")
        for query in ("handler", "kpme", "handler"):  # as other requests would, meanwhile
            answers.append([s.name for s, _ in codemap.search_symbols(query)])
        return NameIndex(names, exists)

    monkeypatch.setattr(codemap_module, "NameIndex", built_while_searching)
    codemap.prepare_search()
    assert builds == ["build"]
    assert answers == [["old_handler"], ["keep_me"], ["old_handler"]]
    assert [s.name for s, _ in codemap.search_symbols("kpme")] == ["keep_me"]


def _generated_names(count: int, seed: int) -> list[str]:
    """Names in the shapes a large C or TypeScript tree has: snake_case, UPPER_MACROS,
    camelCase, digits, a few non-ASCII letters."""
    import random

    rng = random.Random(seed)
    words = ["s", "sp", "spin", "lock", "k", "kmalloc", "x", "xa", "ab", "abort", "Ext4",
             "dev", "σ", "École", "io", "I2c", "HTTP", "Server", "q", "z9", "_", "get"]
    names = []
    for _ in range(count):
        parts = [rng.choice(words) for _ in range(rng.randint(1, 4))]
        style = rng.randrange(4)
        if style == 0:
            names.append("_".join(p.lower() for p in parts))
        elif style == 1:
            names.append("_".join(p.upper() for p in parts))
        elif style == 2:
            names.append(parts[0].lower() + "".join(p[:1].upper() + p[1:] for p in parts[1:]))
        else:
            names.append("".join(parts) + str(rng.randrange(20)))
    return names


def test_one_and_two_letter_queries_rank_names_that_start_with_them_or_have_a_word_that_does(
) -> None:
    """A short query answers from a bounded set (the names starting with it, then the
    names where a word starts with it, shortest first), and that set holds the exact best
    ``limit`` of what ranking every name would give, after edits too."""
    from codekeep.analysis.fuzzy import short_score

    names = _generated_names(4000, seed=7)
    index = NameIndex(names)
    removed = sorted(set(names))[::5]
    for name in removed:  # gone in an edit since the index was built: never shown
        for _ in range(names.count(name)):
            index.remove(name)
    for name in ("sPinner", "s", "k9", "xa_q", "École_s"):
        index.add(name)
    alive = (set(names) - set(removed)) | {"sPinner", "s", "k9", "xa_q", "École_s"}
    for query in ("s", "S", "sp", "k", "x", "xa", "ab", "q", "z", "9", "_", "σ", "é", "ÉC",
                  "io", "i2", "ht", "se", "zz"):
        every = sorted(((n, v) for n in alive if (v := short_score(query, n)) is not None),
                       key=lambda item: (-item[1], len(item[0]), item[0]))
        for limit in (1, 5, 50, 200, None):
            assert index.search(query, limit) == every[:limit], (query, limit)
    assert [n for n, _ in index.search("sp", 2)] == ["sp", "SP"]  # exact, then its case
    # a word start inside the name counts, a mid-word letter does not
    assert short_score("lo", "spin_lock") is not None
    assert short_score("lo", "SpinLock") is not None
    assert short_score("in", "spin_lock") is None
    assert short_score("ck", "spin_lock") is None
    assert short_score("sp", "spin_lock") > short_score("lo", "spin_lock")  # type: ignore[operator]


def test_short_queries_from_sqlite_find_exactly_what_memory_finds(
    workspace: WriteFiles, open_map: Callable[..., CodeMap]
) -> None:
    """A one-shot (or mid-build) short search asks SQLite for a bounded set too: the same
    answers as the in-memory index, in the same order, at every limit."""
    names = sorted(set(_generated_names(1500, seed=11)) | set(TRICKY))
    names = [n for n in names if n.isidentifier()]
    source = "".join(f"def {name}():\n    pass\n\n" for name in names)
    root = workspace({"names.py": source})
    codemap = open_map(root)
    codemap.index()
    in_memory = NameIndex(s.name for s in codemap.symbols_in())
    for query in ("s", "S", "sp", "k", "x", "xa", "ab", "q", "z", "9", "_", "σ", "é", "io",
                  "i2", "ht", "se", "zz", "2c", "lo"):
        for limit in (1, 5, 50, None):
            expected = in_memory.search(query, limit)
            assert rank(query, limit, StoredNames(codemap._store)) == expected, (query, limit)
