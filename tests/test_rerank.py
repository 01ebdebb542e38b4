"""The fast tier's sentences ranked by the full tier's model over a few candidates (search.engine.rerank).

The hashing embedder stands in for both tiers, as in tests/test_tiers.py: the fast tier is
``hashing-128``, the full one ``hashing`` (256), two models whose orders differ. Expected orders are
computed here from the chunks table's own texts, not from the code under test.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from indexer import Index, Settings, load_settings
from indexer.status import reranks
from models.base import Vectors
from models.hashing import HashingEmbedder
from search import Engine, Query
from search.engine.chunk_vectors import ChunkVectors
from search.engine.engine import RERANKED
from search.engine.query import analyse
from search.engine.ranking import RankingConfig
from search.engine.rerank import among_candidates, candidates
from search.types import Hit, Span

pytestmark = pytest.mark.timeout(120)

TOPICS = [
    ("parse_config", "Read the settings file and fill in defaults for missing keys."),
    ("retry_upload", "Send the file again after a short wait when the server drops it."),
    ("hash_password", "Derive a salted digest of the secret for storage."),
    ("render_template", "Fill the page layout with the values of the context."),
    ("open_socket", "Connect to the remote host and keep the connection alive."),
    ("rotate_logs", "Move the current log aside and start a new one every night."),
]
SENTENCE = "send the upload again when the connection drops"  # found verbatim nowhere


def workspace(tmp_path: Path) -> Settings:
    root = tmp_path / "repo"
    for n, (name, doc) in enumerate(TOPICS):
        body = f'def {name}(value):\n    """{doc}"""\n    return value + {n}\n\n\ndef helper_{n}():\n    return {n}\n'
        (root / "pkg" / f"m{n}.py").parent.mkdir(parents=True, exist_ok=True)
        (root / "pkg" / f"m{n}.py").write_text(body)
    settings = load_settings(
        root, env={}, overrides={"index_dir": str(tmp_path / "index"), "model_name": "hashing"}
    )
    Index(settings).build(tier="fast")
    return settings


def chunk_column(index: Index, column: str) -> dict[tuple[str, int, int], str]:
    """``column`` of each row of the chunks table, by (path, first line, last line)."""
    table = index.store.read("chunks", ["path", "start_line", "end_line", column]).to_pylist()
    return {(r["path"], r["start_line"], r["end_line"]): r[column] for r in table}


def chunk_texts_in_table(index: Index) -> dict[tuple[str, int, int], str]:
    return chunk_column(index, "text")


def full_model_cosines(index: Index, pool: Sequence[Hit]) -> dict[Span, float]:
    """By hand: the full model's (``hashing``, 256) cosine of each candidate's text, as the index holds
    it, to :data:`SENTENCE`."""
    full = HashingEmbedder(256)
    texts = chunk_texts_in_table(index)
    query = full.embed_query(SENTENCE)
    return {h.span: float(full.embed_documents([texts[h.span]])[0] @ query) for h in pool}


def test_a_sentence_in_the_fast_tier_is_ranked_by_the_full_model_over_its_candidates(tmp_path: Path) -> None:
    engine = Engine(workspace(tmp_path))
    try:
        searched = engine.index.search_tier()
        assert searched is not None and searched[0] == "fast"
        raw = engine.rankings(SENTENCE)
        assert raw["vector"] and raw["text"]
        pool = candidates(raw, engine.ranking.rerank_pool)
        assert len({h.span for h in pool}) == len(pool)  # each chunk once
        cosine = full_model_cosines(engine.index, pool)
        expected = sorted(pool, key=lambda h: (-cosine[h.span], h.span))

        reranked, tier = engine.rerank(analyse(SENTENCE), raw, "fast")
        assert tier == RERANKED  # one model's dense ranking: fused with the full tier's weights
        assert [h.span for h in reranked["vector"]] == [h.span for h in expected]
        assert [h.score for h in reranked["vector"]] == pytest.approx(
            [cosine[h.span] for h in expected], abs=1e-5
        )
        assert reranked["text"] == raw["text"] and reranked.get("symbol") == raw.get("symbol")
        static_order = [h.span for h in raw["vector"] if h.span in cosine]
        assert static_order != [h.span for h in expected]  # the two models disagree: the test can tell

        response = engine.search(Query(SENTENCE, limit=10, explain=True))
        assert "rerank" in response.timings_ms
        assert any("full model" in note for note in response.notes)
        position = {(h.span.path, h.span.start_line): n for n, h in enumerate(reranked["vector"], 1)}
        dense = [
            (r.path, r.start_line, r.sources["vector"]) for r in response.results if r.sources.get("vector")
        ]
        assert dense and all(position[(p, s)] == rank for p, s, rank in dense)
        again = engine.search(Query(SENTENCE, limit=10, explain=True))
        assert [(r.path, r.start_line, r.score) for r in again.results] == [
            (r.path, r.start_line, r.score) for r in response.results
        ]
    finally:
        engine.close()


@pytest.mark.parametrize(
    ("table", "on"),
    [
        ({}, True),
        ({"rerank_pool": 0}, True),
        ({"rerank_topic_pool": 0}, True),
        ({"rerank_pool": 0, "rerank_topic_pool": 0}, False),
        ({"enabled": False}, False),
        ({"enabled": False, "rerank_pool": 5}, False),
        ({"enabled": True, "rerank_pool": 5, "rerank_topic_pool": 0}, True),
    ],
)
def test_status_reads_the_rerank_settings_as_a_search_does(table: dict[str, object], on: bool) -> None:
    # ``plait status`` reads the raw table (indexer does not import search): the two readings agree
    assert reranks(table) is on
    assert RankingConfig.from_table(table).reranks is on


def test_a_topic_reranks_deeper_than_a_sentence_documenting_one_function(tmp_path: Path) -> None:
    settings = workspace(tmp_path)
    engine = Engine(dataclasses.replace(settings, ranking={"rerank_pool": 1, "rerank_topic_pool": 3}))
    topic = "upload retries when connections drop"  # no verb first, no period: a topic
    try:
        for text, form, depth in ((SENTENCE, "function", 1), (topic, "area", 3)):
            query = analyse(text)
            assert query.form == form
            raw = engine.rankings(text)
            reranked, tier = engine.rerank(query, raw, "fast")
            assert tier == RERANKED
            assert {h.span for h in reranked["vector"]} == {h.span for h in candidates(raw, depth)}
            assert len(candidates(raw, depth)) < len(candidates(raw, depth + 2))  # the depth tells
    finally:
        engine.close()
    topics_only = Engine(dataclasses.replace(settings, ranking={"rerank_pool": 0, "rerank_topic_pool": 3}))
    try:
        raw = topics_only.rankings(SENTENCE)
        assert topics_only.rerank(analyse(SENTENCE), raw, "fast") == (raw, "fast")  # 0: off for its kind
        assert topics_only.rerank(analyse(topic), topics_only.rankings(topic), "fast")[1] == RERANKED
    finally:
        topics_only.close()


def test_names_strings_verbatim_sentences_and_a_complete_full_tiers_topics_are_not_reranked(
    tmp_path: Path,
) -> None:
    settings = workspace(tmp_path)
    engine = Engine(settings)
    try:
        for text in ("retry_upload", '"salted digest"', "Derive a salted digest of the secret"):
            raw = engine.rankings(text)
            assert engine.rerank(analyse(text), raw, "fast") == (raw, "fast"), text
            assert "rerank" not in engine.search(Query(text)).timings_ms, text
    finally:
        engine.close()
    off = Engine(dataclasses.replace(settings, ranking={"rerank_pool": 0, "rerank_topic_pool": 0}))
    try:
        raw = off.rankings(SENTENCE)
        assert off.rerank(analyse(SENTENCE), raw, "fast") == (raw, "fast")
        assert "rerank" not in off.search(Query(SENTENCE)).timings_ms
    finally:
        off.close()
    Index(settings).build(tier="full")
    full = Engine(settings)
    topic = "upload retries when connections drop"
    try:
        searched = full.index.search_tier()
        assert searched is not None and searched[0] == "full"
        assert "rerank" not in full.search(Query(SENTENCE)).timings_ms  # no model runs at search time
        assert full.search(Query(SENTENCE, mode="semantic")).results  # the full tier's own dense leg
        raw = full.rankings(topic)
        assert analyse(topic).form == "area" and full.rerank(analyse(topic), raw, "full") == (raw, "full")
    finally:
        full.close()


def test_among_candidates_is_the_dense_order_of_the_candidates_then_those_it_did_not_return() -> None:
    def hit(name: str, score: float) -> Hit:
        return Hit(Span(f"{name}.py", 1, 9), score, name)

    a, b, c, d, e, f, g = "abcdefg"
    rankings = {
        "text": [hit(a, 9.0), hit(b, 8.0), hit(c, 7.0)],
        "vector": [hit(d, 0.9), hit(b, 0.8), hit(e, 0.7), hit(f, 0.6), hit(a, 0.5)],
        "symbol": [hit(g, 1.0)],
    }
    # By hand, each retriever's first two: a, b (text), d (dense; b again), g (symbols). The dense
    # order of those: d, b, a (e and f are no candidates); then g, which it did not return, at the
    # lowest cosine above it.
    got = among_candidates(rankings, 2)
    assert [(h.span.path, h.score) for h in got] == [
        ("d.py", 0.9),
        ("b.py", 0.8),
        ("a.py", 0.5),
        ("g.py", 0.5),
    ]
    assert got[3].symbol == "g"
    assert among_candidates({"text": [hit(a, 1.0)], "vector": []}, 3) == [hit(a, 0.0)]
    # each retriever's first 5 hold every hit: the dense order is kept whole, the text's third after it
    whole = among_candidates(rankings, 5)
    assert [h.span.path for h in whole] == ["d.py", "b.py", "e.py", "f.py", "a.py", "c.py", "g.py"]


def test_a_complete_full_tiers_function_sentence_fuses_the_dense_order_of_its_candidates(
    tmp_path: Path,
) -> None:
    settings = dataclasses.replace(workspace(tmp_path), ranking={"rerank_pool": 2})
    Index(settings).build(tier="full")
    engine = Engine(settings)
    try:
        query = analyse(SENTENCE)
        assert query.form == "function"
        raw = engine.rankings(SENTENCE)
        assert len(raw["vector"]) > engine.ranking.rerank_pool  # the whole index ranked: the cut tells
        restricted, tier = engine.rerank(query, raw, "full")
        assert tier == RERANKED  # fused as a fast tier's re-ranked sentence is (no dense margin)
        pool = {h.span for h in candidates(raw, engine.ranking.rerank_pool)}
        dense = [h.span for h in restricted["vector"]]
        assert set(dense) == pool and len(dense) < len(raw["vector"])
        in_order = [h.span for h in raw["vector"] if h.span in pool]
        assert dense[: len(in_order)] == in_order  # the dense leg's own order, nothing embedded
        assert restricted["text"] == raw["text"] and restricted.get("symbol") == raw.get("symbol")

        response = engine.search(Query(SENTENCE, limit=10, explain=True))
        assert "rerank" not in response.timings_ms
        assert any("dense retriever's order of the retrievers' first 2" in n for n in response.notes)
        position = {(h.span.path, h.span.start_line): n for n, h in enumerate(restricted["vector"], 1)}
        shown = [
            (r.path, r.start_line, r.sources["vector"]) for r in response.results if r.sources.get("vector")
        ]
        assert shown and all(position[(p, s)] == rank for p, s, rank in shown)
    finally:
        engine.close()
    off = Engine(dataclasses.replace(settings, ranking={"rerank_pool": 2, "dense_among_candidates": False}))
    try:
        raw = off.rankings(SENTENCE)
        assert off.rerank(analyse(SENTENCE), raw, "full") == (raw, "full")
        assert not any("candidates" in n for n in off.search(Query(SENTENCE, explain=True)).notes)
    finally:
        off.close()


class CountingEmbedder(HashingEmbedder):
    def __init__(self, dimension: int) -> None:
        super().__init__(dimension)
        self.embedded: list[str] = []

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        self.embedded += texts
        return super().embed_documents(texts)


def test_chunk_vectors_embed_a_text_once_within_the_budget_and_the_capacity() -> None:
    embedder = CountingEmbedder(64)
    memo = ChunkVectors(capacity=4)
    texts = [("h1", "alpha beta"), ("h2", "gamma delta"), ("h1", "alpha beta"), ("h3", "epsilon")]
    first = memo.of(embedder, texts, budget=2)
    assert set(first) == {"h1", "h2"} and embedder.embedded == ["alpha beta", "gamma delta"]
    assert np.allclose(first["h1"], HashingEmbedder(64).embed_documents(["alpha beta"])[0])
    second = memo.of(embedder, texts)
    assert set(second) == {"h1", "h2", "h3"} and embedder.embedded[2:] == ["epsilon"]  # the rest only
    memo.of(embedder, [("h4", "zeta"), ("h5", "eta")])  # past the capacity: started afresh
    assert set(memo.of(embedder, [("h1", "alpha beta")], budget=0)) == set()
    other = CountingEmbedder(32)  # another model: its own vectors
    assert memo.of(other, [("h5", "eta")])["h5"].shape == (32,)


def test_what_the_full_tiers_build_embedded_is_read_not_embedded_again(tmp_path: Path) -> None:
    """Half the chunks embedded by a full-tier upgrade (as a server's background build does): the
    re-rank reads those candidates' vectors from the full tier's cache, embeds only the others, and
    ranks exactly as if it had embedded them all."""
    settings = workspace(tmp_path)
    chunks = Index(settings).store.read("chunks", ["content_hash"]).num_rows
    Index(settings).upgrade("full", limit=chunks // 2)
    engine = Engine(settings)
    try:
        assert engine.index.search_tier()[0] == "fast"  # type: ignore[index]  # still incomplete
        raw = engine.rankings(SENTENCE)
        pool = candidates(raw, engine.ranking.rerank_pool)
        hashes = chunk_column(engine.index, "content_hash")
        wanted = [hashes[h.span] for h in pool]
        stored = engine.index.stored_vectors("full", wanted)
        assert 0 < len(stored) < len(set(wanted))  # some candidates embedded by the build, not all

        counting = CountingEmbedder(256)  # the full tier's model (hashing, 256), counting its texts
        engine.index._embedder = counting
        reranked, tier = engine.rerank(analyse(SENTENCE), raw, "fast")
        assert tier == RERANKED and len(counting.embedded) == len(set(wanted)) - len(stored)
        cosine = full_model_cosines(engine.index, pool)
        assert [h.span for h in reranked["vector"]] == [
            h.span for h in sorted(pool, key=lambda h: (-cosine[h.span], h.span))
        ]
        assert engine.index.stored_vectors("fast", wanted) == {}  # the fast tier keeps no cache
    finally:
        engine.close()


def test_chunk_texts_are_the_indexed_texts_read_beneath_the_root(tmp_path: Path) -> None:
    settings = workspace(tmp_path)
    index = Index(settings)
    table = chunk_texts_in_table(index)
    assert index.chunk_texts(table) == table  # header, scope and lines, as the chunker made them
    victim = sorted(table)[0]
    outside = tmp_path / "outside.py"
    outside.write_text(Path(settings.root, victim[0]).read_text())
    os.unlink(Path(settings.root, victim[0]))
    os.symlink(outside, Path(settings.root, victim[0]))  # swapped for a link out of the root
    fifo = sorted(table)[-1]
    os.unlink(Path(settings.root, fifo[0]))
    os.mkfifo(Path(settings.root, fifo[0]))  # would hang a reader that opened it
    read = index.chunk_texts(table)
    assert victim not in read and fifo not in read
    assert {k: v for k, v in table.items() if k[0] not in (victim[0], fifo[0])} == read
    assert index.chunk_texts(()) == {}


def test_a_full_tiers_dense_order_of_the_candidates_reads_the_dense_hits_of_the_pool_only(
    tmp_path: Path,
) -> None:
    """A search for more results asks the dense leg for more hits; the candidates' dense order is
    read from the hits within the ranking's pool all the same, so the longer search ranks its first
    results as the shorter one does: ``a``, the dense leg's fifth, is beyond a pool of three and
    follows ``b`` in the text retriever's order whatever the dense leg returned."""

    def hit(name: str) -> Hit:
        return Hit(Span(f"{name}.py", 1, 9), 1.0, name)

    engine = Engine(dataclasses.replace(workspace(tmp_path), ranking={"pool": 3, "rerank_pool": 2}))
    try:
        query = analyse(SENTENCE)
        text = [hit("b"), hit("a")]
        short = {"text": text, "vector": [hit("d"), hit("e"), hit("f")]}
        long = {"text": text, "vector": [hit("d"), hit("e"), hit("f"), hit("g"), hit("a")]}
        orders = [[h.span.path for h in engine.rerank(query, r, "full")[0]["vector"]] for r in (short, long)]
        assert orders[0] == orders[1] == ["d.py", "e.py", "b.py", "a.py"]
    finally:
        engine.close()
