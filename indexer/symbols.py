"""Definitions in a source file, found by one declarative tags query per language.

:func:`extract_symbols` parses a file and runs ``indexer/queries/<language>.scm``. The query's
capture names are the whole contract between the ``.scm`` files and this module:

``@definition.<kind>`` + ``@name``
    A definition to report; ``@name`` is its name. A name written with a scope (C++ ``A::f``,
    Ruby ``class A::B``) is split: the last part is the name, the rest joins the qualified name.
    Several ``@name`` nodes join with a space (a Haskell ``instance Show (Maybe a)``).
``@doc`` / ``@decoration``
    Comments, and decorators/attributes that a grammar puts *outside* the definition node (Rust
    ``#[...]``, TypeScript method decorators, Haskell pragmas), that may belong to the definition
    below them (see "Spans").
``@qualifier`` (optional, with a definition)
    An explicit scope that is not an ancestor in the tree: the Go method receiver type.
``@scope.<kind>`` + ``@name``
    A named scope that is not reported itself but qualifies what it contains: Rust ``impl``,
    Swift ``extension``, C#/PHP namespace blocks. Its kind decides whether functions in it are
    methods (``type``) or not (``module``).
``@then_body`` (optional, on the definition's node)
    The definition goes on into the block right after it, which the grammar reads apart from it: the
    body of a C function that a macro defines (``SYSCALL_DEFINE3(open, …) { … }``). Without such a
    block, or inside one (a loop macro in a function), it is no definition.
``@package`` + ``@name``
    A file-level package clause (Go, Java, Kotlin, Scala, C#, PHP, a Haskell `module`) that prefixes every
    top-level qualified name; several clauses join in order (Scala ``package a`` / ``package b``).

Spans: a symbol's ``start_line`` is the first line of what belongs to the definition, not its
keyword line. From the captured node, go out through the wrappers that hold only it (Python's
``decorated_definition``, ``export``, C++ ``template <...>``, a ``const``/``type`` with one
declarator), then up over decorators/attributes and over the contiguous comment lines directly
above (no blank line between, each starting its line, none inside an earlier definition, not a
Rust ``//!`` or Haskell ``-- ^`` comment). ``name_line`` is the line of ``@name`` (the ``def``
line; for Haskell the signature), for a consumer that wants the definition itself. A definition
that a grammar ends with the next one's doc comment (not indented under it) ends before it.
In Haskell, consecutive definitions of one name (a signature and its equations) are one symbol.

When several patterns capture the same node, the earliest pattern in the file wins, so a
specific pattern (a JavaScript ``constructor``) goes before the general one (any method).

Qualified names join the enclosing definitions' and scopes' names with dots
(``Outer.Inner.method``, ``pkg.Type.Method`` in Go, ``Type.m`` for a Rust ``impl Type``). A
``function`` whose nearest enclosing definition is a class-like one (class, struct, interface,
trait, enum, or a ``type`` scope such as ``impl``) becomes a ``method``; one nested in a function
stays a ``function``. In C++, a method named like its class is a ``constructor``, and an
out-of-line ``ns::f`` whose qualifier is a namespace defined in the file is a ``function``.

``signature`` is the first source line of the captured node, stripped and capped at 200 characters;
lines of annotations that a grammar puts inside the node (``@Override``, ``[Test]``,
``#[attr]``) are skipped up to the line holding the name.

Enclosing scopes come from one pass over the definitions sorted by position with a stack of open
scopes (containment of byte ranges), so the cost is ``O(n log n)`` in the number of definitions.
Source that is not valid UTF-8 or does not parse still yields what tree-sitter recovered. A C or C++
file whose attribute-like macros broke its parse (``static __always_inline __alloc_size(1) void
*kmalloc(…)``, ``FMT_API``, a line of ``ABSL_NAMESPACE_BEGIN``) is read with them blanked
(:mod:`indexer.c_attributes`); the definitions inside a Rust macro call at item level, with the call's
wrapper blanked (:mod:`indexer.macro_items`).
"""

from __future__ import annotations

import heapq
import re
from collections import Counter
from dataclasses import dataclass

import tree_sitter

from indexer.c_attributes import read_past
from indexer.languages import SYMBOL_LANGUAGES
from indexer.macro_items import unwrapped
from indexer.parsing import load_query, parse
from indexer.types import DATA_KINDS, TYPE_KINDS, Symbol

__all__ = ["SYMBOL_LANGUAGES", "extract_symbols", "symbols_from_tree"]


