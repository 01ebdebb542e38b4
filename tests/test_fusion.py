"""RRF with hand-computed numbers, overlap merging and property checks."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from search.engine.engine import (
    FAST_TIER_SENTENCE_VECTOR,
    NATURAL_IDENTIFIER_SYMBOL,
    RERANKED,
    WEIGHTS,
    _dense_note,
    fusion_weights,
)
from search.engine.fusion import fuse, rrf
from search.engine.query import analyse
from search.engine.ranking import RankingConfig, rank
from search.types import FILLED, VERBATIM, WRAPPED, Hit, Span

A, B, C = Span("a.py", 1, 10), Span("b.py", 1, 10), Span("c.py", 5, 9)


def test_plain_rrf_matches_hand_computed_scores() -> None:
    fused = dict(rrf([[A, B, C], [C, A]], k=60))
    assert fused[A] == pytest.approx(1 / 61 + 1 / 62)
    assert fused[B] == pytest.approx(1 / 62)
    assert fused[C] == pytest.approx(1 / 63 + 1 / 61)
    assert [s for s, _ in rrf([[A, B, C], [C, A]])] == [A, C, B]


def test_rrf_counts_a_duplicate_once_per_ranking_and_rejects_bad_k() -> None:
    assert dict(rrf([[A, A, B]]))[B] == pytest.approx(1 / 62)
    with pytest.raises(ValueError, match="k must be positive"):
        rrf([[A]], k=0)


def test_fuse_merges_overlapping_spans_and_reports_ranks() -> None:
    text = [Hit(Span("c.py", 7, 7), 3.0), Hit(A, 2.0)]
    vector = [Hit(C, 0.9, "f", "function", "python"), Hit(B, 0.8)]
    symbol: list[Hit] = []
    fused = fuse({"text": text, "symbol": symbol, "vector": vector}, k=60)
    assert [f.span for f in fused] == [Span("c.py", 7, 7), A, B]
    top = fused[0]
    assert top.score == pytest.approx(2 / 61)
    assert top.ranks == {"text": 1, "symbol": None, "vector": 1}
    assert fused[1].score == pytest.approx(1 / 62) and fused[2].score == pytest.approx(1 / 62)


def test_fused_keeps_the_name_the_symbol_retriever_found_in_a_chunk_labelled_otherwise() -> None:
    chunk = Span("command.go", 1401, 1462)  # RemoveCommand, ..., PrintErrf
    text = [Hit(chunk, 5.0, "Command.RemoveCommand")]
    symbol = [Hit(Span("command.go", 1460, 1462), 1.0, "Command.PrintErrf", exact=True)]
    (only,) = fuse({"text": text, "symbol": symbol})
    assert only.hit.symbol == "Command.RemoveCommand"  # the representative: the text retriever's hit
    assert only.defines == "Command.PrintErrf" and only.exact
    assert only.label.symbol == "Command.PrintErrf"  # what a result is labelled with
    assert only.ranks == {"text": 1, "symbol": 1}
    assert fuse({"text": text})[0].defines is None


def test_a_search_for_a_name_shows_the_chunk_that_holds_its_definition() -> None:
    # Overlapping chunks: the class line and its docstring's start, then the docstring's end.
    head, tail = Span("relativedelta.py", 18, 97), Span("relativedelta.py", 88, 103)
    text = [Hit(tail, 5.0, "relativedelta")]
    symbol = [Hit(head, 1.0, "relativedelta", "class", exact=True)]
    vector = [Hit(Span("relativedelta.py", 100, 110), 0.9)]  # overlaps the docstring's end only
    (shown,) = fuse({"text": text, "symbol": symbol, "vector": vector}, show_definitions=True)
    assert shown.span == head and shown.ranks == {"text": 1, "symbol": 1, "vector": 1}
    assert fuse({"text": text, "symbol": symbol, "vector": vector})[0].span == tail  # the best hit's


def test_a_result_shows_the_chunk_that_holds_the_query_not_an_overlapping_neighbour() -> None:
    """fastify's "getSchema is called": the dense retriever ranks the chunk after the one holding the
    test's message higher than the text retriever ranks that one; the two overlap, so they are one
    result, which shows the chunk that holds the words (line 1577), not its neighbour (1590-1639)."""
    holder, after = Span("schema.test.js", 1550, 1599), Span("schema.test.js", 1590, 1639)
    vector = [Hit(Span("a.js", 1, 9), 0.9), Hit(after, 0.8)]
    for marked in (Hit(holder, 2.0, exact=True), Hit(holder, 0.0, asked=2)):
        text = [Hit(Span(f"b{i}.js", 1, 9), 3.0) for i in range(3)] + [marked]
        (shown,) = [f for f in fuse({"text": text, "vector": vector}) if f.span.path == "schema.test.js"]
        assert shown.span == holder and shown.hit is marked and shown.ranks == {"text": 4, "vector": 2}
    # "getSchemas is called" as usages: the text retriever's first hit uses the name (1510-1559); the
    # chunk that holds the words, overlapping it, is what the result shows
    usage, words = (
        Hit(Span("schema.test.js", 1510, 1559), 3.0, exact=True),
        Hit(holder, 0.0, exact=True, asked=2),
    )
    (shown,) = fuse({"text": [usage, words]})
    assert shown.span == holder and shown.asked == 2 and shown.ranks == {"text": 1}
    unmarked = [Hit(Span(f"b{i}.js", 1, 9), 3.0) for i in range(3)] + [Hit(holder, 2.0)]
    (shown,) = [f for f in fuse({"text": unmarked, "vector": vector}) if f.span.path == "schema.test.js"]
    assert shown.span == after  # holding nothing verbatim: the best-ranked hit's, as before


def test_a_result_is_as_loose_as_its_closest_member_that_holds_the_query() -> None:
    """The text retriever grades how a place holds a phrase (``Hit.loose``: within a line, only across
    a line break, only as a format string it fills); a merged result takes its closest member's grade,
    and the symbol retriever's exact definition is not loose."""
    text = [Hit(A, 2.0, exact=True, loose=WRAPPED), Hit(Span("b.py", 3, 3), 1.0, exact=True, loose=FILLED)]
    symbol = [Hit(Span("b.py", 1, 9), 1.0, "check", exact=True)]
    by_span = {f.span.path: f for f in fuse({"text": text, "symbol": symbol})}
    assert by_span["a.py"].loose == WRAPPED and by_span["a.py"].exact
    assert by_span["b.py"].loose == VERBATIM
    mixed = [Hit(A, 2.0, exact=True, loose=FILLED), Hit(Span("a.py", 4, 4), 1.0, exact=True, loose=WRAPPED)]
    assert fuse({"text": mixed})[0].loose == WRAPPED
    assert fuse({"text": [Hit(A, 1.0, loose=FILLED)]})[0].loose == VERBATIM  # not exact: not a place


