"""The one boundary the harnesses see: a :class:`System` answers a query with ranked spans.

plait's modes and the outside baselines all implement it, so the quality and latency harnesses are
one loop over systems. Spans are ``(path, start_line, end_line)``: path relative to the indexed root
with forward slashes, lines 1-based and inclusive.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from benchmarks.baselines import BM25Baseline, ChunkText, RipgrepBaseline
from benchmarks.metrics import SpanTuple

if TYPE_CHECKING:
    from indexer import Index
    from search import Engine

PLAIT_MODES: tuple[str, ...] = ("text", "symbol", "semantic", "hybrid")
BASELINES: tuple[str, ...] = ("ripgrep", "bm25")


class System(Protocol):
    """Something a user could search the repository with."""

    @property
    def name(self) -> str: ...

    def search(self, query_text: str, limit: int) -> list[SpanTuple]:
        """The top ``limit`` spans for ``query_text``, best first."""
        ...


class PlaitSystem:
    """One plait mode through the library API (``search.Engine``), exactly as the CLI calls it.

    ``fusion`` is the engine's hybrid fusion: ``weighted`` (its default, query-aware weights) or
    ``rrf`` (plain RRF, every weight 1), so the two can be measured side by side. ``degraded`` counts,
    per retriever, the answers that came back without it (timeouts, failures).
    """

    def __init__(self, engine: Engine, mode: str, *, fusion: str = "weighted") -> None:
        if mode not in PLAIT_MODES:
            raise ValueError(f"unknown plait mode {mode!r}; expected one of {PLAIT_MODES}")
        self._engine = engine
        self.mode = mode
        self.fusion = fusion
        self.degraded: dict[str, int] = {}

    @property
    def name(self) -> str:
        return f"plait-{self.mode}" + ("-rrf" if self.fusion == "rrf" else "")

    def search(self, query_text: str, limit: int) -> list[SpanTuple]:
        from search import Query, Scope

        query = Query(query_text, mode=self.mode, limit=limit)  # type: ignore[arg-type]
        response = self._engine.search(query, Scope(), fusion=self.fusion)
        for retriever in response.degraded:
            self.degraded[retriever] = self.degraded.get(retriever, 0) + 1
        return [(r.path, r.start_line, r.end_line) for r in response.results[:limit]]


def index_chunks(index: Index) -> list[ChunkText]:
    """The chunks plait indexed, with the exact text it embedded (header and lines)."""
    table = index.store.read("chunks", ["path", "start_line", "end_line", "text"])
    cols = [table.column(c).to_pylist() for c in ("path", "start_line", "end_line", "text")]
    chunks = [ChunkText(p, s, e, t) for p, s, e, t in zip(*cols, strict=True)]
    chunks.sort(key=lambda c: (c.path, c.start_line, c.end_line))
    return chunks


def make_systems(
    engine: Engine,
    *,
    modes: Sequence[str] = PLAIT_MODES,
    baselines: Sequence[str] = BASELINES,
    rrf: bool = True,
) -> list[System]:
    """plait's modes (plus hybrid with plain RRF when ``rrf``), then the baselines, over one index."""
    systems: list[System] = [PlaitSystem(engine, m) for m in modes]
    if rrf and "hybrid" in modes:
        systems.append(PlaitSystem(engine, "hybrid", fusion="rrf"))
    if "ripgrep" in baselines:
        systems.append(RipgrepBaseline(engine.settings.root))
    if "bm25" in baselines:
        systems.append(BM25Baseline(index_chunks(engine.index)))
    return systems
