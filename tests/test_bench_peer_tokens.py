"""``benchmarks peer-tokens`` counts as semble's token-efficiency benchmark does: tokens to the first
covered target (32k when none is covered), and recall at the last curve point within a budget."""

from __future__ import annotations

from benchmarks.peer_tokens import EXPECTED_COST_CAP, Curve, summarise


def test_curves_give_semble_s_expected_tokens_and_recall_within_a_budget() -> None:
    # Three results of 300, 900 and 1,200 tokens; the first target is covered by the second result,
    # the second target by the third: cumulative 300 → 0, 1,200 → 1, 2,400 → 2 of 2 targets.
    found = Curve("r", "semantic", 2, ((0, 0), (300, 0), (1200, 1), (2400, 2)))
    missed = Curve("r", "symbol", 1, ((0, 0), (500, 0), (900, 0)))
    no_targets = Curve("r", "symbol", 0, ((0, 0), (100, 0)))  # left out, as semble leaves it out
    assert found.tokens_to_first() == 1200 and missed.tokens_to_first() is None
    assert (found.recall_at(1000), found.recall_at(2000), found.recall_at(2400)) == (0.0, 0.5, 1.0)
    s = summarise([found, missed, no_targets])
    assert s["n"] == 2
    assert s["expected_tokens"] == (1200 + EXPECTED_COST_CAP) / 2  # a miss costs semble's cap
    assert s["recall"][2000] == (0.5 + 0.0) / 2
    assert s["found"] == 0.5 and s["tokens_shown"] == (2400 + 900) / 2
