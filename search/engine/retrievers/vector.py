"""Vector retrieval: embed the query (the model stays loaded) and ask LanceDB for the nearest chunks."""

from __future__ import annotations

from typing import TYPE_CHECKING

from search.engine.query import AnalysedQuery
from search.engine.retrievers import ResolvedScope
from search.types import Hit, Span

if TYPE_CHECKING:
    from indexer import Index


class VectorRetriever:
    name = "vector"

    def __init__(self, index: Index) -> None:
        self.index = index

    def search(self, query: AnalysedQuery, scope: ResolvedScope, *, limit: int) -> list[Hit]:
        text = query.literal if query.shape == "literal" and query.literal else query.text
        hits = self.index.nearest(
            text,
            limit=limit,
            path_prefix=scope.path if scope.kind in ("dir", "file") else None,
            paths=scope.paths,
            globs=scope.globs,
            language=scope.language,
        )
        return [
            Hit(Span(h.path, h.start_line, h.end_line), 1.0 - h.distance, h.symbol, h.kind, h.language)
            for h in hits
            if scope.allows(h.path)
        ]
