"""Cached access to tree-sitter grammars, parsers and queries — the only module that calls tree-sitter.

Contract:

* :func:`get_language` / :func:`get_parser` return the grammar bundled in the pinned
  ``tree-sitter-language-pack`` (names as that package spells them: ``python``, ``tsx``,
  ``csharp``...). Before a grammar is loaded, :func:`ensure_bundled` checks that its compiled
  binding ships inside the installed package, so plait never triggers a grammar download (newer
  releases of the pack fetch grammars on demand; 0.13.0 bundles them). A missing grammar raises
  :class:`~indexer.errors.GrammarUnavailableError`.
* :func:`parse` returns a tree even for source with syntax errors (tree-sitter recovers with
  ``ERROR`` nodes); only a failure of tree-sitter itself raises :class:`~indexer.errors.ParseError`.
* :func:`load_query` compiles ``indexer/queries/<language>.scm`` (kind ``"tags"``, with the patterns
  it shares with kindred grammars appended: ``ecmascript-*.scm``, ``typescript-family-members.scm``,
  ``c-family-data.scm``) or ``<language>-<kind>.scm``
  (e.g. ``"imports"``) once per process.
* :func:`compile_user_query` compiles a query typed by a user (the MCP ``ast_query`` tool) and
  reports a malformed one as :class:`~indexer.errors.QuerySyntaxError` with its position.

Parsers and compiled queries are cached per language. A :class:`tree_sitter.Parser` is not safe to
share between threads, so parsers are cached per thread; languages and queries are immutable and
shared.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import re
import threading
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable

import tree_sitter
import tree_sitter_language_pack

from indexer.errors import GrammarUnavailableError, ParseError, QueryMissingError, QuerySyntaxError

__all__ = [
    "compile_user_query",
    "ensure_bundled",
    "get_language",
    "get_parser",
    "has_query",
    "load_query",
    "parse",
    "syntax_errors",
]

# Grammars that the pack loads from a separate wheel rather than from its own ``bindings`` folder.
_SEPARATE_PACKAGES = {
    "csharp": "tree_sitter_c_sharp",
    "yaml": "tree_sitter_yaml",
    "embeddedtemplate": "tree_sitter_embedded_template",
}
_NAME = re.compile(r"[a-z][a-z0-9_]*")
_POSITION = re.compile(r"at row (\d+)(?:, column (\d+))?")
_local = threading.local()


def ensure_bundled(language: str) -> None:
    """Raise :class:`GrammarUnavailableError` unless ``language``'s grammar ships in the installed pack.

    Only looks for the compiled module on disk; never imports anything that could download.
    """
    if not _NAME.fullmatch(language):
        raise GrammarUnavailableError(language, "not a grammar name")
    module = _SEPARATE_PACKAGES.get(language, f"tree_sitter_language_pack.bindings.{language}")
    try:
        spec = importlib.util.find_spec(module)
    except ModuleNotFoundError:
        spec = None
    if spec is None:
        raise GrammarUnavailableError(language, f"not bundled in tree-sitter-language-pack {_pack_version()}")


def _pack_version() -> str:
    try:
        return importlib.metadata.version("tree-sitter-language-pack")
    except importlib.metadata.PackageNotFoundError:
        return "(version unknown)"


@cache
def get_language(language: str) -> tree_sitter.Language:
    """The bundled grammar for ``language``; raises :class:`GrammarUnavailableError`."""
    ensure_bundled(language)
    try:
        return tree_sitter_language_pack.get_language(language)  # type: ignore[arg-type]
    except (LookupError, ValueError, OSError) as exc:
        raise GrammarUnavailableError(language, str(exc)) from exc


def get_parser(language: str) -> tree_sitter.Parser:
    """A parser for ``language``, cached per thread; raises :class:`GrammarUnavailableError`."""
    parsers: dict[str, tree_sitter.Parser] | None = getattr(_local, "parsers", None)
    if parsers is None:
        parsers = _local.parsers = {}
    parser = parsers.get(language)
    if parser is None:
        parser = parsers[language] = tree_sitter.Parser(get_language(language))
    return parser


def parse(source: bytes, language: str, old: tree_sitter.Tree | None = None) -> tree_sitter.Tree:
    """Parse ``source``; syntax errors become ``ERROR`` nodes, not exceptions. ``old``: the tree of an
    earlier text, edited (:meth:`tree_sitter.Tree.edit`) to say where this one differs, which tree-sitter
    reuses for the rest.

    Raises :class:`GrammarUnavailableError` for an unknown language and :class:`ParseError` if
    tree-sitter itself fails.
    """
    parser = get_parser(language)
    try:
        return parser.parse(source, old) if old is not None else parser.parse(source)
    except (ValueError, TypeError, RuntimeError) as exc:
        raise ParseError(language, str(exc)) from exc


# Tags patterns that several grammars share, kept once and appended to each one's own file, in order.
_ECMASCRIPT = ("ecmascript-objects.scm", "ecmascript-variables.scm")
_SHARED_TAGS: dict[str, tuple[str, ...]] = {
    "javascript": _ECMASCRIPT,
    "typescript": (*_ECMASCRIPT, "typescript-family-members.scm"),
    "tsx": (*_ECMASCRIPT, "typescript-family-members.scm"),
    "c": ("c-family-data.scm",),
    "cpp": ("c-family-data.scm",),
}


def _query_resource(language: str, kind: str) -> Traversable:
    # ``queries`` is a data folder (no ``__init__``), so traverse to it from the ``indexer`` package.
    name = f"{language}.scm" if kind == "tags" else f"{language}-{kind}.scm"
    return resources.files("indexer") / "queries" / name


@cache
def queries_digest() -> str:
    """A digest of every bundled query: a change to what a query extracts rebuilds the indexes made
    before it (it is part of :func:`indexer.build.fingerprint`)."""
    return digest_of_queries(resources.files("indexer") / "queries")


def digest_of_queries(folder: Traversable) -> str:
    """The digest of the ``.scm`` files of ``folder``: their names and contents, in name order."""
    digest = hashlib.sha256()
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".scm") and entry.is_file():
            digest.update(entry.name.encode() + b"\0" + entry.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def has_query(language: str, kind: str = "tags") -> bool:
    """Whether plait ships a ``kind`` query (``"tags"``, ``"imports"``) for ``language``."""
    if not (_NAME.fullmatch(language) and _NAME.fullmatch(kind)):
        return False
    return _query_resource(language, kind).is_file()


@cache
def load_query(language: str, kind: str = "tags") -> tree_sitter.Query:
    """The compiled bundled query of ``kind`` for ``language``, cached.

    Raises :class:`GrammarUnavailableError` if there is no grammar, its subclass
    :class:`~indexer.errors.QueryMissingError` if there is no such query file, and
    :class:`QuerySyntaxError` if the bundled file does not compile (a bug in plait).
    """
    ensure_bundled(language)
    if not _NAME.fullmatch(kind):
        raise QueryMissingError(language, kind, f"{language}-{kind}.scm")
    resource = _query_resource(language, kind)
    if not resource.is_file():
        raise QueryMissingError(language, kind, resource.name)
    source = resource.read_text(encoding="utf-8")
    for shared in _SHARED_TAGS.get(language, ()) if kind == "tags" else ():
        source += "\n" + (resources.files("indexer") / "queries" / shared).read_text(encoding="utf-8")
    return _compile(language, source)


def compile_user_query(language: str, source: str) -> tree_sitter.Query:
    """Compile a user's query for ``language`` (not cached).

    Raises :class:`QuerySyntaxError` carrying the 0-based ``row``/``column`` and the character
    ``offset`` of the error, and :class:`GrammarUnavailableError` for an unknown language.
    """
    if not source.strip():
        raise QuerySyntaxError(language, "the query is empty", row=0, column=0, offset=0)
    return _compile(language, source)


def _compile(language: str, source: str) -> tree_sitter.Query:
    lang = get_language(language)
    try:
        return tree_sitter.Query(lang, source)
    except tree_sitter.QueryError as exc:
        raise _query_error(language, source, str(exc)) from exc


def _query_error(language: str, source: str, detail: str) -> QuerySyntaxError:
    """Turn tree-sitter's message ("Invalid node type at row 2, column 4: foo") into a positioned error."""
    lines = source.split("\n")
    match = _POSITION.search(detail)
    if match is not None:
        row = min(int(match.group(1)), len(lines) - 1)
        # tree-sitter counts the column in bytes; convert to characters for the offset.
        byte_col = int(match.group(2) or 0)
        column = len(lines[row].encode("utf-8")[:byte_col].decode("utf-8", "ignore"))
    elif "EOF" in detail:
        row, column = len(lines) - 1, len(lines[-1])
    else:
        return QuerySyntaxError(language, detail)
    offset = sum(len(line) + 1 for line in lines[:row]) + column
    return QuerySyntaxError(language, detail, row=row, column=column, offset=offset)


def syntax_errors(tree: tree_sitter.Tree) -> list[tree_sitter.Node]:
    """The outermost ``ERROR`` and the ``MISSING`` nodes of ``tree``: a walk down the nodes that hold
    one, so a file with a few errors costs a few paths, not a visit of every node."""
    root = tree.root_node
    if not root.has_error:
        return []
    found: list[tree_sitter.Node] = []
    stack = [root]
    while stack:
        for child in stack.pop().children:
            if child.is_error or child.is_missing:
                found.append(child)
            elif child.has_error:
                stack.append(child)
    return found


def captures(query: tree_sitter.Query, tree: tree_sitter.Tree) -> list[tuple[str, tree_sitter.Node]]:
    """Every ``(capture name, node)`` of ``query`` over ``tree``, in source order."""
    found = tree_sitter.QueryCursor(query).captures(tree.root_node)
    flat = sorted(
        ((node.start_byte, name, node) for name, nodes in found.items() for node in nodes),
        key=lambda t: (t[0], t[1]),
    )
    return [(name, node) for _, name, node in flat]
