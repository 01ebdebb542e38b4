"""One ranking over several repositories: fuse each root's own ranked list, normalised per root.

Each root's engine ranks its own results (fusion, then the rules of :mod:`search.engine.ranking`). Sorting
the union by raw score would let one repository's score scale decide for all: a large repository has
more chunks on which the retrievers agree by chance, and a tiny one puts its only chunks at rank 1 of
every retriever. So the score across roots is built from what is comparable between them:

* the **tier** — the whole-number part of a result's score (``search.engine.ranking`` adds 1 per tier to
  results that hold the query itself, and keeps every other score below 1). A result that holds the
  query outranks one that does not, whichever repository it comes from;
* within a tier, **reciprocal-rank fusion over each root's own list**: a result at rank ``r`` of its
  root's list (counted within its tier) scores ``1 / (k + r)``, so each root's best hit meets the
  others' best hits, not their scores;
* ties (the first results of two roots) are broken by the score divided by its root's top score of
  that tier, then by the raw score, then by the root's order.

The merged score is ``tier + 1/(k + r)``: monotonic down the list, like a single root's.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

RRF_K = 60


class Scored(Protocol):
    @property
    def score(self) -> float: ...


T = TypeVar("T", bound=Scored)


@dataclass(frozen=True, slots=True)
class Merged(Generic[T]):
    """One result in the ranking across roots: which root, its rank there and the merged score."""

    root: int  # position of its root in the lists given
    rank: int  # 1-based rank within its root's list and tier
    tier: int
    score: float
    item: T


def tier_of(score: float) -> int:
    """The tier a score carries (``search.engine.ranking`` adds a whole number per tier; the rest is < 1)."""
    return max(0, math.floor(score)) if math.isfinite(score) else 0


def merge_roots(lists: Sequence[Sequence[T]], *, k: int = RRF_K) -> list[Merged[T]]:
    """Merge per-root ranked lists (each sorted by its own score, descending) into one ranking."""
    if k <= 0:
        raise ValueError(f"k must be positive, got {k}")
    keyed: list[tuple[tuple[float, ...], Merged[T]]] = []
    for i, items in enumerate(lists):
        seen: dict[int, int] = {}  # tier -> results of that tier so far
        tops: dict[int, float] = {}
        for item in items:
            tier = tier_of(item.score)
            rank = seen[tier] = seen.get(tier, 0) + 1
            within = item.score - tier
            top = tops.setdefault(tier, within)
            norm = within / top if top > 0 else 0.0
            fused = 1.0 / (k + rank)
            merged = Merged(root=i, rank=rank, tier=tier, score=tier + fused, item=item)
            keyed.append(((-tier, -fused, -norm, -item.score, i), merged))
    keyed.sort(key=lambda pair: pair[0])
    return [m for _, m in keyed]