def test_a_result_carries_the_best_text_coverage_of_its_members() -> None:
    """``Fused.coverage``: the text retriever's best share of the query's term weight among a merged
    result's members; the other retrievers' hits (whose ``coverage`` is 1.0 by default) add none."""
    text = [Hit(Span("a.py", 1, 5), 3.0, coverage=0.25), Hit(Span("a.py", 4, 9), 2.0, coverage=0.5)]
    vector = [Hit(B, 0.9), Hit(A, 0.8)]
    by_path = {f.span.path: f for f in fuse({"text": text, "vector": vector})}
    assert by_path["a.py"].coverage == 0.5
    assert by_path["b.py"].coverage == 0.0


def test_weighted_fusion_uses_weights_per_retriever() -> None:
    fused = fuse({"text": [Hit(A, 1.0)], "vector": [Hit(B, 1.0)]}, weights={"text": 0.5, "vector": 2.0})
    assert [f.span for f in fused] == [B, A]
    assert fused[0].score == pytest.approx(2.0 / 61)
    assert fused[1].score == pytest.approx(0.5 / 61)


spans = st.builds(Span, st.sampled_from(["a", "b", "c", "d"]), st.integers(1, 50), st.integers(0, 0)).map(
    lambda s: Span(s.path, s.start_line, s.start_line + 3)
)


@given(st.lists(st.lists(spans, max_size=8), min_size=1, max_size=4), st.integers(1, 100))
def test_rrf_properties(rankings: list[list[Span]], k: int) -> None:
    fused = rrf(rankings, k=k)
    scores = [s for _, s in fused]
    assert scores == sorted(scores, reverse=True)
    assert {s for s, _ in fused} == {s for r in rankings for s in r}
    assert all(0 < s <= len(rankings) / (k + 1) + 1e-12 for s in scores)


@given(st.lists(st.lists(spans, max_size=8), min_size=1, max_size=3))
def test_fuse_never_returns_overlapping_results_from_one_file_cluster(rankings: list[list[Span]]) -> None:
    fused = fuse({f"r{i}": [Hit(s, 1.0) for s in r] for i, r in enumerate(rankings)})
    for f in fused:
        for name, r in f.ranks.items():
            assert r is None or 1 <= r <= len(rankings[int(name[1:])])


