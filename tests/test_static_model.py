"""The static model of the fast tier (issue 16): the table trained on code that plait ships for the
packaged teacher (recipe 2), the table distilled here for any other teacher (recipe 1), both loaded
offline and good enough to rank a paraphrase first; and the trained recipe's steps.

The module fixture loads the fast tier as ``plait index`` does, from the user cache directory: the
first run on a machine unpacks the shipped table there, later runs find it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

import models.static
from indexer.embedding import tier_config
from models import DEFAULT_MODEL, ModelConfig, load_embedder, resolve_model_path
from models.errors import ModelError
from models.loader import LazyEmbedder
from models.resolve import weights_fingerprint
from models.static import (
    DIMENSIONS,
    RECIPE_VERSION,
    SHIPPED_TABLE,
    STATIC_MAX_TOKENS,
    TRAINED_RECIPE,
    StaticEncoder,
    _pca,
    ensure_static,
    recipe_for,
    shipped_info,
    shipped_key,
    sif_weights,
)
from models.static_fit import fit, pack, reduce, write_static_table

pytestmark = pytest.mark.timeout(900)
REPO = Path(__file__).resolve().parents[1]

CODE = [
    "def add_user(name: str) -> User:\n    user = User(name)\n    db.session.add(user)\n    return user",
    "class RetryPolicy:\n    def backoff(self, attempt):\n        return min(2 ** attempt, 60)",
    "for line in open(path):\n    if pattern.search(line):\n        print(line)",
]
QUERIES = [
    "create a new user and store it",
    "exponential backoff between retries",
    "print matching lines of a file",
]


@pytest.fixture(scope="module")
def fast() -> LazyEmbedder:
    embedder = load_embedder(tier_config(ModelConfig(), "fast"))
    embedder.load()  # unpacks the shipped table into the user cache on the first run on this machine
    return embedder


def test_the_fast_tier_is_the_static_model_on_128_tokens() -> None:
    config = tier_config(ModelConfig(), "fast")
    assert (config.backend, config.max_seq_length) == ("static", STATIC_MAX_TOKENS)
    embedder = load_embedder(config)
    assert f"/static-v2-{shipped_key()}/d{DIMENSIONS}/seq128" in embedder.model_id
    assert embedder.dimension == DIMENSIONS
    assert tier_config(ModelConfig(), "full") == ModelConfig()


def test_static_vectors_are_unit_length_and_rank_each_query_to_its_code(fast: LazyEmbedder) -> None:
    docs = fast.embed_documents([*CODE, "", "x" * 100_000])
    assert docs.shape == (5, DIMENSIONS) and docs.dtype == np.float32
    assert np.allclose(np.linalg.norm(docs[:3], axis=1), 1.0, atol=1e-5)
    assert not np.isnan(docs).any()  # an empty text is a zero vector, not NaN
    queries = np.stack([fast.embed_query(q) for q in QUERIES])
    assert (np.argmax(queries @ docs[:3].T, axis=1) == np.arange(3)).all()
    one_by_one = np.concatenate([fast.embed_documents([t]) for t in CODE])
    assert np.allclose(one_by_one, docs[:3], atol=1e-6)  # a text's vector does not depend on its batch


def test_a_static_vector_is_the_mean_of_its_tokens_rows(fast: LazyEmbedder) -> None:
    encoder = fast._encoder
    assert isinstance(encoder, StaticEncoder)
    texts = [*CODE, "", "retry " * 400, "ünïcödé façade"]
    got = encoder.encode(texts)
    for text, row in zip(texts, got, strict=True):
        ids = encoder._tokenizer.encode(text[: encoder._max_chars], add_special_tokens=False).ids
        assert len(ids) <= STATIC_MAX_TOKENS
        want = encoder._table[ids].mean(axis=0) if ids else np.zeros(encoder.dimension, np.float32)
        assert np.allclose(row, want, atol=1e-6)


def test_a_text_tokenised_up_to_a_space_first_gives_the_ids_of_the_whole(fast: LazyEmbedder) -> None:
    # token_ids reads a text a stretch at a time, each cut before a whitespace, the next read only where
    # the stretches so far gave fewer than 128 tokens: the ids are those of the whole text, whatever it holds.
    encoder = fast._encoder
    assert isinstance(encoder, StaticEncoder)
    tokenizer, chars = encoder._tokenizer, encoder._max_chars
    assert models.static._prefix_exact_limit(tokenizer) == STATIC_MAX_TOKENS
    pieces = [
        "def retry_upload(session, attempts=3):", "\t", "\n", "  ", "x" * 130, "façade", "ünïcödé",
        "e\u0301", "数据库连接", "\x00\x1f", "\u00a0", "a.b->c(d, e);", "// TODO: fix", "🙂", "ﬁ", "İstanbul",
    ]  # fmt: skip
    rng = np.random.default_rng(7)
    texts = [
        "".join(pieces[k] + (" " if rng.random() < 0.6 else "") for k in rng.integers(0, len(pieces), n))
        for n in rng.integers(1, 400, 300)
    ]
    texts += ["word " * 300, "y" * 2000, "z" * 700 + " tail", "long_identifier_" * 60, *CODE]
    # Words of over 100 characters are one token each: such a text is read in many stretches.
    texts += [("w" * 120 + " ") * 9, ("v" * 101 + "\n") * 4 + "a b c " * 100, " " * 600 + "end", "\t" * 1500]
    got = models.static.token_ids(tokenizer, texts, chars)
    want = [tokenizer.encode(t[:chars], add_special_tokens=False).ids for t in texts]
    assert got == want
    assert any(len(t) > 640 and len(ids) < STATIC_MAX_TOKENS for t, ids in zip(texts, want, strict=True))
    assert any(len(t) > 640 and len(ids) == STATIC_MAX_TOKENS for t, ids in zip(texts, want, strict=True))


def test_a_batch_of_static_vectors_equals_each_text_alone_bit_for_bit(fast: LazyEmbedder) -> None:
    # Many texts are read in parts (the next tokenised on another thread) and texts of one token count
    # are summed together: each vector is still the sum of its text's rows in order, divided by their count.
    encoder = fast._encoder
    assert isinstance(encoder, StaticEncoder)
    rng = np.random.default_rng(5)
    words = ["retry", "upload", "session", "(", ")", "self", "error", "=", "checksum", "mismatch", "x" * 30]
    texts = [" ".join(rng.choice(words, n)) for n in rng.integers(0, 200, 2 * models.static._PART + 37)]
    texts += ["", "word " * 300, *CODE]
    got = encoder.encode(texts)
    ids = models.static.token_ids(encoder._tokenizer, texts, encoder._max_chars)
    assert len({len(i) for i in ids}) > 50 and sum(len(i) == STATIC_MAX_TOKENS for i in ids) > 100
    for row, text_ids in zip(got, ids, strict=True):
        want = (
            encoder._table[text_ids].sum(axis=0) / len(text_ids) if text_ids else np.zeros(encoder.dimension)
        )
        assert np.array_equal(row, want.astype(np.float32))
    assert np.array_equal(fast.embed_documents(texts[:3]), fast.embed_documents(texts)[:3])


def test_texts_the_twin_reads_without_a_normaliser_give_the_ids_of_the_tokenizer(fast: LazyEmbedder) -> None:
    # The twin reads ASCII texts (and ones with characters BERT's normaliser leaves alone, as the `·`
    # of every chunk's first line) that plait lower-cased and cleared of control characters itself;
    # every other text goes through the tokenizer with its normaliser. The ids are the same.
    encoder = fast._encoder
    assert isinstance(encoder, StaticEncoder)
    tokenizer, chars, twin = encoder._tokenizer, encoder._max_chars, encoder.twin()
    assert twin is not None and twin.tokenizer.normalizer is None
    inert = ["·", "—", "→", "“quoted”", "…", "©", "±", "×", "┌─┐"]
    other = ["Ünïcödé", "İstanbul", "数据库", "\u2003", "\u200b", "é", "ﬁ", "Σ"]
    pieces = [
        "def RetryUpload(Session, attempts=3):", "\t", "\n", "\r\n", "  ", "X" * 130, "HTTP_ERROR",
        "a\x0bb", "c\x0cd", "e\x7ff", "\x00", "\x1b[0m", "\x08", "#!/bin/SH", "a.b->C(d, e);", "0xDEADBEEF",
        *inert, *other,
    ]  # fmt: skip
    rng = np.random.default_rng(11)
    texts = [  # half of them without the characters the twin does not read
        "".join(
            pieces[k] + (" " if rng.random() < 0.5 else "")
            for k in rng.integers(0, len(pieces) - len(other) * (i % 2), n)
        )
        for i, n in enumerate(rng.integers(1, 300, 400))
    ]
    texts += ["WORD " * 300, "Y" * 2000, *CODE, "# src/app.py · Client.retry\ndef retry(self): ..."]
    assert all(twin.reads(c) for c in inert) and not any(twin.reads(c) for c in other)
    assert sum(twin.reads(t) for t in texts) > 100 and sum(not twin.reads(t) for t in texts) > 100
    want = [tokenizer.encode(t[:chars], add_special_tokens=False).ids for t in texts]
    assert models.static.token_ids(tokenizer, texts, chars, twin) == want
    assert (
        models.static.token_ids(tokenizer, [], chars, twin) == []
    )  # no texts: no ids (the trainer's empty corpus)
    for k in range(0, len(texts), 32):  # as a build calls it: a batch at a time, all read by one or mixed
        assert models.static.token_ids(tokenizer, texts[k : k + 32], chars, twin) == want[k : k + 32]


def test_a_tokenizer_whose_normaliser_keeps_case_has_no_twin(fast: LazyEmbedder) -> None:
    from tokenizers import Tokenizer, normalizers

    encoder = fast._encoder
    assert isinstance(encoder, StaticEncoder)
    cased = Tokenizer.from_str(encoder._tokenizer.to_str())
    cased.normalizer = normalizers.BertNormalizer(lowercase=False)
    assert models.static.Twin.of(cased) is None
    cased.normalizer = normalizers.Lowercase()
    assert models.static.Twin.of(cased) is None
    assert models.static.Twin.of(encoder._tokenizer) is not None


def test_the_fast_tier_loads_offline_in_a_fresh_process_without_torch(fast: LazyEmbedder) -> None:
    code = (
        "import json, sys\n"
        "from indexer.embedding import make_embedder, tier_config\n"
        "from models import ModelConfig\n"
        "e = make_embedder(tier_config(ModelConfig(), 'fast'))\n"
        "v = e.embed_documents(['def read_config(path):\\n    return toml.load(path)'])\n"
        "print(json.dumps({'id': e.model_id, 'shape': list(v.shape),\n"
        "                  'heavy': sorted(m for m in ('torch', 'transformers', 'onnxruntime') if m in sys.modules)}))\n"
    )
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out == {"id": fast.model_id, "shape": [1, DIMENSIONS], "heavy": []}


def test_the_recipe_is_deterministic_pca_signs_and_zipf_weights() -> None:
    rng = np.random.default_rng(0)
    matrix = rng.normal(size=(200, 12)) * np.linspace(3, 0.5, 12)
    order = rng.permutation(200)
    assert np.allclose(_pca(matrix, 4)[order], _pca(matrix[order], 4))  # no sign flips between runs
    projected = _pca(matrix, 4)
    assert np.allclose(projected.mean(axis=0), 0, atol=1e-9)
    assert (np.var(projected, axis=0)[:-1] >= np.var(projected, axis=0)[1:]).all()
    weights = sif_weights(1000)
    assert (np.diff(weights) > 0).all() and 0 < weights[0] < weights[-1] < 1  # frequent pieces weigh less


def test_the_shipped_table_is_for_the_packaged_teacher_and_unpacks_to_its_rows(tmp_path: Path) -> None:
    teacher = resolve_model_path(DEFAULT_MODEL)
    info = shipped_info()
    assert info is not None and SHIPPED_TABLE.stat().st_size < 10_000_000
    assert info["teacher"] == weights_fingerprint(teacher) and info["recipe"] == TRAINED_RECIPE
    assert (info["tokens"], info["dimensions"]) == (30522, DIMENSIONS)
    assert info["corpus"] == "peer suite, tuning half" and len(info["repos"]) == 20  # never the report half
    assert recipe_for(info["teacher"]) == TRAINED_RECIPE
    assert recipe_for("0123456789ab") == RECIPE_VERSION  # another teacher: distilled on first use
    assert recipe_for(info["teacher"], 128) == RECIPE_VERSION  # another width: likewise
    path = ensure_static(teacher, tmp_path / "static-v2", recipe=TRAINED_RECIPE)
    rows = np.load(path)
    with np.load(SHIPPED_TABLE) as shipped:
        assert np.array_equal(rows, shipped["codes"].astype(np.float32) * shipped["scales"][:, None])
    assert rows.dtype == np.float32 and json.loads((path.parent / "recipe.json").read_text()) == info


def test_without_a_shipped_table_the_fast_tier_is_the_distilled_recipe(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(models.static, "SHIPPED_TABLE", Path("/nonexistent/static.npz"))
    assert shipped_info() is None
    assert f"/static-v1/d{DIMENSIONS}/seq128" in load_embedder(tier_config(ModelConfig(), "fast")).model_id


def test_another_shipped_table_is_another_model(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A new table (a release, or static-train) gets a new model id and cache folder: its vectors never
    mix with the old table's in one index, and an old unpacked copy is never read for it."""
    copy = tmp_path / "static.npz"
    copy.write_bytes(SHIPPED_TABLE.read_bytes())
    monkeypatch.setattr(models.static, "SHIPPED_TABLE", copy)
    before = load_embedder(tier_config(ModelConfig(), "fast")).model_id
    with np.load(SHIPPED_TABLE) as pack:
        np.savez_compressed(
            copy, codes=pack["codes"][:, ::-1].copy(), scales=pack["scales"], info=pack["info"]
        )
    after = load_embedder(tier_config(ModelConfig(), "fast")).model_id
    assert before != after and f"/static-v2-{shipped_key()}/" in after
    assert before.replace(before.split("/")[1], "") == after.replace(after.split("/")[1], "")


