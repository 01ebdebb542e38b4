"""The static tier's texts read by their word pieces, and its large batches embedded by worker
processes (issue 16): the same ids and the same vectors, bit for bit, as the tokenizer's and as this
process's own."""

from __future__ import annotations

import os
from concurrent.futures.process import BrokenProcessPool

import numpy as np
import pytest

import models.static
from indexer.embedding import tier_config
from indexer.parent_watch import watched_pool
from indexer.vector_build import _spread
from models import ModelConfig, embed_in_background, load_embedder
from models.loader import LazyEmbedder
from models.static import STATIC_MAX_TOKENS, StaticEncoder, Twin
from models.word_pieces import WordPieces

pytestmark = pytest.mark.timeout(600)


@pytest.fixture(scope="module")
def fast() -> LazyEmbedder:
    embedder = load_embedder(tier_config(ModelConfig(), "fast"))
    embedder.load()
    return embedder


def _encoder(fast: LazyEmbedder) -> StaticEncoder:
    encoder = fast.load()
    assert isinstance(encoder, StaticEncoder)
    return encoder


def _twin(fast: LazyEmbedder) -> Twin:
    twin = _encoder(fast).twin()
    assert twin is not None and twin.pieces is not None
    return twin


def _code_texts(seed: int, count: int) -> list[str]:
    """Texts of code pieces, punctuation, whitespace runs, the characters the twin reads beside ASCII,
    words of over WordPiece's 100 characters (one unknown token each) and repeated identifiers."""
    pieces = [
        "def retry_upload(session, attempts=3):", "\t", "\n", "\r\n", "   ", "x" * 130, "HTTP_ERROR", "0xdeadbeef",
        "a.b->c(d, e);", "// todo: fix", "#include <linux/kernel.h>", "dev_err(&pdev->dev, \"failed\\n\");",
        "·", "—", "→", "“quoted”", "…", "©", "±", "×", "┌─┐", "$var", "`tick`", "~", "{}[]", "==>",
        "snake_case_name", "camelCaseName", "12345", "3.14e-10", "@decorator", "#[derive(Debug)]", "y" * 99,
    ]  # fmt: skip
    rng = np.random.default_rng(seed)
    return [
        "".join(pieces[k] + (" " if rng.random() < 0.5 else "") for k in rng.integers(0, len(pieces), n))
        for n in rng.integers(1, 300, count)
    ]


def test_word_pieces_give_the_ids_of_the_tokenizer(fast: LazyEmbedder) -> None:
    twin = _twin(fast)
    pieces = twin.pieces
    assert pieces is not None
    texts = [twin.normalised(t) for t in _code_texts(3, 400)]
    texts += ["word " * 300, "z" * 2000, " " * 600 + "end", "\t" * 900, "", "((((((" * 100, "a_" * 400]
    want = [twin.tokenizer.encode(t, add_special_tokens=False).ids[:STATIC_MAX_TOKENS] for t in texts]
    assert any(len(w) == STATIC_MAX_TOKENS for w in want) and any(
        0 < len(w) < STATIC_MAX_TOKENS for w in want
    )
    unknown = twin.tokenizer.token_to_id("[UNK]")
    assert any(unknown in w for w in want)  # the words of over 100 characters
    for chars_per_token in (4, 1, 50):  # whatever the stretches
        assert pieces.ids(texts, STATIC_MAX_TOKENS, chars_per_token) == want
    assert pieces.ids(texts, 5, 4) == [w[:5] for w in want]
    assert pieces.ids([], STATIC_MAX_TOKENS, 4) == [] and pieces.ids([""], STATIC_MAX_TOKENS, 4) == [[]]


def test_a_full_table_of_pieces_still_gives_the_ids_of_the_tokenizer(fast: LazyEmbedder) -> None:
    twin = _twin(fast)
    texts = [twin.normalised(t) for t in _code_texts(4, 200)]
    small = WordPieces.of(
        twin.tokenizer, "\t\n\r" + "".join(map(chr, range(0x20, 0x7F))) + "·—→“”…©±×┌─┐", 16
    )
    assert small is not None
    want = [twin.tokenizer.encode(t, add_special_tokens=False).ids[:STATIC_MAX_TOKENS] for t in texts]
    assert small.ids(texts, STATIC_MAX_TOKENS, 4) == want
    assert small.ids(texts, STATIC_MAX_TOKENS, 4) == want  # read again past a full table
    assert len(small._table) == 16


def test_word_pieces_are_made_only_for_a_bert_wordpiece_tokenizer_without_a_normaliser(
    fast: LazyEmbedder,
) -> None:
    from tokenizers import Tokenizer, normalizers, pre_tokenizers

    twin = _twin(fast)
    ascii_chars = "".join(map(chr, range(0x20, 0x7F)))
    assert WordPieces.of(twin.tokenizer, ascii_chars) is not None
    assert WordPieces.of(_encoder(fast)._tokenizer, ascii_chars) is None  # it has BERT's normaliser
    # A space the pre-tokenizer cuts at and Arrow's whitespace split would not (an ideographic space).
    assert WordPieces.of(twin.tokenizer, ascii_chars + "\u3000") is None
    other = Tokenizer.from_str(twin.tokenizer.to_str())
    other.pre_tokenizer = pre_tokenizers.Whitespace()
    assert WordPieces.of(other, ascii_chars) is None
    other = Tokenizer.from_str(twin.tokenizer.to_str())
    other.normalizer = normalizers.Lowercase()
    assert WordPieces.of(other, ascii_chars) is None


def test_a_batch_embedded_by_worker_processes_is_the_same_bit_for_bit(fast: LazyEmbedder) -> None:
    encoder = _encoder(fast)
    texts = [*_code_texts(5, 2 * models.static._PART + 300), "Ünïcödé 数据库 text", "", *_code_texts(6, 40)]
    here = encoder.encode(texts)
    with watched_pool(2) as pool, fast.spread_over(pool):
        assert encoder.pool is pool
        spread = encoder.encode(texts)
    assert encoder.pool is None
    assert np.array_equal(here, spread)


def test_a_worker_that_died_leaves_its_batch_to_this_process(fast: LazyEmbedder) -> None:
    encoder = _encoder(fast)
    texts = _code_texts(7, models.static._PART + 500)
    here = encoder.encode(texts)
    with watched_pool(1) as pool, fast.spread_over(pool):
        with pytest.raises(BrokenProcessPool):
            pool.submit(os._exit, 1).result()
        assert np.array_equal(encoder.encode(texts), here)
        assert encoder.pool is None  # the rest of the build here too


def test_only_a_large_foreground_build_spreads_its_static_vectors(fast: LazyEmbedder) -> None:
    encoder = _encoder(fast)
    with _spread(fast, 100) as spread:
        assert not spread and encoder.pool is None  # too few chunks to pay for starting processes
    if len(os.sched_getaffinity(0)) > 1:
        with _spread(fast, 1_000_000) as spread:
            assert spread and encoder.pool is not None
    assert encoder.pool is None
    full = load_embedder(tier_config(ModelConfig(), "full"))
    with _spread(full, 1_000_000) as spread:
        assert not spread and not full.loaded  # the transformer keeps its own threads
    embed_in_background()
    try:
        with _spread(fast, 1_000_000) as spread:
            assert not spread and encoder.pool is None  # a server's build keeps to its lowered threads
    finally:
        embed_in_background(False)
