"""``codekeep index|find|refs|related|search|symbols|map``: the code map from a shell.

Text output reads like ``ctags -x`` plus ranges (1-based lines and columns, as compilers
print them); ``--json`` gives the shapes of docs/server.md (LSP 0-based ranges, UTF-16 columns).
Query commands first bring the index up to date (a warm start only stats files), so the
answers are never stale; ``--no-refresh`` skips that.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from codekeep.cli.options import (
    add_common_options,
    emit_json,
    fail,
    index_settings_of,
    nothing_found,
    positive_int,
    root_of,
    settings_of,
)
from codekeep.common.sqlite import SchemaTooNewError, is_damage
from codekeep.common.workspace import state_dir

if TYPE_CHECKING:
    from codekeep.analysis import CodeMap, Symbol
    from codekeep.analysis.factshare import ShareStats
    from codekeep.settings.codemap import IndexSettings
    from codekeep.settings.team import TeamSettings
    from codekeep.team.facts import TeamFacts

ORDER = 10
COMMANDS = {
    "index": "index the workspace (parallel; unchanged files are skipped)",
    "find": "where NAME (or Container.name, or a symbol id) is defined",
    "refs": "every use of a symbol name or id, resolved uses first",
    "related": "the symbol at PATH:LINE (1-based), what it calls, what calls it",
    "search": "fuzzy symbol search (gtUsr finds get_user)",
    "symbols": "outline of files (default: the whole index)",
    "map": "ranked repository outline that fits a token budget",
}


class _Progress:
    """The terminal's progress line: counts and, once there is a pace, the time left."""

    def __init__(self) -> None:
        from codekeep.common.eta import Eta

        self._eta = Eta()
        self._shown = ""

    def __call__(self, done: int, total: int) -> None:
        from codekeep.common.eta import describe

        line = f"indexing {describe(done, total, self._eta.seconds_left(done, total))}"
        sys.stderr.write("\r" + line.ljust(len(self._shown)))
        self._shown = line
        if done == total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def _progress_line() -> Callable[[int, int], None] | None:
    return _Progress() if sys.stderr.isatty() else None


def _flags(args: argparse.Namespace) -> dict[str, Any]:
    """This command's code map flags, as settings (wire names; None: not given)."""
    return {"maxFileSize": args.max_bytes, "exclude": args.exclude}


def open_codemap(args: argparse.Namespace, refresh: bool = True,
          settings: IndexSettings | None = None) -> CodeMap:
    from codekeep.analysis import CodeMap

    codemap = CodeMap.open(root_of(args), settings or index_settings_of(args, _flags(args)))
    if refresh and not getattr(args, "no_refresh", False):
        codemap.refresh(progress=_progress_line())
    return codemap


