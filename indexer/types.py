"""Typed values that cross module boundaries in the indexer (and on to search)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Literal, NamedTuple

SymbolKind = Literal[
    "class",
    "function",
    "method",
    "interface",
    "struct",
    "enum",
    "trait",
    "type",
    "constant",
    "module",
    "variable",  # a variable a file or package defines (`var ErrClosed = errors.New(…)`, `app = Flask(…)`)
    "field",  # a data member: a struct's field, a class attribute or property, `self.x` set in `__init__`
    "variant",  # a member of an enum: a Rust variant, a Java enum constant, a C enumerator
    "constructor",
    "macro",
    "reexport",  # a name defined elsewhere, made public here (Rust `pub use`, `export const f = m.f`)
]

#: Data members, enum variants and a file's variables: definitions found by name that hold no code of
#: their own. They never start or end a chunk (a field is a line of the chunk of its owner, a variable of
#: the file's code around it) and name nothing nested in them.
DATA_KINDS: frozenset[str] = frozenset({"field", "variant", "variable"})
FUNCTION_KINDS: frozenset[str] = frozenset({"function", "method"})  # definitions that are called
TYPE_KINDS: frozenset[str] = frozenset({"class", "struct", "interface", "trait", "enum", "type"})  # types


class Symbol(NamedTuple):
    """One definition found by a tree-sitter tags query.

    ``path`` is relative to the workspace root with forward slashes; lines are 1-based and
    inclusive. ``start_line`` is the first line of the definition *with* what belongs to it above
    its keyword (decorators, attributes, its doc comment); ``name_line`` is the line holding its
    name (the ``def``/``fn`` line; for Haskell the type signature), which is what a consumer that
    wants to jump to the definition itself uses, and the line a search shows the definition by (0
    when unknown: an index built before it was kept). ``qualified_name`` joins the enclosing scopes
    with dots (``Outer.Inner.method``, ``pkg.Type.Method`` for Go methods). ``signature`` is the
    definition's first line, stripped.

    The one description of a definition: the ``symbols`` table's schema
    (:data:`indexer.store.SYMBOLS_SCHEMA`), the columns lookups read and the rows a build writes are
    derived from these fields. A tuple, not a dataclass: an in-memory symbol table makes hundreds of
    thousands of them, and a tuple is made about twice as fast.
    """

    name: str
    qualified_name: str
    kind: str
    path: str
    language: str
    start_line: int
    end_line: int
    signature: str
    name_line: int = 0


#: The fields of :class:`Symbol` kept in the ``symbols`` table, in field order.
STORED_SYMBOL_FIELDS: tuple[str, ...] = Symbol._fields


@dataclass(frozen=True, slots=True)
class Chunk:
    """A span of a file that is embedded and returned by searches.

    ``text`` is what gets embedded: a short header (path and enclosing scope) then the lines.
    ``content_hash`` is the sha256 of ``text``; the embedding cache is keyed by it.
    """

    path: str
    start_line: int
    end_line: int
    symbol: str | None
    kind: str | None
    language: str | None
    text: str
    content_hash: str

    def __reduce__(
        self,
    ) -> tuple[type[Chunk], tuple[str, int, int, str | None, str | None, str | None, str, str]]:
        """Pickled as its fields' values (a parse worker sends a million of them to a build over a large
        tree): the dataclass way asks for the class's fields twice per chunk, once each side."""
        return (Chunk, (self.path, self.start_line, self.end_line, self.symbol, self.kind, self.language,
                        self.text, self.content_hash))  # fmt: skip

    @property
    def chunk_id(self) -> str:
        key = f"{self.path}\0{self.start_line}\0{self.end_line}\0{self.content_hash}"
        return hashlib.sha256(key.encode()).hexdigest()[:32]


@dataclass(frozen=True, slots=True)
class FileRecord:
    """One row of the files manifest."""

    path: str
    sha256: str
    size: int
    mtime_ns: int
    language: str | None
    symbols: int
    chunks: int


def sha256_hex(data: bytes | str) -> str:
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True, slots=True)
class ChunkSpan:
    """Where one indexed chunk lies in its file (what a hit is widened to), and what it defines."""

    start_line: int
    end_line: int
    symbol: str | None
    kind: str | None
    language: str | None