_SIGNATURE_MAX = 200
_BODY = "compound_statement"  # the block a @then_body definition goes on into (C)
# What may hold a field's declarator on its line (see _declaration).
_DECLARATIONS = frozenset(
    {
        "field_declaration", "variable_declaration", "property_declaration", "enum_entry", "var_spec",
        "var_declaration", "pointer_declarator",
        "array_declarator", "function_declarator", "parenthesized_declarator",
    }
)  # fmt: skip
_SCOPE_SEPARATORS = re.compile(r"::|\\|\.")
_GENERIC_ARGS = re.compile(r"<[^<>]*>")
_WHITESPACE = re.compile(r"\s+")
_IDENTIFIER_START = re.compile(r"[A-Za-z_$]")
# A name of one identifier, which no splitting changes (most names of most files).
_PLAIN_NAME = re.compile(rb"[A-Za-z_$][A-Za-z0-9_$]*")
# Each capture name's role and kind ("definition.function" → ("definition", "function")); ("", "")
# for a capture that names no definition, scope or package clause.
_ROLES: dict[str, tuple[str, str]] = {}
# Lines of annotations/attributes that some grammars put inside the definition node.
_ANNOTATION_PREFIXES_B = (b"@", b"#[", b"[")
# Bash function names may contain `::` and `.` (`lib::util`), and Haskell operators `.:` or
# `.=`, but those are not scopes.
_NAMES_NOT_SPLIT = frozenset({"bash", "haskell"})
# Languages whose definitions may come in consecutive pieces of one name: a Haskell signature and
# its equations (`f :: Int -> Int`, `f 0 = 1`, `f n = n`).
_PIECEWISE = frozenset({"haskell"})
# Nodes that wrap one definition and start before it: its decorators (Python), `export` (JS/TS),
# `template <...>` (C++), `const`/`let`/`type` of a single declarator or spec.
_WRAPPERS = frozenset(
    {
        "decorated_definition", "export_statement", "template_declaration", "lexical_declaration",
        "variable_declaration", "type_declaration", "const_declaration", "var_declaration",
        "ambient_declaration",
    }
)  # fmt: skip
_WRAPPED_EXTRAS = frozenset({"decorator", "template_parameter_list", "comment"})
# Comments that document something other than the definition below them: a shebang, Rust's
# inner doc comments (`//!`, `/*!`: the enclosing item; Doxygen's `//!` in C++ is a leading one),
# Haskell's `-- ^` (the item above).
_NOT_LEADING_DOC = {
    "rust": re.compile(rb"//!|/\*!"),
    "haskell": re.compile(rb"--\s*\^|\{-\s*\^"),
}
_SHEBANG = re.compile(rb"#!")
_SPACE = b" \t\r\n\f\v"


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
    name_row: int
    last: tree_sitter.Node | None = None  # its last piece (Haskell) or the body read apart (@then_body)
    namespace: int | None = None  # the ``@namespace`` node's id: reported only with a sibling (see _collect)
    trimmed: tuple[int, int] | None = None  # (end byte, 0-based end row) without trailing comments

    @property
    def end_byte(self) -> int:
        return self.trimmed[0] if self.trimmed is not None else (self.last or self.node).end_byte


@dataclass(slots=True)
class _Lead:
    """A comment (``doc``) or a decorator/attribute (``decoration``) that may belong to the
    definition below it."""

    role: str
    node: tree_sitter.Node


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
    # C and C++: read past attribute-like macros (``__alloc_size(1)``, ``FMT_API``) where they broke the
    # parse; the tree's nodes keep their bytes, so names and spans are read from ``source`` as written.
    tree = read_past(tree, source, language) or tree
    symbols = _symbols(tree, source, language, path)
    inside = unwrapped(tree, source, language)
    if inside is not None:
        # the definitions in the bodies of item-level macro calls (``cfg_rt! { … }``), read from the
        # source with the calls' wrappers blanked; everything outside them as the file is written
        tree, source, bodies = inside
        symbols += [s for s in _symbols(tree, source, language, path) if bodies.holds(s.start_line - 1)]
    symbols.sort(key=lambda s: (s.start_line, -s.end_line))
    return symbols


def _symbols(tree: tree_sitter.Tree, source: bytes, language: str, path: str) -> list[Symbol]:
    query = load_query(language, "tags")
    found, leads = _collect(query, tree.root_node, source, split=language not in _NAMES_NOT_SPLIT)
    if language in _PIECEWISE:
        found = _join_pieces(found)
    return _qualify(found, _Leading(leads, source, language), language, path, source)


