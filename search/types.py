"""Typed values of the query service: what goes into a search and what comes out."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

Mode = Literal["hybrid", "text", "symbol", "semantic"]
#: The retrievers each mode asks (a search whose retrievers all failed is an error, not "no match").
MODE_RETRIEVERS: dict[str, tuple[str, ...]] = {
    "hybrid": ("text", "symbol", "vector"),
    "text": ("text",),
    "symbol": ("symbol",),
    "semantic": ("vector",),
}


class Span(NamedTuple):
    """Lines of a file. A named tuple, not a dataclass: a search hashes, compares and sorts a few
    hundred of these, and a tuple does that in C (fusion took half the time with a dataclass's)."""

    path: str  # relative to the workspace root, forward slashes
    start_line: int  # 1-based, inclusive
    end_line: int

    def overlaps(self, other: Span) -> bool:
        return (
            self.path == other.path
            and self.start_line <= other.end_line
            and other.start_line <= self.end_line
        )


@dataclass(frozen=True, slots=True)
class Hit:
    """One retriever's hit, mapped to a chunk-sized span; ``score`` is the retriever's native score."""

    span: Span
    score: float
    symbol: str | None = None
    kind: str | None = None
    language: str | None = None
    exact: bool = (
        False  # holds the query itself: verbatim (text) or a definition of exactly that name (symbol)
    )
    coverage: float = 1.0  # text retriever: share of the query's term weight (idf) matched here
    exact_case: bool = False  # text retriever: holds the query verbatim as written, case included
    # Text retriever, an exact hit: how loosely it holds the query (LOCATED, VERBATIM, WRAPPED, FILLED below).
    loose: int = 0
    # Text retriever, a definition asked for in words ("HTTPSConnection constructor."): holds those
    # words verbatim, 2 as written (case included), 1 in another case; 0: not a place of them.
    asked: int = 0


#: How an exact hit of the text retriever holds an unquoted phrase (``Hit.loose``), closest first: the
#: line the phrase names (``web.py:3413``, a traceback's frame); the words within a line; only across
#: a line break (a message split over two literals, a sentence wrapped over comment lines); only as a
#: format string whose placeholders the phrase fills ("Worker 'db' is done" in ``"Worker %r is done"``).
LOCATED, VERBATIM, WRAPPED, FILLED = -1, 0, 1, 2


ScopeKind = Literal["ws", "changed", "dir", "file"]


@dataclass(frozen=True, slots=True)
class Scope:
    """Where to search, as given: ``ws`` (whole workspace), ``changed`` (git-modified and untracked),
    ``dir`` or ``file`` (with ``path``), narrowed further by globs and a language. Made from text once,
    at the edge, by :func:`search.workspace.scope.parse_scope`; resolved against a root by
    :func:`search.workspace.scope.resolve_scope`."""

    kind: ScopeKind = "ws"
    path: str | None = None
    globs: tuple[str, ...] = ()
    language: str | None = None


@dataclass(frozen=True, slots=True)
class ResolvedScope:
    """A scope resolved against one root: what to search, and the one containment predicate
    (:meth:`allows`) every caller uses to ask whether a path is inside it."""

    kind: str  # a ScopeKind (str while find_references builds one from a plain str)
    path: str | None  # workspace-relative directory or file for dir/file scopes; None for the root
    paths: tuple[str, ...] | None  # explicit file list (changed scope)
    globs: tuple[str, ...]
    language: str | None

    @property
    def targets(self) -> tuple[str, ...]:
        """What ripgrep is given to search: the explicit files, else the directory or file, else the root."""
        if self.paths is not None:
            return self.paths
        return (self.path,) if self.path else (".",)

    def allows(self, path: str) -> bool:
        """Whether the root-relative ``path`` is inside the scope (the globs and language aside)."""
        if self.paths is not None and path not in self.paths:
            return False
        if self.kind == "file":
            return path == self.path
        if self.kind == "dir" and self.path:
            return path.startswith(self.path.rstrip("/") + "/")
        return True


@dataclass(frozen=True, slots=True)
class Query:
    text: str
    mode: Mode = "hybrid"
    limit: int = 10
    regex: bool = False
    explain: bool = False  # attach to each result why it ranks where it does
    # The first results shown in full (the MCP tool lists the rest by location): the page on which the
    # ranking keeps a place for each retriever's best hit. None: all ``limit``.
    page: int | None = None


@dataclass(frozen=True, slots=True)
class Result:
    path: str
    start_line: int
    end_line: int
    score: float
    symbol: str | None
    kind: str | None
    language: str | None
    snippet: str
    sources: dict[str, int | None]
    stale: bool = False
    explain: dict[str, Any] | None = None  # each retriever's rank and every rule applied (Query.explain)

    def to_json(self) -> dict[str, Any]:
        """The design's result schema (plus ``stale`` when the file changed since the last index)."""
        data: dict[str, Any] = {
            "path": self.path,
            "start_line": self.start_line,
            "end_line": self.end_line,
            "score": round(self.score, 6),
            "symbol": self.symbol,
            "kind": self.kind,
            "language": self.language,
            "snippet": self.snippet,
            "sources": dict(self.sources),
        }
        if self.stale:
            data["stale"] = True
        if self.explain is not None:
            data["explain"] = self.explain
        return data


@dataclass(frozen=True, slots=True)
class Coverage:
    embedded: int
    chunks: int

    def describe(self) -> str:
        return f"{self.embedded:,} of {self.chunks:,} chunks embedded"


@dataclass(frozen=True, slots=True)
class SearchResponse:
    results: list[Result]
    degraded: dict[str, str] = field(default_factory=dict)  # retriever -> reason it failed/timed out
    timings_ms: dict[str, float] = field(default_factory=dict)
    coverage: Coverage | None = None
    notes: list[str] = field(default_factory=list)
