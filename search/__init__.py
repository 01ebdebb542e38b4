"""The query service: retrievers (ripgrep, symbols, vectors), RRF fusion, the engine, the MCP server
and its tools, and the CLI.

May import ``indexer`` and ``models``; nothing imports ``search`` but its entry points (the CLI, the
server) and the benchmarks. The public surface is listed in ``__all__``.
"""

from search.engine import Engine, parse_scope
from search.errors import QueryError
from search.fusion import fuse, rrf
from search.types import Coverage, Hit, Query, Result, Scope, SearchResponse, Span

__all__ = [
    "Coverage",
    "Engine",
    "Hit",
    "Query",
    "QueryError",
    "Result",
    "Scope",
    "SearchResponse",
    "Span",
    "fuse",
    "parse_scope",
    "rrf",
]
