"""Retrieval metrics, as pure functions over ranked spans and one target span per query.

A hit is *relevant at span level* when it overlaps the target span in the same file (both 1-based,
inclusive), and *relevant at file level* when it is in the target's file. Per query:

- reciprocal rank @k: ``1/r`` for the first span-relevant hit at rank ``r <= k``, else 0 (MRR@10
  is its mean with k=10);
- recall @k (span): 1 if a span-relevant hit is in the top k, else 0 (one target per query, so this
  is also the success rate @k);
- recall @k (file): the same with file-level relevance.

Aggregates are plain means over queries: per family, and ``overall`` over all queries (so larger
families weigh more; the per-family rows are there to read them separately).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

OVERALL = "overall"

SpanTuple = tuple[str, int, int]  # (path, start_line, end_line), 1-based inclusive


def overlaps(hit: SpanTuple, target: SpanTuple) -> bool:
    return hit[0] == target[0] and hit[1] <= target[2] and target[1] <= hit[2]


def first_span_rank(hits: Sequence[SpanTuple], target: SpanTuple, *, k: int = 10) -> int | None:
    """1-based rank of the first hit in the top ``k`` that overlaps ``target``, or ``None``."""
    for rank, hit in enumerate(hits[:k], start=1):
        if overlaps(hit, target):
            return rank
    return None


def first_file_rank(hits: Sequence[SpanTuple], path: str, *, k: int = 10) -> int | None:
    """1-based rank of the first hit in the top ``k`` in file ``path``, or ``None``."""
    for rank, hit in enumerate(hits[:k], start=1):
        if hit[0] == path:
            return rank
    return None


@dataclass(frozen=True, slots=True)
class Outcome:
    """Where one system put one query's target (ranks within the top 10, ``None`` if absent)."""

    qid: str
    family: str
    span_rank: int | None
    file_rank: int | None


def outcome(qid: str, family: str, hits: Sequence[SpanTuple], target: SpanTuple) -> Outcome:
    return Outcome(qid, family, first_span_rank(hits, target, k=10), first_file_rank(hits, target[0], k=10))


@dataclass(frozen=True, slots=True)
class Scores:
    n: int
    mrr10: float
    recall1: float
    recall10: float
    file_recall10: float

    def as_dict(self) -> dict[str, float | int]:
        return {
            "n": self.n,
            "mrr@10": round(self.mrr10, 4),
            "recall@1": round(self.recall1, 4),
            "recall@10": round(self.recall10, 4),
            "file_recall@10": round(self.file_recall10, 4),
        }


def score(outcomes: Sequence[Outcome]) -> Scores:
    """Mean metrics over ``outcomes``; all zero for an empty sequence."""
    n = len(outcomes)
    if n == 0:
        return Scores(0, 0.0, 0.0, 0.0, 0.0)
    return Scores(
        n=n,
        mrr10=sum(1.0 / o.span_rank for o in outcomes if o.span_rank is not None) / n,
        recall1=sum(1 for o in outcomes if o.span_rank == 1) / n,
        recall10=sum(1 for o in outcomes if o.span_rank is not None) / n,
        file_recall10=sum(1 for o in outcomes if o.file_rank is not None) / n,
    )


def by_family(outcomes: Iterable[Outcome], families: Sequence[str]) -> dict[str, Scores]:
    """Scores per family (in ``families`` order, every family present even if empty) and ``overall``."""
    items = list(outcomes)
    table = {f: score([o for o in items if o.family == f]) for f in families}
    table[OVERALL] = score(items)
    return table
