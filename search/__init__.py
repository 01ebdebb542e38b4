"""The query service: retrievers (ripgrep, symbols, vectors), RRF fusion, the engine, the MCP server
and its tools, and the CLI.

May import ``indexer`` and ``models``; nothing imports ``search`` but its entry points (the CLI, the
server) and the benchmarks. The public surface is listed in ``__all__``; its names are imported on
first use, so ``plait --version`` and ``--help`` (which import ``search.frontends.cli``) load no index code.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from search.engine.engine import Engine, parse_scope
    from search.engine.fusion import fuse, rrf
    from search.engine.snippets import DEFAULT_MAX_TOKENS, estimate_tokens, focus_results, monotonic_scores
    from search.errors import QueryError
    from search.types import Coverage, Hit, Query, Result, Scope, SearchResponse, Span

_WHERE = {
    "Engine": "search.engine.engine",
    "parse_scope": "search.engine.engine",
    "QueryError": "search.errors",
    "fuse": "search.engine.fusion",
    "rrf": "search.engine.fusion",
    **{
        n: "search.engine.snippets"
        for n in ("DEFAULT_MAX_TOKENS", "estimate_tokens", "focus_results", "monotonic_scores")
    },
    **{n: "search.types" for n in ("Coverage", "Hit", "Query", "Result", "Scope", "SearchResponse", "Span")},
}

__all__ = [
    "DEFAULT_MAX_TOKENS",
    "Coverage",
    "Engine",
    "Hit",
    "Query",
    "QueryError",
    "Result",
    "Scope",
    "SearchResponse",
    "Span",
    "estimate_tokens",
    "focus_results",
    "fuse",
    "monotonic_scores",
    "parse_scope",
    "rrf",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'search' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
