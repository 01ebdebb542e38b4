"""Reciprocal rank fusion: pure functions, tested with hand-computed numbers.

score(d) = Σ_s w_s / (k + rank_s(d)), ranks 1-based. Plain RRF has every w_s = 1 and k = 60.
Spans from different retrievers that overlap in the same file are one result: hits are first
grouped into clusters of overlapping spans (a cluster's span is the hull of its first member from
the best-ranked retriever), and a retriever contributes its best rank within the cluster.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import NamedTuple

from search.types import Hit, Span

DEFAULT_K = 60
SYMBOL = "symbol"  # the retriever whose hits are definitions (see Fused.defines)
TEXT = "text"  # the retriever whose exact hits hold the query verbatim


def rrf(rankings: Iterable[Sequence[Span]], *, k: int = DEFAULT_K) -> list[tuple[Span, float]]:
    """Plain RRF over exact spans (no overlap merging): ``[(span, score)]`` best first."""
    if k <= 0:
        raise ValueError(f"k must be positive, got {k}")
    score: defaultdict[Span, float] = defaultdict(float)
    for ranking in rankings:
        for rank, span in enumerate(dict.fromkeys(ranking), start=1):
            score[span] += 1.0 / (k + rank)
    return sorted(score.items(), key=lambda kv: (-kv[1], kv[0]))


class Fused(NamedTuple):
    """One fused result (a named tuple: a search makes a hundred of these, a tuple is made in C)."""

    span: Span
    score: float
    ranks: dict[str, int | None]  # retriever -> 1-based rank, None if absent
    hit: Hit  # representative hit (symbol, kind, language) from the best-ranked retriever
    exact: bool = False  # some member hit holds the query itself (see Hit.exact)
    # The symbol retriever's hit here: the definition it found, where a chunk of several definitions
    # is labelled with its first (``hit.symbol``) and the one asked for may be its third.
    definition: Hit | None = None
    exact_case: bool = False  # some member hit holds the query as written, case included
    loose: int = 0  # the closest Hit.loose of the member hits that hold the query (0: none is loose)
    asked: int = 0  # the highest Hit.asked of its member hits
    # The text retriever's share of the query's term weight in its hit here (Hit.coverage; 0: the text
    # retriever did not find it)
    coverage: float = 0.0

    @property
    def defines(self) -> str | None:
        """The name the symbol retriever found defined here (``None``: it found nothing here)."""
        return self.definition.symbol if self.definition is not None else None

    @property
    def label(self) -> Hit:
        """The hit whose symbol, kind and language name this result: the definition the symbol
        retriever found here, else the representative."""
        return self.definition if self.definition is not None else self.hit


def fuse(
    rankings: Mapping[str, Sequence[Hit]],
    *,
    k: int = DEFAULT_K,
    weights: Mapping[str, float] | None = None,
    show_definitions: bool = False,
) -> list[Fused]:
    """Weighted RRF with overlapping spans merged; ties broken by span for a stable order. A merged
    result shows the span of its best-ranked hit, or of its first that holds the query verbatim (the
    text retriever's ``exact`` hit, or one that holds the words a name was asked in); with ``show_definitions`` (a search for a name), the
    chunk holding the first line of the definition the symbol retriever found there (chunks overlap: a
    class's signature in one, the end of its docstring in the next, which the text retriever may rank
    as high)."""
    if k <= 0:
        raise ValueError(f"k must be positive, got {k}")
    names = list(rankings)
    by_path: dict[str, list[_Cluster]] = {}  # path -> its clusters, in the order they were made
    joined: dict[Span, _Cluster] = {}  # a span already placed -> its cluster (clusters never move)
    order: list[_Cluster] = []
    # Visit hits by rank, then by retriever, so that a cluster's representative comes from the best
    # rank (the visiting order of a round-robin over the lists, without visiting the short lists' ends).
    visits = sorted(
        (rank, i, hit) for i, name in enumerate(names) for rank, hit in enumerate(rankings[name], start=1)
    )  # (rank, retriever) is unique: hits themselves are never compared
    for rank, i, hit in visits:
        name = names[i]
        span = hit.span
        cluster = joined.get(span)
        if cluster is None:
            group = by_path.get(span.path)
            if group is None:
                group = by_path[span.path] = []
            start, end = span.start_line, span.end_line
            # The first cluster of the file that the span overlaps (a later one never comes first).
            for c in group:
                if c.start <= end and start <= c.end:
                    cluster = c
                    break
            else:
                cluster = _Cluster(span, hit, {}, start, end)
                group.append(cluster)
                order.append(cluster)
            joined[span] = cluster
        # A chunk the text retriever found the query in is what the result shows, not an overlapping
        # neighbour another retriever ranked first, which may not hold that line; one that holds the
        # words a name was asked in ("getSchemas is called") before one that holds the name alone; a
        # search for a name shows its definition instead (below).
        held = 0 if name != TEXT else 2 if hit.asked else int(hit.exact and not show_definitions)
        if held > cluster.held:
            cluster.held = held
            if cluster.span != span and not (show_definitions and cluster.definition is not None):
                cluster.span, cluster.hit = span, hit
                cluster.start = min(cluster.start, span.start_line)
                cluster.end = max(cluster.end, span.end_line)
        ranks = cluster.ranks
        if name not in ranks:
            ranks[name] = rank
        if hit.exact:
            cluster.exact = True
            if hit.exact_case:
                cluster.exact_case = True
            cluster.loose = min(cluster.loose, hit.loose)
        if hit.asked > cluster.asked:
            cluster.asked = hit.asked
        if name == TEXT and hit.coverage > cluster.coverage:
            cluster.coverage = hit.coverage
        if name == SYMBOL and hit.symbol and cluster.definition is None:
            cluster.definition = hit
            if show_definitions and cluster.span != span:
                cluster.span = span  # what later hits overlap stays the union of both
                cluster.start, cluster.end = (
                    min(cluster.start, span.start_line),
                    max(cluster.end, span.end_line),
                )
    weight = {n: (weights or {}).get(n, 1.0) for n in names}
    absent = dict.fromkeys(names)
    fused = []
    for c in order:
        score = 0.0
        for n, r in c.ranks.items():
            score += weight[n] / (k + r)
        ranks_of = absent.copy()
        ranks_of.update(c.ranks)
        loose = c.loose if c.exact else 0
        fused.append(
            Fused(
                c.span,
                score,
                ranks_of,
                c.hit,
                c.exact,
                c.definition,
                c.exact_case,
                loose,
                c.asked,
                c.coverage,
            )
        )
    # Best score first, ties by span: sorted by span, then (stably) by score.
    fused.sort(key=_SPAN)
    fused.sort(key=_SCORE, reverse=True)
    return fused


_SPAN = itemgetter(0)
_SCORE = itemgetter(1)


@dataclass(slots=True)
class _Cluster:
    span: Span
    hit: Hit
    ranks: dict[str, int]
    start: int  # the span's lines, read in the overlap test of every later hit in the file
    end: int
    exact: bool = False
    definition: Hit | None = None
    exact_case: bool = False
    loose: int = 1 << 30  # the closest Hit.loose of its exact members
    asked: int = 0
    held: int = 0  # what its shown member holds: 2 the words a name was asked in, 1 the query, 0 neither
    coverage: float = 0.0