def guarded(handler: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """Bad input ends in one clear line on stderr and exit status 1, never a traceback."""

    def run(args: argparse.Namespace, rebuilt: bool = False) -> int:
        from codekeep.analysis import CodeMapError
        from codekeep.analysis.codemap import INDEX_FILE
        from codekeep.analysis.store import discard

        try:
            return handler(args)
        except (CodeMapError, SchemaTooNewError) as exc:
            return fail(str(exc))
        except BrokenPipeError:
            raise  # `codekeep refs x | head`: the dispatcher exits quietly
        except sqlite3.DatabaseError as exc:
            if rebuilt or not is_damage(exc):
                return fail(f"{type(exc).__name__}: {exc}")
            # damage the open-time check did not see (a big file): the index is a cache
            index_file = state_dir(root_of(args)) / INDEX_FILE
            print(f"codekeep: {index_file} is damaged ({exc}); rebuilding it", file=sys.stderr)
            discard(index_file)
            return run(args, rebuilt=True)
        except (OSError, sqlite3.Error) as exc:
            return fail(f"{type(exc).__name__}: {exc}")

    return run


def _span(symbol: Symbol) -> str:
    r = symbol.range
    return f"{r.start.line + 1}:{r.start.utf16_col + 1}-{r.end.line + 1}:{r.end.utf16_col + 1}"


def _symbol_line(symbol: Symbol, indent: str = "") -> str:
    name = f"{indent}{symbol.name}"
    line = symbol.selection_range.start.line + 1
    where = f"{symbol.path} [{_span(symbol)}]"
    return f"{name:<28} {symbol.kind:<10} {line:>5} {where} {symbol.signature}"


def _relative(args: argparse.Namespace, path: str) -> str:
    """Accept paths relative to the root, to the current directory, or absolute."""
    root = root_of(args)
    candidate = Path(path)
    if not candidate.is_absolute():
        from_cwd = Path.cwd() / candidate
        candidate = from_cwd if from_cwd.exists() else root / candidate
    try:
        return candidate.resolve().relative_to(root).as_posix()
    except ValueError:
        return Path(os.path.normpath(path)).as_posix()


# ---- handlers -------------------------------------------------------------------------
def _index(args: argparse.Namespace) -> int:
    """The code map, then the docs (``codekeep docs index`` alone does only the docs)."""
    from codekeep.docs import DocsIndex

    settings = settings_of(args, _flags(args))  # every section: the docs are indexed too
    shared: dict[str, Any] = {}
    if args.import_file is not None:
        shared["imported"] = _import_facts(args.import_file).to_json()
    with (open_codemap(args, refresh=False, settings=settings.index) as codemap,
          DocsIndex.open(codemap.root, codemap.settings, settings.docs) as docs):
        team = _team_facts(settings.team, codemap.root)
        if team is not None:  # what the team computed is not computed again here
            team.fetch([*codemap.keys_to_parse(), *docs.keys_to_read()])
        stats = codemap.index(progress=_progress_line(),
                              explain=True)
        docs_stats = docs.index(embed="now")
        if team is not None:
            team.publish()
            team.close()
            shared["team"] = team.report.to_json()
        if args.export_file is not None:  # the docs' pages travel with the facts
            shared["exported"] = codemap.export_facts(args.export_file,
                                                      docs.cache_keys()).to_json()
    if team is not None and team.report.error is not None:  # indexed all the same
        print(f"codekeep: warning: {team.report.summary()}", file=sys.stderr)
    if stats.coverage is not None and stats.coverage.worth_saying():
        print(f"codekeep: warning: {stats.coverage.summary()}", file=sys.stderr)
    if args.json:
        payload = stats.to_json()
        emit_json({**{key: payload[key] for key in ("files", "symbols", "references",
                                                    "languages", "seconds", "skipped",
                                                    "coverage")},
                   "docs": docs_stats.to_json(), **shared})
        return 0
    languages = ", ".join(f"{name} {count}" for name, count in sorted(stats.languages.items()))
    print(f"indexed {stats.files} files ({languages or 'none'}) in {stats.seconds:.2f}s: "
          f"{stats.symbols} symbols, {stats.references} references")
    print(f"parsed {stats.parsed}, unchanged {stats.unchanged}, removed {stats.removed}")
    if stats.skipped:
        print("skipped: " + ", ".join(f"{reason} {n}" for reason, n in sorted(
            stats.skipped.items())))
    print(docs_stats.summary())
    if "imported" in shared:
        print(_share_line("imported", args.import_file, shared["imported"]))
    if "exported" in shared:
        print(_share_line("exported", args.export_file, shared["exported"]))
    if team is not None and team.report.error is None:
        print(team.report.summary())
    return 0


def _team_facts(settings: TeamSettings, root: Path) -> TeamFacts | None:
    """The team database's share of this index (None: no team DSN, or no local cache to
    put what it gives in)."""
    if not settings.dsn.strip():
        return None
    from codekeep.analysis.factcache import default_cache
    from codekeep.team.facts import open_team_facts

    return open_team_facts(settings, root, default_cache())


def _import_facts(source: Path) -> ShareStats:
    from codekeep.analysis.factcache import default_cache
    from codekeep.analysis.factshare import FactShareError, import_facts

    cache = default_cache()
    if cache is None:
        raise FactShareError("the facts cache is off (CODEKEEP_PARSE_CACHE=off): "
                             "there is nowhere to import to")
    return import_facts(cache, source)


def _share_line(done: str, path: Path, stats: dict[str, int]) -> str:
    notes = [f"{stats[key]} {key}" for key in ("missing", "refused") if stats[key]]
    way = "from" if done == "imported" else "to"
    return (f"facts cache: {done} {stats['entries']} entries {way} {path}"
            + (f" ({', '.join(notes)})" if notes else ""))


def _find(args: argparse.Namespace) -> int:
    with open_codemap(args) as codemap:
        # heirs: symbol id -> the class that inherits it
        symbols, heirs = codemap.find_defined_or_inherited(args.name, args.kind, args.limit)
        if not symbols:
            kind = f" of kind {args.kind}" if args.kind else ""
            return nothing_found(args, f"no symbol named {args.name!r}{kind}"
                                 f"{_did_you_mean(codemap, args.name)}", {"symbols": []})
        if args.json:
            emit_json({"symbols": [{**s.to_json(codemap.root),
                                    **({"inheritedBy": heirs[s.id]} if s.id in heirs else {})}
                                   for s in symbols]})
        else:
            for symbol in symbols:
                heir = f", inherited by {heirs[symbol.id]}" if symbol.id in heirs else ""
                container = f"  (in {symbol.container}{heir})" if symbol.container else ""
                print(_symbol_line(symbol) + container)
    return 0


def _did_you_mean(codemap: CodeMap, name: str) -> str:
    """The closest names the fuzzy search knows (``find Flsk``: Flask), and where to look
    further (``find`` takes exact names, and inherited members through the bases the
    index knows)."""
    close = list(dict.fromkeys(
        f"{symbol.container}.{symbol.name}" if symbol.container else symbol.name
        for symbol, _score in codemap.search_symbols(name, limit=3)
        or codemap.search_symbols(name.rpartition(".")[2], limit=3)))
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    return f"{hint} (`codekeep search {name}` looks fuzzily)"


def _refs(args: argparse.Namespace) -> int:
    with open_codemap(args) as codemap:
        is_id = codemap.symbol(args.target) is not None
        if is_id:
            refs, total = codemap.find_references(symbol_id=args.target, limit=args.limit,
                                                  offset=args.offset)
        else:
            refs, total = codemap.find_references(name=args.target, limit=args.limit,
                                                  offset=args.offset)
            if total == 0 and not codemap.find_symbol(args.target):
                return nothing_found(args, f"no symbol or reference named {args.target!r}",
                                     {"references": [], "total": 0})
        if args.json:
            emit_json({"references": [r.to_json(codemap.root) for r in refs], "total": total})
            return 0
        for ref in refs:
            start = ref.range.start
            target = f" -> {ref.symbol_id}" if ref.symbol_id else ""
            print(f"{ref.path}:{start.line + 1}:{start.utf16_col + 1}  {ref.confidence:<8} "
                  f"{ref.kind:<10} {ref.name}{target}")
        if len(refs) == total:
            shown = str(total)
        elif args.offset and refs:  # a later page: which uses of the order these are
            shown = f"{args.offset + 1}-{args.offset + len(refs)} of {total}"
        else:
            shown = f"{len(refs)} of {total}"
        print(f"{shown} references")
    return 0


def _related(args: argparse.Namespace) -> int:
    path, sep, line_text = args.location.rpartition(":")
    if not sep or not line_text.isdigit() or int(line_text) < 1:
        return fail(f"expected PATH:LINE with a 1-based line, got {args.location!r}")
    with open_codemap(args) as codemap:
        relative = _relative(args, path)
        related = codemap.find_related(relative, int(line_text) - 1)
        if related.symbol is None and not (related.calls or related.called_by
                                           or related.related):
            return nothing_found(args, f"nothing is defined or used at {relative}:{line_text}",
                                 related.to_json(codemap.root))
        if args.json:
            emit_json(related.to_json(codemap.root))
            return 0
        print("symbol:", _symbol_line(related.symbol) if related.symbol else "(none)")
        for title, symbols in (("calls", related.calls), ("called by", related.called_by),
                               ("related", related.related)):
            print(f"{title}:")
            for symbol in symbols:
                print("  " + _symbol_line(symbol))
    return 0


def _search(args: argparse.Namespace) -> int:
    with open_codemap(args) as codemap:
        results = codemap.search_symbols(args.query, limit=args.limit)
        if not results:
            return nothing_found(args, f"nothing matches {args.query!r}", {"symbols": []})
        if args.json:
            emit_json({"symbols": [{**s.to_json(codemap.root), "score": score}
                                   for s, score in results]})
        else:
            for symbol, score in results:
                print(f"{score:5.2f} {_symbol_line(symbol)}")
    return 0


def _symbols(args: argparse.Namespace) -> int:
    with open_codemap(args) as codemap:
        paths = [_relative(args, p) for p in args.paths] if args.paths else None
        symbols = codemap.symbols_in(paths)
        if not symbols:
            where = ", ".join(paths) if paths else "the index (run codekeep index)"
            return nothing_found(args, f"no symbols in {where}", {"symbols": []})
        if args.json:
            emit_json({"symbols": [s.to_json(codemap.root) for s in symbols]})
            return 0
        for symbol in symbols:
            depth = symbol.container.count(".") + 1 if symbol.container else 0
            print(_symbol_line(symbol, "  " * depth))
    return 0


def _map(args: argparse.Namespace) -> int:
    with open_codemap(args) as codemap:
        focus = [_relative(args, p) for p in args.focus]
        repo_map = codemap.repo_map(args.tokens, focus=focus)
        if not repo_map.text:
            return nothing_found(args, "the index holds no symbols (run codekeep index)",
                                 {"text": "", "tokens": 0})
        if args.json:
            emit_json({"text": repo_map.text, "tokens": repo_map.tokens})
        else:
            sys.stdout.write(repo_map.text)
    return 0


# ---- wiring ---------------------------------------------------------------------------
def _find_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name")
    parser.add_argument("--kind", help="only this kind (function, class, method ...)")
    parser.add_argument("--limit", type=positive_int, default=None)


def _refs_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("target", metavar="NAME_OR_ID")
    parser.add_argument("--limit", type=positive_int, default=None)
    parser.add_argument("--offset", type=int, default=0,
                        help="pass over this many uses first (the next page after --limit)")


def _related_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("location", metavar="PATH:LINE")


def _search_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("query")
    parser.add_argument("--limit", type=positive_int, default=30)


def _symbols_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="*", metavar="PATH")


