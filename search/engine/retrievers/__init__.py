"""The three retrievers behind one small protocol, listed explicitly in
:func:`search.engine.engine.retrievers_for`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from search.engine.query import AnalysedQuery
from search.types import Hit, ResolvedScope

__all__ = ["ResolvedScope", "Retriever"]  # ResolvedScope lives in search.types; named here for callers


class Retriever(Protocol):
    """One way of finding code (text, symbol, vector), called by the engine in a worker thread.

    ``name`` is the key of its ranking in fusion and of its entry in ``degraded``."""

    name: str

    def search(self, query: AnalysedQuery, scope: ResolvedScope, *, limit: int) -> Sequence[Hit]:
        """At most ``limit`` hits for the analysed ``query`` (never the raw string again) inside the
        already resolved ``scope`` (``scope.allows`` and its globs and language hold for every hit),
        best first, each mapped to a chunk-sized span and carrying the retriever's native score
        (comparable only within this retriever; fusion makes them comparable).

        Raises :class:`search.errors.QueryError` for input it cannot search (the engine lets it
        through to the caller) and :class:`models.errors.PlaitError` when its store or tool is
        unavailable or too slow (the engine reports it as degraded and the others answer)."""
        ...