def _hit(path: str, line: int, *, exact: bool = False, coverage: float = 1.0) -> Hit:
    return Hit(Span(path, line, line + 2), 1.0, exact=exact, coverage=coverage)


def test_fusion_weights_follow_the_query_shape_and_text_coverage() -> None:
    sentence = analyse("retry failed uploads after a delay")
    kind, w = fusion_weights(
        sentence, {"text": [_hit("a.py", 1, coverage=0.25), _hit("b.py", 1, coverage=0.5)]}
    )
    assert kind == "natural"
    assert w["text"] == pytest.approx(WEIGHTS["natural"]["text"] * 0.5)  # best coverage of the first hits
    assert w["symbol"] == WEIGHTS["natural"]["symbol"] and w["vector"] == WEIGHTS["natural"]["vector"]
    assert fusion_weights(sentence, {})[1]["text"] == 0.0  # no lexical evidence at all
    kind, w = fusion_weights(analyse("where does UploadSession retry"), {"text": [_hit("a.py", 1)]})
    assert kind == "natural" and w["symbol"] == NATURAL_IDENTIFIER_SYMBOL
    kind, w = fusion_weights(sentence, {"text": [_hit("a.py", 1, exact=True)]})
    # The whole sentence occurs verbatim: fused as a literal, but its plain words that name a
    # definition stay the weak evidence they are in any sentence (0.05, not the literal's 0.5).
    assert kind == "literal" and w == {**WEIGHTS["literal"], "symbol": WEIGHTS["natural"]["symbol"]}
    assert w["symbol"] == 0.05 and WEIGHTS["literal"]["symbol"] == 0.5
    named = analyse("where does UploadSession retry")
    kind, w = fusion_weights(named, {"text": [_hit("a.py", 1, exact=True)]})
    assert kind == "literal" and w["symbol"] == NATURAL_IDENTIFIER_SYMBOL  # a name of its own counts
    assert fusion_weights(analyse("UploadSession"), {})[0] == "identifier"
    documented = analyse("Return the current item.")  # a sentence that documents one function
    assert documented.form == "function" and sentence.form == "area"
    evidence = {"text": [_hit("a.py", 1, coverage=0.6)]}
    kind, w = fusion_weights(documented, evidence)
    # Every sentence, a topic or one function's documentation: the text retriever counts as much as
    # the dense one times the share of the query its best hits match.
    assert kind == "natural" and w["text"] == pytest.approx(WEIGHTS["natural"]["vector"] * 0.6)
    assert w["vector"] == WEIGHTS["natural"]["vector"]
    assert fusion_weights(sentence, evidence) == (kind, w)
    # With the fast tier's vectors a sentence's dense leg counts less; other shapes are unchanged.
    assert fusion_weights(sentence, evidence, "fast")[1]["vector"] == FAST_TIER_SENTENCE_VECTOR == 0.5
    assert fusion_weights(sentence, evidence, "full") == fusion_weights(sentence, evidence)
    assert fusion_weights(analyse("UploadSession"), {}, "fast")[1] == WEIGHTS["identifier"]
    assert analyse("$ZodType").shape == analyse("$this->db").shape == "identifier"  # $ is part of a name


def test_a_function_sentence_counts_the_definitions_of_the_names_it_mentions_only_where_it_opens_with_one() -> (
    None
):
    """ "Convenience method to get this element as a JsonNull." documents ``getAsJsonNull``: the class
    it names is what the method returns, and the symbol leg's definition of it counts as little as a
    plain sentence's. "BindJSON is a shortcut for …" opens with its name: that definition counts."""
    evidence = {"text": [_hit("a.py", 1, coverage=0.6)]}
    mentions = analyse("Convenience method to get this element as a JsonNull.")
    assert mentions.form == "function" and mentions.identifiers == ("JsonNull",)
    assert not mentions.opens_with_name
    assert fusion_weights(mentions, evidence)[1]["symbol"] == WEIGHTS["natural"]["symbol"] == 0.05
    opens = analyse("BindJSON is a shortcut for c.MustBindWith(obj, binding.JSON).")
    assert opens.opens_with_name
    assert fusion_weights(opens, evidence)[1]["symbol"] == NATURAL_IDENTIFIER_SYMBOL
    topic = analyse("how JsonNull is serialised")  # a topic naming a class asks about it
    assert (
        topic.form != "function" and fusion_weights(topic, evidence)[1]["symbol"] == NATURAL_IDENTIFIER_SYMBOL
    )
    # a test's claim ("… works with kw_only=True.") names the code under test, which is what the claim
    # is about: the test that makes it is asked for, and the name's definitions count as little
    claim = analyse("Having two fields works with kw_only=True.")
    assert claim.form != "function" and claim.identifiers == ("kw_only",) and claim.tests_claim
    assert fusion_weights(claim, evidence)[1]["symbol"] == WEIGHTS["natural"]["symbol"]


