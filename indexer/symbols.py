"""Definitions in a source file, found by one declarative tags query per language.

:func:`extract_symbols` parses a file and runs ``indexer/queries/<language>.scm``. The query's
capture names are the whole contract between the ``.scm`` files and this module:

``@definition.<kind>`` + ``@name``
    A definition to report. The captured node's span is the symbol's span (decorators,
    annotations and ``template <...>`` lines that tree-sitter puts *outside* that node are not
    included); ``@name`` is its name. A name written with a scope (C++ ``A::f``, Ruby
    ``class A::B``) is split: the last part is the name, the rest joins the qualified name.
``@qualifier`` (optional, with a definition)
    An explicit scope that is not an ancestor in the tree: the Go method receiver type.
``@scope.<kind>`` + ``@name``
    A named scope that is not reported itself but qualifies what it contains: Rust ``impl``,
    Swift ``extension``, C#/PHP namespace blocks. Its kind decides whether functions in it are
    methods (``type``) or not (``module``).
``@package`` + ``@name``
    A file-level package clause (Go, Java, Kotlin, Scala, C#, PHP) that prefixes every
    top-level qualified name; several clauses join in order (Scala ``package a`` / ``package b``).

When several patterns capture the same node, the earliest pattern in the file wins, so a
specific pattern (a JavaScript ``constructor``) goes before the general one (any method).

Qualified names join the enclosing definitions' and scopes' names with dots
(``Outer.Inner.method``, ``pkg.Type.Method`` in Go, ``Type.m`` for a Rust ``impl Type``). A
``function`` whose nearest enclosing definition is a class-like one (class, struct, interface,
trait, enum, or a ``type`` scope such as ``impl``) becomes a ``method``; one nested in a function
stays a ``function``. In C++, a method named like its class is a ``constructor``, and an
out-of-line ``ns::f`` whose qualifier is a namespace defined in the file is a ``function``.

``signature`` is the definition's first source line, stripped and capped at 200 characters;
lines of annotations that a grammar puts inside the node (``@Override``, ``[Test]``,
``#[attr]``) are skipped up to the line holding the name.

Enclosing scopes come from one pass over the definitions sorted by position with a stack of open
scopes (containment of byte ranges), so the cost is ``O(n log n)`` in the number of definitions.
Source that is not valid UTF-8 or does not parse still yields what tree-sitter recovered.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import tree_sitter

from indexer.languages import SYMBOL_LANGUAGES
from indexer.parsing import load_query, parse
from indexer.types import Symbol

__all__ = ["SYMBOL_LANGUAGES", "extract_symbols", "symbols_from_tree"]


_SIGNATURE_MAX = 200
_CLASS_LIKE = frozenset({"class", "struct", "interface", "trait", "enum", "type"})
_SCOPE_SEPARATORS = re.compile(r"::|\\|\.")
_GENERIC_ARGS = re.compile(r"<[^<>]*>")
_WHITESPACE = re.compile(r"\s+")
_IDENTIFIER_START = re.compile(r"[A-Za-z_$]")
# Lines of annotations/attributes that some grammars put inside the definition node.
_ANNOTATION_PREFIXES_B = (b"@", b"#[", b"[")
# Bash function names may contain `::` and `.` (`lib::util`), but those are not scopes.
_NAMES_NOT_SPLIT = frozenset({"bash"})


@dataclass(slots=True)
class _Found:
    """One match of the tags query: a definition, a scope or a package clause."""

    role: str  # "definition", "scope" or "package"
    kind: str
    node: tree_sitter.Node
    name: str
    qualifier: list[str]
    pattern: int
    name_byte: int


@dataclass(slots=True)
class _Open:
    """An enclosing definition or scope on the stack during the sorted pass."""

    end_byte: int
    qualified: str
    kind: str
    name: str


def extract_symbols(source: bytes, language: str, path: str) -> list[Symbol]:
    """The definitions in ``source``, sorted by (start_line, end_line descending).

    ``language`` is a tree-sitter-language-pack name from :data:`SYMBOL_LANGUAGES`; ``path`` is
    copied into each :class:`Symbol`. Raises :class:`~indexer.errors.GrammarUnavailableError`
    for a language without a grammar or tags query and :class:`~indexer.errors.ParseError` if
    tree-sitter fails outright (syntax errors in the source are not failures).
    """
    return symbols_from_tree(parse(source, language), source, language, path)


def symbols_from_tree(tree: tree_sitter.Tree, source: bytes, language: str, path: str) -> list[Symbol]:
    """:func:`extract_symbols` for a tree already parsed from ``source`` (the chunker reuses its tree)."""
    query = load_query(language, "tags")
    found = _collect(query, tree.root_node, source, split=language not in _NAMES_NOT_SPLIT)
    symbols = _qualify(found, language, path, source)
    symbols.sort(key=lambda s: (s.start_line, -s.end_line))
    return symbols


def _collect(query: tree_sitter.Query, root: tree_sitter.Node, source: bytes, *, split: bool) -> list[_Found]:
    """Run the query; keep one match per node (the earliest pattern), ordered by position."""
    best: dict[int, _Found] = {}
    for pattern, captures in tree_sitter.QueryCursor(query).matches(root):
        item = _from_match(pattern, captures, source, split)
        if item is None:
            continue
        key = item.node.id
        if key not in best or pattern < best[key].pattern:
            best[key] = item
    return sorted(best.values(), key=lambda f: (f.node.start_byte, -f.node.end_byte, f.pattern))


def _from_match(
    pattern: int, captures: dict[str, list[tree_sitter.Node]], source: bytes, split: bool
) -> _Found | None:
    role = kind = ""
    node: tree_sitter.Node | None = None
    for capture, nodes in captures.items():
        head, _, tail = capture.partition(".")
        if head in ("definition", "scope", "package") and nodes:
            role, kind, node = head, tail, nodes[0]
    names = captures.get("name")
    if node is None or not names or names[0].is_missing:
        return None
    text = _text(names[0], source)
    parts = _split_name(text) if split else [text.strip()]
    if not parts:
        return None
    qualifier = [p for q in captures.get("qualifier", [])[:1] for p in _split_name(_text(q, source))]
    if role == "package":
        return _Found(role, kind, node, ".".join(parts), [], pattern, names[0].start_byte)
    return _Found(role, kind, node, parts[-1], qualifier + parts[:-1], pattern, names[0].start_byte)


def _text(node: tree_sitter.Node, source: bytes) -> str:
    return source[node.start_byte : node.end_byte].decode("utf-8", "replace")


def _split_name(text: str) -> list[str]:
    """``ns::Outer<T>::f`` → ``["ns", "Outer", "f"]``; ``App\\Mail`` → ``["App", "Mail"]``.

    Operator names (C++ ``operator<``, Ruby ``<=>``) keep their angle brackets.
    """
    text = _WHITESPACE.sub("", text)
    if _IDENTIFIER_START.match(text) and "operator" not in text:
        previous = None
        while previous != text:
            previous, text = text, _GENERIC_ARGS.sub("", text)
    return [part for part in _SCOPE_SEPARATORS.split(text) if part]


def _qualify(found: list[_Found], language: str, path: str, source: bytes) -> list[Symbol]:
    package = ".".join(f.name for f in found if f.role == "package")
    modules: set[str] = set()
    stack: list[_Open] = []
    symbols: list[Symbol] = []
    for item in found:
        if item.role == "package":
            continue
        start = item.node.start_byte
        while stack and stack[-1].end_byte <= start:
            stack.pop()
        parent = stack[-1] if stack else None
        prefix = parent.qualified if parent is not None else package
        qualified = ".".join(p for p in (prefix, *item.qualifier, item.name) if p)
        kind = _refine_kind(item, parent, language, modules)
        if kind == "module":
            modules.add(qualified)
        if not (item.role == "definition" and kind == "type"):
            # A type alias encloses nothing of its own: C's `typedef struct node {...} node_t`
            # must not turn the struct into `node_t.node`.
            stack.append(_Open(item.node.end_byte, qualified, kind, item.name))
        if item.role == "definition":
            symbols.append(_symbol(item, kind, qualified, language, path, source))
    return symbols


def _refine_kind(item: _Found, parent: _Open | None, language: str, modules: set[str]) -> str:
    kind = item.kind
    if kind == "function" and parent is not None and parent.kind in _CLASS_LIKE and not item.qualifier:
        kind = "method"
    if language == "cpp" and kind == "method":
        owner = item.qualifier[-1] if item.qualifier else (parent.name if parent is not None else "")
        prefix = f"{parent.qualified}." if parent is not None else ""
        if item.name == owner:
            kind = "constructor"
        elif item.qualifier and prefix + ".".join(item.qualifier) in modules:
            kind = "function"
    return kind


def _symbol(item: _Found, kind: str, qualified: str, language: str, path: str, source: bytes) -> Symbol:
    node = item.node
    start_row, (end_row, end_col) = node.start_point.row, node.end_point
    if end_col == 0 and end_row > start_row:
        end_row -= 1  # the node ends with a newline: its last line is the one before
    signature = _signature(source, node.start_byte, item.name_byte)
    return Symbol(
        name=item.name,
        qualified_name=qualified,
        kind=kind,
        path=path,
        language=language,
        start_line=start_row + 1,
        end_line=end_row + 1,
        signature=signature,
    )


def _signature(source: bytes, start_byte: int, name_byte: int) -> str:
    """The definition's first line, skipping annotation lines (``@Override``, ``[Test]``, ``#[attr]``)
    that precede the line holding the name; stripped and capped."""
    line_start = source.rfind(b"\n", 0, start_byte) + 1
    while True:
        line_end = source.find(b"\n", line_start)
        if line_end < 0:
            line_end = len(source)
        line = source[line_start:line_end]
        if line_end >= name_byte or not line.lstrip().startswith(_ANNOTATION_PREFIXES_B):
            return line.decode("utf-8", "replace").strip()[:_SIGNATURE_MAX]
        line_start = line_end + 1