def test_an_unreadable_shipped_table_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    broken = tmp_path / "static.npz"
    broken.write_bytes(b"not a zip")
    monkeypatch.setattr(models.static, "SHIPPED_TABLE", broken)
    with pytest.raises(ModelError, match="reinstall plait"):
        shipped_info()
    with pytest.raises(ModelError, match="reinstall plait"):
        ensure_static(resolve_model_path(DEFAULT_MODEL), tmp_path / "static-v2", recipe=TRAINED_RECIPE)
    assert not (tmp_path / "static-v2" / "embeddings.npy").exists()


def test_another_teacher_gets_a_table_distilled_on_first_use(tmp_path: Path) -> None:
    teacher = resolve_model_path(DEFAULT_MODEL)
    path = ensure_static(teacher, tmp_path / "static-v1", recipe=RECIPE_VERSION)  # about a minute
    assert json.loads((path.parent / "recipe.json").read_text())["recipe"] == RECIPE_VERSION
    encoder = StaticEncoder(teacher, path, max_seq_length=STATIC_MAX_TOKENS)
    docs, queries = encoder.encode(CODE), encoder.encode(QUERIES)
    cosines = (queries / np.linalg.norm(queries, axis=1, keepdims=True)) @ (
        docs / np.linalg.norm(docs, axis=1, keepdims=True)
    ).T
    assert (np.argmax(cosines, axis=1) == np.arange(3)).all()
    assert ensure_static(teacher, tmp_path / "static-v1", recipe=RECIPE_VERSION) == path  # built once