def _dense(*cosines: float) -> list[Hit]:
    return [Hit(Span(f"d{n}.py", 1, 5), c) for n, c in enumerate(cosines)]


def test_a_dense_leg_whose_first_hit_stands_out_little_counts_less_for_a_function_sentence() -> None:
    documented = analyse("Return the current item.")
    text = [_hit("a.py", 1, coverage=0.5)]
    full = WEIGHTS["natural"]["vector"]
    flat = _dense(0.52, *[0.50] * 8, 0.49)  # the first only 0.03 nearer than the tenth
    steep = _dense(0.70, *[0.55] * 8, 0.50)  # 0.20 nearer: at or above the margin
    w = fusion_weights(documented, {"text": text, "vector": flat}, dense_margin=0.15)[1]
    assert w["vector"] == pytest.approx(full * 0.03 / 0.15)
    assert w["text"] == pytest.approx(WEIGHTS["natural"]["text"] * 0.5)  # the text leg as ever
    assert fusion_weights(documented, {"text": text, "vector": steep}, dense_margin=0.15)[1]["vector"] == full
    # off (0), fewer than ten dense hits (a narrow scope), a fast tier's or a re-ranked handful of
    # candidates, a topic: the weight as before
    assert fusion_weights(documented, {"text": text, "vector": flat})[1]["vector"] == full
    assert (
        fusion_weights(documented, {"text": text, "vector": flat[:9]}, dense_margin=0.15)[1]["vector"] == full
    )
    fast = fusion_weights(documented, {"text": text, "vector": flat}, "fast", dense_margin=0.15)[1]
    assert fast["vector"] == FAST_TIER_SENTENCE_VECTOR
    reranked = fusion_weights(documented, {"text": text, "vector": flat}, RERANKED, dense_margin=0.15)[1]
    assert reranked["vector"] == full
    topic = analyse("how are uploads retried")
    assert topic.form != "function"
    assert fusion_weights(topic, {"text": text, "vector": flat}, dense_margin=0.15)[1]["vector"] == full
    assert RankingConfig().dense_margin == 0.15
    note = _dense_note(documented, {"text": text, "vector": flat}, None, 0.15)
    assert note == [
        "the dense retriever's first hit stands out from its tenth by 0.030 in cosine (margin 0.15): "
        "its ranks count ×0.20"
    ]
    assert _dense_note(documented, {"text": text, "vector": steep}, None, 0.15) == []  # nothing lowered
    assert _dense_note(topic, {"text": text, "vector": flat}, None, 0.15) == []
    assert analyse("$").shape == analyse("$1").shape == "natural"


def test_exact_results_come_first_in_the_order_of_the_retriever_that_verified_them() -> None:
    D = Span("d.py", 1, 10)
    text = [Hit(B, 3.0, None, None, None, exact=True), Hit(A, 2.0, None, None, None, exact=True)]
    vector = [Hit(C, 0.9, None, None, None), Hit(A, 0.8, None, None, None), Hit(D, 0.7, None, None, None)]
    fused = fuse({"text": text, "vector": vector}, weights=WEIGHTS["literal"])
    assert [f.span for f in fused][:2] == [A, B]  # the vector's vote lifts A above B
    only_tiers = RankingConfig(coherence=0, definition=0, path=0, saturation=1.0)
    by_literal = [r.fused for r in rank(fused, analyse('"x"'), only_tiers)]
    assert [f.span for f in by_literal] == [B, A, C, D]  # verbatim holders in ripgrep's order, then the rest
    # Two definitions of one name: the text and vector retrievers prefer the second, whose chunk mentions
    # the name more; the symbol index ranks the first definition first, and its order is kept.
    symbol = [
        Hit(B, 1.0, "Set.size", "method", None, exact=True),
        Hit(A, 1.0, "Map.size", "method", None, exact=True),
    ]
    text = [Hit(A, 2.0, None, None, None), Hit(C, 1.5, None, None, None), Hit(B, 1.0, None, None, None)]
    vector = [Hit(A, 0.9, None, None, None), Hit(D, 0.8, None, None, None)]
    fused = fuse({"text": text, "symbol": symbol, "vector": vector}, weights=WEIGHTS["identifier"])
    assert [f.span for f in fused][:2] == [A, B]
    by_identifier = [r.fused for r in rank(fused, analyse("size"), only_tiers)]
    assert [f.span for f in by_identifier] == [B, A, C, D]  # definitions in the symbol index's order