def _collect(
    query: tree_sitter.Query, root: tree_sitter.Node, source: bytes, *, split: bool
) -> tuple[list[_Found], list[_Lead]]:
    """Run the query; keep one match per node (the earliest pattern), ordered by position.

    Also returns the comments and decorators the query marks, for :class:`_Leading`."""
    best: dict[int, _Found] = {}
    leads: list[_Lead] = []
    for pattern, captures in tree_sitter.QueryCursor(query).matches(root):
        lead = _lead_from_match(captures)
        if lead is not None:
            leads.append(lead)
            continue
        item = _from_match(pattern, captures, source, split)
        if item is None:
            continue
        key = item.node.id
        if key not in best or pattern < best[key].pattern:
            best[key] = item
    # A definition captured with a ``@namespace`` (the object of JavaScript's `module.exports = {…}`) is
    # one of that object's functions: an object of several is a namespace, one function beside data is a
    # record (an ESLint rule's `create`, which would become one chunk swallowing its helpers).
    members = Counter(f.namespace for f in best.values() if f.namespace is not None)
    found = sorted(
        (f for f in best.values() if f.namespace is None or members[f.namespace] > 1),
        key=lambda f: (f.node.start_byte, -f.node.end_byte, f.pattern),
    )
    return found, leads


def _lead_from_match(captures: dict[str, list[tree_sitter.Node]]) -> _Lead | None:
    for role in ("doc", "decoration"):
        nodes = captures.get(role)
        if nodes:
            return _Lead(role, nodes[0])
    return None


def _from_match(
    pattern: int, captures: dict[str, list[tree_sitter.Node]], source: bytes, split: bool
) -> _Found | None:
    role = kind = ""
    node: tree_sitter.Node | None = None
    for capture, nodes in captures.items():
        found = _ROLES.get(capture)
        if found is None:
            head, _, tail = capture.partition(".")
            found = _ROLES[capture] = (head, tail) if head in ("definition", "scope", "package") else ("", "")
        if found[0] and nodes:
            role, kind, node = found[0], found[1], nodes[0]
    names = captures.get("name")
    if node is None or not names or names[0].is_missing:
        return None
    first = names[0]
    plain = _PLAIN_NAME.fullmatch(source, first.start_byte, first.end_byte) if len(names) == 1 else None
    if plain is not None:
        parts = [plain.group().decode("ascii")]  # what the splitting below makes of a plain identifier
    else:
        # Several @name nodes (a Haskell `instance Show (Maybe a)`: class and type) join with a space.
        text = " ".join(_WHITESPACE.sub(" ", _text(n, source)).strip() for n in names)
        parts = _split_name(text) if split else [text.strip()]
    if not parts or parts[-1] == "_":
        return None  # the blank identifier names nothing (Go's `var _ Iface = (*T)(nil)`, Rust's `const _`)
    qualifiers = captures.get("qualifier")
    qualifier = _split_name(_text(qualifiers[0], source)) if qualifiers else []
    if role == "package":
        return _Found(role, kind, node, ".".join(parts), [], pattern, first.start_byte, first.start_point.row)
    namespace = captures.get("namespace")
    last = None
    if "then_body" in captures:
        last = node.next_named_sibling
        if last is None or last.type != _BODY or (node.parent is not None and node.parent.type == _BODY):
            return None
    return _Found(
        role,
        kind,
        node,
        parts[-1],
        qualifier + parts[:-1],
        pattern,
        first.start_byte,
        first.start_point.row,
        last=last,
        namespace=namespace[0].id if namespace else None,
    )


def _text(node: tree_sitter.Node, source: bytes) -> str:
    return source[node.start_byte : node.end_byte].decode("utf-8", "replace")


def _split_name(text: str) -> list[str]:
    """``ns::Outer<T>::f`` → ``["ns", "Outer", "f"]``; ``App\\Mail`` → ``["App", "Mail"]``.

    Operator names (C++ ``operator<``, Ruby ``<=>``) keep their angle brackets.
    """
    text = _WHITESPACE.sub("", text)
    if text.startswith(":") and _IDENTIFIER_START.match(text, 1):
        text = text[1:]  # a Ruby symbol (`attr_reader :name`) names ``name``
    if _IDENTIFIER_START.match(text) and "operator" not in text:
        previous = None
        while previous != text:
            previous, text = text, _GENERIC_ARGS.sub("", text)
    return [part for part in _SCOPE_SEPARATORS.split(text) if part]