def _cosines(rows: np.ndarray, ids: list[list[int]], targets: np.ndarray) -> np.ndarray:
    means = np.stack([rows[t].mean(axis=0) for t in ids])
    return np.sum(means * targets, axis=1) / np.linalg.norm(means, axis=1) / np.linalg.norm(targets, axis=1)


def test_the_fit_moves_the_rows_of_the_corpus_tokens_towards_the_targets() -> None:
    rng = np.random.default_rng(1)
    truth = rng.normal(size=(12, 4)).astype(np.float32)  # tokens 0..9 occur, 10 and 11 never do
    ids = [list(rng.choice(10, size=rng.integers(1, 6))) for _ in range(300)]
    targets = np.stack([truth[t].mean(axis=0) for t in ids])
    start = rng.normal(size=(12, 4)).astype(np.float32)
    fitted = fit(ids, targets, start, epochs=40, learning_rate=0.05, batch=32, seed=3)
    before, after = _cosines(start, ids, targets), _cosines(fitted, ids, targets)
    assert before.mean() < 0.6 < 0.99 < after.mean()
    assert np.array_equal(fitted[10:], start[10:])  # rows the corpus never holds keep their start
    again = fit(ids, targets, start, epochs=40, learning_rate=0.05, batch=32, seed=3)
    assert np.array_equal(again, fitted)  # deterministic
    with pytest.raises(ModelError, match="do not fit together"):
        fit(ids[:5], targets, start)


