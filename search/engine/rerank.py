"""The fast tier's sentences, ranked by the full tier's model over a few candidates.

The fast tier (a static token table, :mod:`indexer.embedding`) makes a workspace searchable in seconds
and holds its own on names, strings and the peer suite's queries, but it finds what a sentence
describes less often than the transformer (docstring MRR@10 over six corpora 0.440 against the full
tier's 0.496, BENCHMARKS §9). Until the full tier covers every chunk, a sentence's candidates, each
retriever's first ``[ranking] rerank_pool`` (text, symbols, static vectors: about 18 chunks for 10;
``rerank_topic_pool``, 25, for a topic or a question, which asks about an area whose places the
retrievers rank deeper), are embedded by the full tier's model while the search waits. The dense
ranking that fusion reads is then those candidates in the order of their cosine to the query under
that model: one model's ranking, fused with the full tier's weights. The texts embedded are the chunks
as the full tier embeds them (:meth:`indexer.Index.chunk_texts`), kept by content hash
(:mod:`search.engine.chunk_vectors`), so a chunk costs once per process and a later search of the same
code is cheap; what the full tier's build has embedded already (a server's background build, an
earlier one that was stopped) is read from its embedding cache instead (:meth:`indexer.Index.stored_vectors`:
tokio half built, a new sentence's search 554 → 375 ms p50). Over the six corpora: 0.502, the full
tier's figure; the peer suite's 39 repositories
0.868 → 0.876 (full tier 0.877); 0.2–0.8 s for a new sentence on two cores.

A complete full tier needs no model at search time, but its dense leg ranks the whole index, and a
sentence that documents one function gains by the same restriction (:func:`among_candidates`): the
dense leg's own order of those candidates, hybrid docstring MRR@10 over 31 corpora 0.5829 → 0.5919
(the fast tier, re-ranked: 0.5874). Topics and questions keep the whole-index order there (the peer
suite's tuning half: 0.8951 against 0.8936 restricted).

Not for a sentence found verbatim (its places come first by the phrase rule), nor for names, strings
and regexes, whose first places the verifier decides, nor when the full model would need a long wait
first (an export to make, torch to import: :meth:`models.Embedder.ready`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from indexer import sha256_hex
from models import Embedder
from search.engine.chunk_vectors import ChunkVectors
from search.types import Hit, Span

if TYPE_CHECKING:
    from indexer import Index

LEGS = ("text", "vector", "symbol")  # whose first candidates are re-ranked, in this order


def candidates(rankings: Mapping[str, Sequence[Hit]], depth: int) -> list[Hit]:
    """The first ``depth`` hits of each leg, each span once (the dense leg's hit where it has one: it
    names the chunk's definition)."""
    found: dict[Span, Hit] = {}
    for leg in LEGS:
        for hit in rankings.get(leg, ())[:depth]:
            if leg == "vector" or hit.span not in found:
                found[hit.span] = hit
    return list(found.values())


def among_candidates(rankings: Mapping[str, Sequence[Hit]], depth: int) -> list[Hit]:
    """The whole-index dense ranking of a full tier made into its order of the retrievers' first
    ``depth`` candidates (:func:`candidates`), as a fast tier's re-ranking orders them: the dense hits
    among them in their order, then the candidates it did not return, whose cosine is below that of
    every hit it returned, in the order :func:`candidates` lists them (text, dense, symbols), each
    scored with the lowest cosine above it."""
    pooled = candidates(rankings, depth)
    spans = {h.span for h in pooled}
    dense = [h for h in rankings.get("vector", ()) if h.span in spans]
    have = {h.span for h in dense}
    floor = dense[-1].score if dense else 0.0
    return dense + [Hit(h.span, floor, h.symbol, h.kind, h.language) for h in pooled if h.span not in have]


def rerank(
    text: str,
    hits: Sequence[Hit],
    index: Index,
    embedder: Embedder,
    memo: ChunkVectors,
) -> list[Hit]:
    """``hits`` ordered by the cosine of their chunks' texts to ``text`` under ``embedder``, best first
    (ties by span), each scored with its cosine; a hit whose file cannot be read is left out.

    Raises:
        ModelError: the model cannot be loaded or run.
    """
    texts = index.chunk_texts(h.span for h in hits)  # a span is its (path, first line, last line)
    hashed = {span: sha256_hex(text) for span, text in texts.items()}
    # What the full tier's build has embedded already (a server's background build, an earlier
    # interrupted one) is read from its cache, not embedded again.
    vectors = memo.of(
        embedder,
        [(hashed[span], texts[span]) for span in hashed],
        stored=lambda hashes: index.stored_vectors("full", hashes),
    )
    query = embedder.embed_query(text)
    scored = [
        (float(vectors[hashed[h.span]] @ query), h)
        for h in hits
        if h.span in hashed and hashed[h.span] in vectors
    ]
    scored.sort(key=lambda pair: (-pair[0], pair[1].span))
    return [Hit(h.span, score, h.symbol, h.kind, h.language) for score, h in scored]
