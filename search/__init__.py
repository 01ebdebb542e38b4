"""The query service: retrievers (ripgrep, symbols, vectors), RRF fusion, the engine, the MCP server
and its tools, and the CLI.

May import ``indexer`` and ``models``; nothing imports ``search`` but its entry points (the CLI, the
server) and the benchmarks, which use the names in ``_EXPORTS`` only (``lint-imports`` checks it).
They are imported on first use (:func:`models.lazy.lazy_exports`), so ``plait --version`` and
``--help`` (which import ``search.frontends.cli``) load no index code. Sub-packages: ``engine`` (query
analysis, retrievers, fusion, ranking, snippets), ``workspace`` (confined files, edits, the guard,
ignore rules, the ripgrep gateway, scopes) and ``frontends`` (CLI, MCP server, remote client).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from models import lazy_exports

if TYPE_CHECKING:
    from search.engine.engine import Engine as Engine
    from search.engine.engine import parse_scope as parse_scope
    from search.engine.fusion import fuse as fuse
    from search.engine.fusion import rrf as rrf
    from search.engine.query import analyse as analyse
    from search.engine.snippets import DEFAULT_MAX_TOKENS as DEFAULT_MAX_TOKENS
    from search.engine.snippets import DEFAULT_MORE as DEFAULT_MORE
    from search.engine.snippets import estimate_tokens as estimate_tokens
    from search.engine.snippets import focus_results as focus_results
    from search.engine.snippets import location_line as location_line
    from search.engine.snippets import monotonic_scores as monotonic_scores
    from search.errors import QueryError as QueryError
    from search.types import Coverage as Coverage
    from search.types import Hit as Hit
    from search.types import Query as Query
    from search.types import Result as Result
    from search.types import Scope as Scope
    from search.types import SearchResponse as SearchResponse
    from search.types import Span as Span
    from search.workspace.ripgrep import RgCommand as RgCommand
    from search.workspace.ripgrep import RgLine as RgLine
    from search.workspace.ripgrep import run_rg as run_rg

_EXPORTS: dict[str, tuple[str, ...]] = {
    "search.engine.engine": ("Engine", "parse_scope"),
    "search.engine.fusion": ("fuse", "rrf"),
    "search.engine.query": ("analyse",),
    "search.engine.snippets": (
        "DEFAULT_MAX_TOKENS",
        "DEFAULT_MORE",
        "estimate_tokens",
        "focus_results",
        "location_line",
        "monotonic_scores",
    ),
    "search.errors": ("QueryError",),
    "search.types": ("Coverage", "Hit", "Query", "Result", "Scope", "SearchResponse", "Span"),
    "search.workspace.ripgrep": ("RgCommand", "RgLine", "run_rg"),
}
__all__, _first_use = lazy_exports(__name__, _EXPORTS)
if not TYPE_CHECKING:  # hidden from type checkers, which then flag a name missing from the table
    __getattr__ = _first_use