def test_reduce_keeps_the_cosines_on_full_width_and_pack_rounds_to_a_half_step() -> None:
    rng = np.random.default_rng(2)
    rows = rng.normal(size=(50, 6)).astype(np.float32)
    ids = [list(rng.choice(50, size=4)) for _ in range(80)]
    same = reduce(rows, ids, dimensions=6)  # a rotation: every cosine between means is kept
    means, turned = (np.stack([m[t].mean(axis=0) for t in ids]) for m in (rows, same))
    unit = lambda m: m / np.linalg.norm(m, axis=1, keepdims=True)  # noqa: E731
    assert np.allclose(unit(means) @ unit(means).T, unit(turned) @ unit(turned).T, atol=1e-5)
    assert reduce(rows, ids, dimensions=3).shape == (50, 3)
    codes, scales = pack(rows)
    assert codes.dtype == np.int8 and np.abs(codes).max() == 127
    assert np.all(np.abs(codes * scales[:, None] - rows) <= scales[:, None] / 2 + 1e-7)


def test_a_written_table_names_its_teacher(tmp_path: Path) -> None:
    teacher = resolve_model_path(DEFAULT_MODEL)
    rows = np.random.default_rng(3).normal(size=(30522, 8)).astype(np.float32)
    path = write_static_table(rows, teacher, {"corpus": "test"}, tmp_path / "t.npz")
    with np.load(path) as pack_:
        info = json.loads(str(pack_["info"]))
        assert pack_["codes"].shape == (30522, 8)
    assert info["teacher"] == weights_fingerprint(teacher) and info["dimensions"] == 8
    assert info["recipe"] == TRAINED_RECIPE and info["corpus"] == "test"


