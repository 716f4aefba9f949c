"""Languages are data: ``languages/<name>.scm`` (a tags query) + ``languages/<name>.json``.

Adding a language is adding those two files; nothing here names a language. The
grammars come from ``tree-sitter-language-pack`` (pinned below 1.0, which ships them
instead of downloading them). Compiled parsers and queries are cached per process, so
worker processes each build their own on first use. The grammar package and tree-sitter
itself are loaded only then: a process that only reads the index (a CLI query) and maps
paths to languages never loads a grammar.
"""

from __future__ import annotations

import functools
import json
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import tree_sitter as ts

LANGUAGES_DIR = Path(__file__).with_name("languages")

CONTENT_SNIFF_BYTES = 64 * 1024
# Kinds whose directly nested functions are methods.
DEFAULT_METHOD_CONTAINERS = ("class", "struct", "interface", "trait", "enum", "impl")


class LanguageError(ValueError):
    """A language file is malformed; the message names the file and the problem."""


# A pattern's family (languages/README.md): its one capture that says what a match is.
DEFINITION, REFERENCE, IMPORT, DOC = 0, 1, 2, 3
Role = tuple[int, str]  # (family, the definition's capture name or the use's kind)
# The tokens of a pattern's text that matter for its captures: a capture, or a string or
# comment (skipped whole, so an `@` inside one is not taken for a capture).
_PATTERN_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|;[^\n]*|@([\w.-]+)')
# A predicate whose first argument is a role capture (``(#match? @reference.type …)``).
_PREDICATE_ON_ROLE = re.compile(r"\(#[\w-]+\??\s+@reference\.[\w.-]+")


def _classify(names: Iterable[str]) -> Role | None:
    """The family and role of a pattern whose captures are ``names``."""
    for key in names:
        if key.startswith("definition."):
            return DEFINITION, key
        if key.startswith("reference."):
            return REFERENCE, key[len("reference."):]
        if key == "import":
            return IMPORT, key
        if key == "doc":
            return DOC, key
    return None


@dataclass(frozen=True)
class ContentRule:
    """A file with one of ``extensions`` whose text matches ``pattern`` is ``language``
    (C++ headers named ``.h`` would otherwise be parsed as C)."""

    extensions: tuple[str, ...]
    pattern: re.Pattern[bytes]
    language: str


@dataclass(frozen=True)
class LanguageSpec:
    name: str
    grammar: str
    extensions: tuple[str, ...]
    filenames: tuple[str, ...]
    local_scopes: frozenset[str]
    method_containers: frozenset[str]
    body_fields: tuple[str, ...]
    import_style: str
    query_source: str = field(repr=False)
    content_rules: tuple[ContentRule, ...] = ()

    @property
    def alternatives(self) -> frozenset[str]:
        """This language and those its content rules may hand a file to."""
        return frozenset({self.name, *(rule.language for rule in self.content_rules)})

    @functools.cached_property
    def language(self) -> ts.Language:
        import tree_sitter_language_pack as pack

        return pack.get_language(self.grammar)  # type: ignore[arg-type]

    @functools.cached_property
    def query(self) -> ts.Query:
        """The compiled tags query, without its ``@reference.<kind>`` captures: a use is
        read from its ``@name`` (and ``@receiver``) alone and its kind from
        :attr:`roles`, so recording the node of the whole pattern for each of the
        hundreds of thousands of uses of a large tree was work nobody read."""
        return self.compile_query()

    def compile_query(self) -> ts.Query:
        """A fresh compile of :attr:`query` (what each index worker pays once)."""
        import tree_sitter as ts

        if found := _PREDICATE_ON_ROLE.search(self.query_source):
            # a disabled capture holds no node, and py-tree-sitter passes a predicate on
            # a capture without nodes: the filter would silently let every match through
            raise LanguageError(f"{self.name}.scm: the predicate {found[0]!r} names a role "
                                f"capture; name a helper capture of the same node "
                                f"(`@reference.type @_holder`) instead")
        try:
            query = ts.Query(self.language, self.query_source)
        except (ts.QueryError, ValueError) as exc:
            raise LanguageError(f"{self.name}.scm: {exc}") from exc
        for index in range(query.capture_count):
            if (name := query.capture_name(index)).startswith("reference."):
                query.disable_capture(name)
        return query

    @functools.cached_property
    def roles(self) -> tuple[Role | None, ...]:
        """Each pattern's family and role, read from the pattern's text (the query
        cannot tell which captures a pattern has: ``capture_quantifier`` fails)."""
        query, source = self.query, self.query_source.encode("utf-8")
        roles: list[Role | None] = []
        for pattern in range(query.pattern_count):
            text = source[query.start_byte_for_pattern(pattern):
                          query.end_byte_for_pattern(pattern)].decode("utf-8")
            names = [m[1] for m in _PATTERN_TOKEN.finditer(text) if m[1]]
            families = {role for name in names if (role := _classify([name])) is not None}
            if len(families) > 1:
                raise LanguageError(f"{self.name}.scm: pattern {pattern} has several "
                                    f"roles: {sorted(r[1] for r in families)}")
            roles.append(_classify(names))
        return tuple(roles)

    def new_parser(self) -> ts.Parser:
        import tree_sitter as ts

        return ts.Parser(self.language)