def _join_pieces(found: list[_Found]) -> list[_Found]:
    """Consecutive definitions of one name, kind and parent node become one (a Haskell
    signature and its equations); the first piece gives the name line and the signature."""
    out: list[_Found] = []
    for item in found:
        prev = out[-1] if out else None
        if (
            prev is not None
            and item.role == prev.role == "definition"
            and (item.name, item.kind, item.qualifier) == (prev.name, prev.kind, prev.qualifier)
            and item.node.parent is not None
            and prev.node.parent is not None
            and item.node.parent.id == prev.node.parent.id
        ):
            prev.last = item.node
            continue
        out.append(item)
    return out


class _Leading:
    """Where a definition's span starts once the lines that belong to it are added above it.

    Going up from the definition's first line (after climbing out of the :data:`_WRAPPERS` that
    hold it): decorators and attributes the grammar puts outside the node, and the contiguous
    comment lines directly above (no blank line between; not an inner or trailing doc comment).
    Each of those must start its line (a comment after code on the line above is not taken), and
    nothing is taken from inside an earlier definition (``floor``). Works on byte offsets, so it
    does not depend on where a grammar hangs comments in its tree.
    """

    def __init__(self, leads: list[_Lead], source: bytes, language: str) -> None:
        self.source = source
        self.not_doc = _NOT_LEADING_DOC.get(language, _SHEBANG)
        self.by_end: dict[int, _Lead] = {}
        for lead in leads:
            self.by_end.setdefault(_content_end(source, lead.node.start_byte, lead.node.end_byte), lead)

    def start(self, node: tree_sitter.Node, floor: int) -> int:
        """The 0-based row where the definition ``node`` starts with what belongs to it."""
        node = _outer(node)
        src = self.source
        row = node.start_point.row
        line_start = src.rfind(b"\n", 0, node.start_byte) + 1
        if not self.by_end or src[line_start : node.start_byte].strip(_SPACE):
            return row
        pos = line_start
        while True:
            q, newlines = pos, 0
            while q > 0 and src[q - 1] in _SPACE:
                newlines += src[q - 1] == 0x0A
                q -= 1
            lead = self.by_end.get(q)
            if lead is None or lead.node.start_byte < floor:
                return row
            if lead.role == "doc" and (
                newlines > 1
                or self.not_doc.match(src, lead.node.start_byte) is not None
                or _SHEBANG.match(src, lead.node.start_byte) is not None
            ):
                return row
            pos = lead.node.start_byte
            lead_line = src.rfind(b"\n", 0, pos) + 1
            if not src[lead_line:pos].strip(_SPACE):
                pos, row = lead_line, lead.node.start_point.row
            # else: something precedes it on its line; it counts only if that is a lead too

    def trim_end(self, node: tree_sitter.Node) -> tuple[int, int] | None:
        """Where ``node`` ends without the comments at the end of it that are not indented under
        it (Scala and Haskell grammars can end a definition with the next one's doc comment), as
        (end byte, 0-based row); ``None`` when it does not end with such a comment."""
        src, column = self.source, node.start_point.column
        end = _content_end(src, node.start_byte, node.end_byte)
        trimmed: tuple[int, int] | None = None
        while (lead := self.by_end.get(end)) is not None and lead.role == "doc":
            comment = lead.node
            if comment.start_byte <= node.start_byte or comment.start_point.column > column:
                break
            end = _content_end(src, node.start_byte, comment.start_byte)
            trimmed = (end, comment.start_point.row - src.count(b"\n", end, comment.start_byte))
        return trimmed


def _content_end(source: bytes, start: int, end: int) -> int:
    """``end`` moved back over whitespace, not before ``start``."""
    while end > start and source[end - 1] in _SPACE:
        end -= 1
    return end


def _outer(node: tree_sitter.Node) -> tree_sitter.Node:
    """The outermost :data:`_WRAPPERS` node that holds ``node`` and nothing else but decorators,
    template parameters and comments (not Go's `type ( A int; B = string )`)."""
    while (parent := node.parent) is not None and parent.type in _WRAPPERS:
        if sum(1 for child in parent.named_children if child.type not in _WRAPPED_EXTRAS) != 1:
            break
        node = parent
    return node


