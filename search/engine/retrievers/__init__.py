"""The three retrievers behind one small protocol, listed explicitly in
:func:`search.engine.engine.retrievers_for`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from search.engine.query import AnalysedQuery
from search.types import Hit, ResolvedScope

__all__ = ["ResolvedScope", "Retriever"]  # ResolvedScope lives in search.types; named here for callers


class Retriever(Protocol):
    """One way of finding code. ``search`` returns at most ``limit`` hits, best first, each mapped to a
    chunk-sized span and carrying the retriever's native score; it raises
    :class:`search.errors.QueryError` for input it cannot search and
    :class:`models.errors.PlaitError` when its store is unavailable (the engine reports the latter
    as degraded and lets the other retrievers answer)."""

    name: str

    def search(self, query: AnalysedQuery, scope: ResolvedScope, *, limit: int) -> Sequence[Hit]: ...
