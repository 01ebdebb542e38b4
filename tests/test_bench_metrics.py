"""Benchmark metrics against hand-computed values: a metric bug must fail here."""

from __future__ import annotations

import pytest

from benchmarks import metrics, quality
from benchmarks.metrics import Outcome, by_family, first_file_rank, first_span_rank, outcome, overlaps, score

MISS = ("zzz.py", 1, 1)

# Four queries, worked out by hand (see each comment).
CASES = [
    # target a.py:10-20; rank 1 other file, rank 2 same file but lines 1-9 (no overlap), rank 3 overlaps 15-20
    ("q1", "docstring", [("b.py", 1, 5), ("a.py", 1, 9), ("a.py", 15, 30)], ("a.py", 10, 20)),
    # target a.py:40-50; the only hit touches it at line 50 (inclusive bounds)
    ("q2", "docstring", [("a.py", 50, 60)], ("a.py", 40, 50)),
    # target c.py:1-3; the exact span comes at rank 11, outside the top 10
    ("q3", "symbol", [MISS] * 10 + [("c.py", 1, 3)], ("c.py", 1, 3)),
    # target c.py:5-8; same file twice, both just outside the span (9-12 and 4-4)
    ("q4", "symbol", [("c.py", 9, 12), ("c.py", 4, 4)], ("c.py", 5, 8)),
]


def outcomes() -> list[Outcome]:
    return [outcome(qid, fam, hits, target) for qid, fam, hits, target in CASES]


def test_overlap_is_inclusive_and_needs_the_same_file() -> None:
    assert overlaps(("a.py", 50, 60), ("a.py", 40, 50))
    assert overlaps(("a.py", 1, 100), ("a.py", 40, 50))
    assert not overlaps(("a.py", 51, 60), ("a.py", 40, 50))
    assert not overlaps(("a.py", 30, 39), ("a.py", 40, 50))
    assert not overlaps(("b.py", 40, 50), ("a.py", 40, 50))


def test_ranks_per_query_match_hand_computed_values() -> None:
    got = [(o.span_rank, o.file_rank) for o in outcomes()]
    assert got == [(3, 2), (1, 1), (None, None), (None, 1)]


def test_ranks_only_count_the_top_k() -> None:
    hits = [MISS] * 4 + [("a.py", 1, 1)]
    assert first_span_rank(hits, ("a.py", 1, 1), k=5) == 5
    assert first_span_rank(hits, ("a.py", 1, 1), k=4) is None
    assert first_file_rank(hits, "a.py", k=4) is None


def test_family_scores_match_hand_computed_values() -> None:
    table = by_family(outcomes(), ["docstring", "symbol", "literal"])
    doc, sym, lit, overall = table["docstring"], table["symbol"], table["literal"], table[metrics.OVERALL]
    # docstring: RR = 1/3 and 1 -> MRR 2/3; R@1 1 of 2; R@10 2 of 2; file R@10 2 of 2
    assert doc.n == 2
    assert doc.mrr10 == pytest.approx(2 / 3)
    assert (doc.recall1, doc.recall10, doc.file_recall10) == (0.5, 1.0, 1.0)
    # symbol: no span hit in the top 10 for either; q4 finds the file at rank 1
    assert sym.n == 2
    assert (sym.mrr10, sym.recall1, sym.recall10, sym.file_recall10) == (0.0, 0.0, 0.0, 0.5)
    # literal: no queries -> zeros, n = 0
    assert lit == metrics.Scores(0, 0.0, 0.0, 0.0, 0.0)
    # overall over 4 queries: (1/3 + 1) / 4 = 1/3; R@1 1/4; R@10 2/4; file R@10 3/4
    assert overall.n == 4
    assert overall.mrr10 == pytest.approx(1 / 3)
    assert (overall.recall1, overall.recall10, overall.file_recall10) == (0.25, 0.5, 0.75)


def test_a_duplicate_hit_still_costs_a_rank() -> None:
    hits = [("a.py", 1, 2), ("a.py", 1, 2), ("b.py", 5, 5)]
    assert first_span_rank(hits, ("b.py", 1, 9)) == 3
    assert score([outcome("q", "f", hits, ("b.py", 1, 9))]).mrr10 == pytest.approx(1 / 3)


def test_scores_as_dict_uses_the_reported_metric_names() -> None:
    d = score(outcomes()).as_dict()
    assert d == {"n": 4, "mrr@10": 0.3333, "recall@1": 0.25, "recall@10": 0.5, "file_recall@10": 0.75}


class FixedSystem:
    """A system that answers from a table (query text -> hits)."""

    def __init__(self, name: str, answers: dict[str, list[tuple[str, int, int]]]) -> None:
        self.name = name
        self.answers = answers

    def search(self, query_text: str, limit: int) -> list[tuple[str, int, int]]:
        return self.answers.get(query_text, [])[:limit]


def test_findings_say_plainly_where_hybrid_loses() -> None:
    from benchmarks.evalset import EvalQuery

    queries = [
        EvalQuery("d1", "docstring", "parse the file", "a.py", 1, 10, "python"),
        EvalQuery("s1", "symbol", "parse", "a.py", 1, 10, "python"),
    ]
    hybrid = FixedSystem(
        "plait-hybrid", {"parse the file": [MISS, ("a.py", 2, 3)], "parse": [("a.py", 1, 1)]}
    )
    bm25 = FixedSystem("bm25", {"parse the file": [("a.py", 5, 6)], "parse": [MISS, ("a.py", 1, 1)]})
    fams = ["docstring", "symbol"]
    results = [quality.evaluate_system(s, queries, fams) for s in (hybrid, bm25)]
    found = quality.findings(results, fams)
    assert found == [
        "plait-hybrid loses to bm25 on docstring: MRR@10 0.500 vs 1.000; R@1 0.000 vs 1.000.",
    ]
    rep = quality.QualityReport(fams, results, found, {"root": "x"})
    text = quality.render(rep)
    assert "loses to bm25 on docstring" in text
    assert rep.as_dict()["systems"]["bm25"]["scores"]["overall"]["mrr@10"] == 0.75


def test_findings_say_so_when_hybrid_never_loses() -> None:
    from benchmarks.evalset import EvalQuery

    queries = [EvalQuery("s1", "symbol", "parse", "a.py", 1, 10, "python")]
    results = [
        quality.evaluate_system(
            FixedSystem("plait-hybrid", {"parse": [("a.py", 1, 1)]}), queries, ["symbol"]
        ),
        quality.evaluate_system(FixedSystem("ripgrep", {}), queries, ["symbol"]),
    ]
    assert quality.findings(results, ["symbol"]) == [
        "plait-hybrid is at least as good as every other system on every family and metric."
    ]