def _map_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tokens", type=positive_int, default=1024)
    parser.add_argument("--focus", nargs="*", default=[], metavar="PATH",
                        help="files the ranking is personalised towards")


# Each command: its handler and what it adds to the shared options (None: nothing; the
# others are queries, which take --no-refresh too).
_COMMAND_PARTS: dict[str, tuple[Callable[[argparse.Namespace], int],
                                Callable[[argparse.ArgumentParser], None] | None]] = {
    "index": (_index, None),
    "find": (_find, _find_arguments),
    "refs": (_refs, _refs_arguments),
    "related": (_related, _related_arguments),
    "search": (_search, _search_arguments),
    "symbols": (_symbols, _symbols_arguments),
    "map": (_map, _map_arguments),
}


def register(subparsers: argparse._SubParsersAction, only: str | None = None) -> None:
    """Every command of the group, or ``only`` that one (what a query builds)."""
    from codekeep.settings.codemap import DEFAULT_MAX_FILE_BYTES

    for name in COMMANDS if only is None else (only,):
        handler, arguments = _COMMAND_PARTS[name]
        parser = subparsers.add_parser(name, help=COMMANDS[name], description=COMMANDS[name])
        # the queries only read (a refresh commits before they answer): see cli.main
        parser.set_defaults(handler=guarded(handler), read_only=arguments is not None)
        add_common_options(parser)
        parser.add_argument(
            "--max-bytes", type=positive_int, default=None,
            help=f"skip files larger than this (setting maxFileSize, default "
                 f"{DEFAULT_MAX_FILE_BYTES})")
        parser.add_argument(
            "--exclude", action="append", default=None, metavar="GLOB",
            help="do not index what this gitignore-style glob matches (repeatable; replaces "
                 "the setting exclude)")
        if name == "index":
            parser.add_argument(
                "--export", dest="export_file", type=Path, default=None, metavar="FILE",
                help="after indexing, write the facts cache's entries of every indexed file "
                     "to FILE (for another checkout's --import)")
            parser.add_argument(
                "--import", dest="import_file", type=Path, default=None, metavar="FILE",
                help="before indexing, add the checked entries of an --export FILE to the "
                     "facts cache (content it holds is not parsed again)")
        if arguments is not None:
            parser.add_argument(
                "--no-refresh", action="store_true",
                help="answer from the index as it is, without checking for changes")
            arguments(parser)
