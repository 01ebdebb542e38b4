"""Import statements in a source file, for guard rules such as "nothing here imports ``legacy.*``".

:func:`extract_imports` runs ``indexer/queries/<language>-imports.scm``. Each match captures
``@import`` (the statement, or the call for ``require("x")``) and ``@module`` (the node that
names what is imported). The module is reported *as written*, with quotes and ``<>`` removed:
``os.path``, ``..pkg`` (Python relative), ``../lib/x``, ``github.com/x/y``,
``std::collections`` (a Rust ``use`` path up to any ``{...}``, ``*`` or ``as``),
``java.util.List``, ``stdio.h``, ``App\\Models\\User``. Only imports that name their module with
a literal are found: ``require(name)`` or ``include $file`` are not.

Where a grammar does not give the path as one node (Scala ``import a.b.{c, d}``), the query
captures only ``@import`` and a small per-language function below assembles the paths.

``line`` is the 1-based line of the module name (for a multi-line ``from x import (...)`` that
is the ``from`` line; in a Go import block each spec has its own line). ``text`` is the
statement's source with runs of whitespace collapsed, capped at 200 characters.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import tree_sitter

from indexer.parsing import load_query, parse

__all__ = ["IMPORT_LANGUAGES", "ImportRef", "extract_imports"]

IMPORT_LANGUAGES = frozenset(
    {
        "bash",
        "c",
        "cpp",
        "csharp",
        "go",
        "haskell",
        "java",
        "javascript",
        "kotlin",
        "lua",
        "php",
        "python",
        "ruby",
        "rust",
        "scala",
        "swift",
        "tsx",
        "typescript",
    }
)

_TEXT_MAX = 200
_WHITESPACE = re.compile(r"\s+")
_QUOTES = "\"'`"


@dataclass(frozen=True, slots=True)
class ImportRef:
    """One imported module: its name as written, the 1-based line, and the statement's text."""

    module: str
    line: int
    text: str


def extract_imports(source: bytes, language: str) -> list[ImportRef]:
    """The imports in ``source``, in source order, one per imported module.

    Raises :class:`~indexer.errors.GrammarUnavailableError` for a language without a grammar or
    imports query; syntax errors in ``source`` are not failures (what parsed is reported).
    """
    query = load_query(language, "imports")
    tree = parse(source, language)
    found: dict[tuple[int, str], ImportRef] = {}
    for _pattern, captures in tree_sitter.QueryCursor(query).matches(tree.root_node):
        for key, ref in _refs(captures, source, language):
            found.setdefault(key, ref)
    return [found[key] for key in sorted(found)]


def _refs(
    captures: dict[str, list[tree_sitter.Node]], source: bytes, language: str
) -> list[tuple[tuple[int, str], ImportRef]]:
    statements = captures.get("import", [])
    modules = captures.get("module", [])
    if not statements:
        return []
    text = _text(statements[0], source)
    if modules:
        names = [(_clean(_text(node, source)), node) for node in modules[:1]]
    else:
        assemble = _ASSEMBLERS.get(language)
        names = assemble(statements[0], source) if assemble else []
    return [
        ((node.start_byte, name), ImportRef(name, node.start_point.row + 1, text))
        for name, node in names
        if name
    ]


def _text(node: tree_sitter.Node, source: bytes) -> str:
    raw = source[node.start_byte : node.end_byte].decode("utf-8", "replace")
    return _WHITESPACE.sub(" ", raw).strip()[:_TEXT_MAX]


def _clean(name: str) -> str:
    """Drop the quotes of a string literal and the ``<>`` of a system include."""
    if len(name) >= 2 and ((name[0] in _QUOTES and name[-1] == name[0]) or name[0] + name[-1] == "<>"):
        name = name[1:-1]
    return name.strip()


def _scala_paths(statement: tree_sitter.Node, source: bytes) -> list[tuple[str, tree_sitter.Node]]:
    """``import a.b.{c, d}, e.f as g`` → ``a.b`` and ``e.f``: the grammar gives the path's parts as
    sibling identifiers, with ``,`` between the import expressions."""
    paths: list[tuple[str, tree_sitter.Node]] = []
    parts: list[str] = []
    first: tree_sitter.Node | None = None

    def flush() -> None:
        nonlocal first
        if parts and first is not None:
            paths.append((".".join(parts), first))
        parts.clear()
        first = None

    for child in statement.children:
        if child.type == ",":
            flush()
            continue
        name_node = child if child.type == "identifier" else None
        if child.type == "as_renamed_identifier":
            name_node = child.child_by_field_name("name")
        if name_node is not None:
            first = child if first is None else first
            parts.append(_text(name_node, source))
    flush()
    return paths


_ASSEMBLERS: dict[str, Callable[[tree_sitter.Node, bytes], list[tuple[str, tree_sitter.Node]]]] = {
    "scala": _scala_paths,
}