def _query_files(table_path: Path, table: dict[str, Any]) -> list[Path]:
    """``queries`` lists query files (stems) to concatenate; default: ``<name>.scm``."""
    stems = table.get("queries", [table_path.stem])
    return [table_path.with_name(f"{stem}.scm") for stem in stems]


def _spec_from_files(table_path: Path) -> LanguageSpec:
    name = table_path.stem
    try:
        table: dict[str, Any] = json.loads(table_path.read_text(encoding="utf-8"))
        query_source = "\n".join(
            path.read_text(encoding="utf-8") for path in _query_files(table_path, table)
        )
    except (OSError, json.JSONDecodeError) as exc:
        raise LanguageError(f"{table_path.name}: {exc}") from exc
    if "grammar" not in table or "extensions" not in table:
        raise LanguageError(f"{table_path.name}: needs 'grammar' and 'extensions'")
    return LanguageSpec(
        name=name,
        grammar=str(table["grammar"]),
        extensions=tuple(str(e).lower() for e in table["extensions"]),
        filenames=tuple(str(f) for f in table.get("filenames", ())),
        local_scopes=frozenset(table.get("local_scopes", ())),
        method_containers=frozenset(table.get("method_containers", DEFAULT_METHOD_CONTAINERS)),
        body_fields=tuple(table.get("body_fields", ("body",))),
        import_style=str(table.get("import_style", name)),
        query_source=query_source,
        content_rules=tuple(_content_rule(table_path, rule)
                            for rule in table.get("content_rules", ())),
    )


def _content_rule(table_path: Path, rule: dict[str, Any]) -> ContentRule:
    try:
        return ContentRule(
            extensions=tuple(str(e).lower() for e in rule["extensions"]),
            pattern=re.compile(str(rule["pattern"]).encode("utf-8"), re.MULTILINE),
            language=str(rule["language"]),
        )
    except (KeyError, TypeError, re.error) as exc:
        raise LanguageError(f"{table_path.name}: bad content rule {rule!r}: {exc}") from exc


class LanguageRegistry:
    """Every language found in a directory, looked up by name or by file path."""

    def __init__(self, directory: Path = LANGUAGES_DIR, only: tuple[str, ...] | None = None):
        self._specs: dict[str, LanguageSpec] = {}
        self._by_extension: dict[str, LanguageSpec] = {}
        self._by_filename: dict[str, LanguageSpec] = {}
        for table_path in sorted(directory.glob("*.json")):
            if only is not None and table_path.stem not in only:
                continue
            try:
                spec = _spec_from_files(table_path)
            except LanguageError:
                # A language being written (query file not there yet) must not take
                # the others down; `codekeep index` simply does not know it.
                continue
            self._specs[spec.name] = spec
            for ext in spec.extensions:
                self._by_extension.setdefault(ext, spec)
            for filename in spec.filenames:
                self._by_filename.setdefault(filename, spec)

    def names(self) -> list[str]:
        return sorted(self._specs)

    def paths_read(self) -> list[list[str]]:
        """What decides whether :meth:`for_path` knows a path: its extensions and file
        names (remembered walks are dropped when this changes)."""
        return [sorted(self._by_extension), sorted(self._by_filename)]

    def get(self, name: str) -> LanguageSpec | None:
        return self._specs.get(name)

    def refine(self, spec: LanguageSpec, path: str, data: bytes) -> LanguageSpec:
        """The language a file really is, when its extension is shared (see ContentRule)."""
        suffix = PurePosixPath(path).suffix.lower()
        for rule in spec.content_rules:
            if suffix in rule.extensions and rule.pattern.search(data, 0, CONTENT_SNIFF_BYTES):
                return self._specs.get(rule.language, spec)
        return spec

    def for_path(self, path: str) -> LanguageSpec | None:
        # String operations, not PurePosixPath (called for every file of every walk):
        # the same name and suffix rules ("a.tar.gz" -> ".gz", ".bashrc" -> none).
        name = path.rpartition("/")[2]
        spec = self._by_filename.get(name)
        if spec is not None:
            return spec
        dot = name.rfind(".")
        return self._by_extension.get(name[dot:].lower()) if 0 < dot < len(name) - 1 else None


_default_lock = threading.Lock()


@functools.lru_cache(maxsize=4)
def _registry_for(directory: str, only: tuple[str, ...] | None) -> LanguageRegistry:
    return LanguageRegistry(Path(directory), only)


def default_registry(only: tuple[str, ...] | None = None) -> LanguageRegistry:
    """The process-wide registry of the bundled languages (built once per process)."""
    with _default_lock:
        return _registry_for(str(LANGUAGES_DIR), only)