def test_work_one_item_ahead_runs_on_another_thread_and_keeps_the_order() -> None:
    import threading

    from models import one_ahead

    caller = threading.get_ident()
    started: list[int] = []
    gate = threading.Event()

    def work(k: int) -> tuple[int, int]:
        started.append(k)
        if k == 1:
            assert gate.wait(10)  # item 1 runs while the caller still holds item 0
        return k * k, threading.get_ident()

    results = one_ahead(work, [0, 1, 2, 3])
    first, thread = next(results)
    assert first == 0 and thread != caller
    deadline = time.monotonic() + 10
    while 1 not in started and time.monotonic() < deadline:
        time.sleep(0.01)
    assert started[:2] == [0, 1]  # the next item began before the caller asked for it
    gate.set()
    assert [r for r, _ in results] == [1, 4, 9]
    assert list(one_ahead(work, [])) == []

    def failing(k: int) -> int:
        if k == 2:
            raise ValueError("bad item")
        return k

    got = one_ahead(failing, [0, 1, 2, 3])
    assert [next(got), next(got)] == [0, 1]
    with pytest.raises(ValueError, match="bad item"):
        next(got)  # raised where its result is taken


def test_work_one_item_ahead_takes_a_generators_next_item_while_the_work_runs() -> None:
    # A build's batches come from a generator that reads the next window of chunks: that read runs while
    # the batch before it is embedded, not after.
    from models import one_ahead

    taken: list[int] = []

    def items() -> Iterator[int]:
        for k in range(4):
            taken.append(k)
            yield k

    def work(k: int) -> tuple[int, int]:
        deadline = time.monotonic() + 10
        while k + 1 < 4 and len(taken) < k + 2 and time.monotonic() < deadline:
            time.sleep(0.001)  # the next item is taken while this one is worked on
        return k, len(taken)

    assert list(one_ahead(work, items())) == [(0, 2), (1, 3), (2, 4), (3, 4)]
    assert list(one_ahead(work, iter([]))) == []


def test_work_two_items_ahead_runs_two_at_once_and_keeps_the_order() -> None:
    # Worker processes are fed two batches at once: the second runs while the first does.
    import threading

    from models import one_ahead

    both = threading.Barrier(2, timeout=10)

    def work(k: int) -> int:
        if k < 2:
            both.wait()  # items 0 and 1 run together, or this raises
        return k * 10

    assert list(one_ahead(work, iter(range(5)), ahead=2)) == [0, 10, 20, 30, 40]