def _qualify(found: list[_Found], leading: _Leading, language: str, path: str, source: bytes) -> list[Symbol]:
    package = ".".join(f.name for f in found if f.role == "package")
    modules: set[str] = set()
    named: set[str] = set()  # qualified names of the definitions reported so far
    stack: list[_Open] = []
    symbols: list[Symbol] = []
    ends: list[int] = []  # end bytes of earlier definitions and scopes (a heap)
    floor = 0  # the greatest end byte of an earlier item that does not enclose this one
    for item in found:
        if item.role == "package":
            continue
        start = item.node.start_byte
        item.trimmed = leading.trim_end(item.last or item.node)
        while stack and stack[-1].end_byte <= start:
            stack.pop()
        while ends and ends[0] <= start:
            floor = max(floor, heapq.heappop(ends))
        heapq.heappush(ends, item.end_byte)
        member = item.role == "definition" and item.kind in DATA_KINDS
        parent = _owner(stack) if member else (stack[-1] if stack else None)
        prefix = parent.qualified if parent is not None else package
        if parent is not None and item.qualifier == [parent.name]:
            item.qualifier = []  # the object it is a function of is its enclosing definition already
        qualified = ".".join(p for p in (prefix, *item.qualifier, item.name) if p)
        kind = _refine_kind(item, parent, language, modules)
        if kind == "module":
            modules.add(qualified)
        if member:
            # A field, variant or variable encloses nothing that its name should qualify (a C field's
            # anonymous struct holds fields of the outer struct), and one named twice (`self.x` set in two
            # places, or declared in the class and set in `__init__`) is reported where it comes first;
            # one that another definition of the same name precedes is that definition.
            if qualified in named:
                continue  # a Java `static final` field is its constant already
        elif not (item.role == "definition" and kind == "type" and language not in _ALIASED_SHAPES):
            # A type alias encloses nothing of its own: C's `typedef struct node {...} node_t`
            # must not turn the struct into `node_t.node`. TypeScript's `type Action = { type: T }`
            # is an interface written another way: its members are `Action.type`.
            stack.append(_Open(item.end_byte, qualified, kind, item.name))
        if item.role == "definition":
            named.add(qualified)
            first_row = leading.start(_declaration(item.node) if member else item.node, floor)
            symbols.append(_symbol(item, kind, qualified, language, path, source, first_row))
    return symbols


_ALIASED_SHAPES = frozenset({"typescript", "tsx"})  # languages whose type aliases name object types' members


def _declaration(node: tree_sitter.Node) -> tree_sitter.Node:
    """The declaration that holds a field's declarator on its line (Java's `private int x, y;`, a C
    `char *name;`), whose doc comment and annotations above it are the field's."""
    row = node.start_point.row
    while (
        (parent := node.parent) is not None and parent.type in _DECLARATIONS and parent.start_point.row == row
    ):
        node = parent
    return node


def _owner(stack: list[_Open]) -> _Open | None:
    """The scope a field or variant belongs to: the innermost class-like one, so that the attributes
    Python's ``__init__`` sets on ``self`` are the class's (``Client.timeout``), not the method's."""
    for open_ in reversed(stack):
        if open_.kind in TYPE_KINDS:
            return open_
    return stack[-1] if stack else None


def _refine_kind(item: _Found, parent: _Open | None, language: str, modules: set[str]) -> str:
    kind = item.kind
    if kind == "function" and parent is not None and parent.kind in TYPE_KINDS and not item.qualifier:
        kind = "method"
    if language == "cpp" and kind == "method":
        owner = item.qualifier[-1] if item.qualifier else (parent.name if parent is not None else "")
        prefix = f"{parent.qualified}." if parent is not None else ""
        if item.name == owner:
            kind = "constructor"
        elif item.qualifier and prefix + ".".join(item.qualifier) in modules:
            kind = "function"
    return kind


def _symbol(
    item: _Found, kind: str, qualified: str, language: str, path: str, source: bytes, first_row: int
) -> Symbol:
    node, last = item.node, item.last or item.node
    start_row, (end_row, end_col) = node.start_point.row, last.end_point
    if item.trimmed is not None:
        end_row = item.trimmed[1]
    elif end_col == 0 and end_row > start_row:
        end_row -= 1  # the node ends with a newline: its last line is the one before
    signature = _signature(source, node.start_byte, item.name_byte)
    return Symbol(
        name=item.name,
        qualified_name=qualified,
        kind=kind,
        path=path,
        language=language,
        start_line=min(first_row, start_row) + 1,
        end_line=end_row + 1,
        signature=signature,
        name_line=item.name_row + 1,
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
