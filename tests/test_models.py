"""models: the offline default model, its backends, lazy loading, ids and the hashing embedder.

Tests marked ``model`` load the real all-MiniLM-L6-v2 (once per module for torch, once per
ONNX variant) on a handful of short texts.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

import models
from models import (
    DEFAULT_MODEL,
    Embedder,
    HashingEmbedder,
    ModelConfig,
    load_embedder,
    loader,
    resolve_model_path,
)
from models.bare_text import without_punctuation
from models.errors import ConfigError, ModelError
from models.loader import AUTO_CPU_BACKEND, LazyEmbedder, embed_in_length_batches
from models.priority import BACKGROUND_NICE, embed_in_background, foreground, lower_this_thread
from models.tokenize import encode_texts

REPO = Path(__file__).resolve().parents[1]

CODE = [
    "def add_user(name: str) -> User:\n    user = User(name)\n    db.session.add(user)\n    return user",
    "class RetryPolicy:\n    def backoff(self, attempt):\n        return min(2 ** attempt, 60)",
    "for line in open(path):\n    if pattern.search(line):\n        print(line)",
    "x",
    "",
]
QUERIES = ["create a new user and store it", "exponential backoff between retries"]


@pytest.fixture(scope="module")
def torch_embedder() -> LazyEmbedder:
    embedder = load_embedder(ModelConfig(backend="torch"))
    embedder.load()
    return embedder


@pytest.fixture(scope="module")
def onnx_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("model-cache")


def _cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.asarray((a * b).sum(axis=1))


# --- without the real model -------------------------------------------------------------------

LINUX_ONLY = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="per-thread nice values are Linux's"
)


def _nice(native_id: int) -> int:
    return os.getpriority(os.PRIO_PROCESS, native_id)


@LINUX_ONLY
def test_a_background_thread_lowers_its_own_priority_once_and_nothing_else() -> None:
    process = _nice(os.getpid())
    seen: list[tuple[bool, int, bool, int]] = []

    def work() -> None:
        tid = threading.get_native_id()
        first = lower_this_thread()
        after_first = _nice(tid)
        again = lower_this_thread()  # idempotent: not another step down
        seen.append((first, after_first, again, _nice(tid)))

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    want = min(19, process + BACKGROUND_NICE)
    assert seen == [(True, want, True, want)]
    assert _nice(threading.get_native_id()) == _nice(os.getpid()) == process  # the caller's own are untouched


def test_importing_models_and_reading_the_model_id_loads_no_ml_framework() -> None:
    code = (
        "import sys, models\n"
        "e = models.load_embedder(models.ModelConfig(backend='torch'))\n"
        "assert e.model_id and e.dimension == 384 and not e.loaded\n"
        "heavy = ('torch', 'sentence_transformers', 'transformers', 'onnxruntime', 'onnx')\n"
        "print(','.join(m for m in heavy if m in sys.modules))\n"
    )
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""


def test_public_api_is_declared_and_importable() -> None:
    assert set(models.__all__) >= {
        "Embedder",
        "ModelConfig",
        "load_embedder",
        "HashingEmbedder",
        "resolve_model_path",
        "DEFAULT_MODEL",
    }
    for name in models.__all__:
        assert getattr(models, name) is not None


def test_hashing_embedder_is_deterministic_normalised_and_an_embedder() -> None:
    embedder = HashingEmbedder(dimension=64)
    first = embedder.embed_documents(CODE)
    again = HashingEmbedder(dimension=64).embed_documents(CODE)
    assert isinstance(embedder, Embedder)
    assert embedder.model_id == "hashing-v1-64"
    assert first.shape == (len(CODE), 64) and first.dtype == np.float32
    np.testing.assert_array_equal(first, again)
    np.testing.assert_allclose(np.linalg.norm(first, axis=1), 1.0, rtol=1e-5)
    np.testing.assert_array_equal(embedder.embed_query(CODE[1]), first[1])


def test_hashing_embedder_relates_camel_and_snake_case_spellings() -> None:
    embedder = HashingEmbedder()
    camel, snake, other = embedder.embed_documents(["getUserName()", "get_user_name()", "parse_http_header"])
    assert float(camel @ snake) > float(camel @ other) + 0.2


def test_hashing_embedder_rejects_a_tiny_dimension() -> None:
    with pytest.raises(ValueError, match="dimension"):
        HashingEmbedder(dimension=2)


@pytest.mark.parametrize("special", [True, False])
def test_one_text_is_tokenised_as_in_a_batch_of_its_own(special: bool) -> None:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(Path(resolve_model_path(DEFAULT_MODEL)) / "tokenizer.json"))
    tokenizer.enable_truncation(max_length=16)
    tokenizer.enable_padding()  # as the ONNX backend sets it: a batch pads to its longest text
    texts = [*CODE, *QUERIES, "retry " * 40, "ünïcödé façade"]

    def fields(encoding: object) -> tuple[list[int], ...]:
        return tuple(getattr(encoding, f) for f in ("ids", "attention_mask", "type_ids"))

    for text in texts:  # the search's query: encode, on the calling thread
        (one,) = encode_texts(tokenizer, [text], add_special_tokens=special)
        (batch,) = tokenizer.encode_batch([text], add_special_tokens=special)
        assert fields(one) == fields(batch)
    together = encode_texts(tokenizer, texts, add_special_tokens=special)
    reference = tokenizer.encode_batch(texts, add_special_tokens=special)
    assert [fields(e) for e in together] == [fields(e) for e in reference]
    assert len(set(map(len, (e.ids for e in together)))) == 1  # padded to the longest


def test_length_batches_group_similar_lengths_and_restore_input_order() -> None:
    texts = ["ccc", "a", "bbbbb", "dd", "eeee"]
    seen: list[list[str]] = []

    def encode(batch: list[str]) -> np.ndarray:
        seen.append(list(batch))
        return np.array([[float(len(t)), 1.0] for t in batch], dtype=np.float32)

    out = embed_in_length_batches(texts, 2, encode)  # type: ignore[arg-type]
    assert seen == [["a", "dd"], ["ccc", "eeee"], ["bbbbb"]]
    assert out[:, 0].tolist() == [3.0, 1.0, 5.0, 2.0, 4.0]


def test_unknown_model_name_fails_fast_offline_with_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_network(*args: object, **kwargs: object) -> None:
        raise AssertionError("the model loader tried to reach the network")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    started = time.monotonic()
    with pytest.raises(ModelError) as caught:
        load_embedder(ModelConfig(name="acme/no-such-embedding-model"))
    assert time.monotonic() - started < 5
    message = str(caught.value)
    assert "not available offline" in message
    assert "local model directory" in message and DEFAULT_MODEL in message


def test_a_directory_without_a_model_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="holds no model"):
        resolve_model_path(str(tmp_path))


def test_the_default_name_resolves_to_the_packaged_copy() -> None:
    path = Path(resolve_model_path(DEFAULT_MODEL))
    assert (path / "model.safetensors").is_file()
    assert resolve_model_path(f"sentence-transformers/{DEFAULT_MODEL}") == str(path)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("backend", "tensorflow"),
        ("device", "tpu"),
        ("batch_size", 0),
        ("max_seq_length", 0),
        ("threads", 0),
        ("punctuation", "strip"),
    ],
)
def test_invalid_settings_are_config_errors(field: str, value: object) -> None:
    with pytest.raises(ConfigError, match=field):
        load_embedder(ModelConfig(**{field: value}))  # type: ignore[arg-type]


def test_model_id_names_weights_runtime_precision_and_length() -> None:
    ids = {
        b: load_embedder(ModelConfig(backend=b)).model_id
        for b in ("torch", "torch-bf16", "onnx", "onnx-int8")
    }
    assert re.fullmatch(r"all-MiniLM-L6-v2@[0-9a-f]{12}/torch/fp32/seq256", ids["torch"])
    assert ids["onnx-int8"].endswith("/int8/seq256") and "/onnx-v" in ids["onnx-int8"]
    assert len(set(ids.values())) == 4
    assert load_embedder(ModelConfig(backend="torch", max_seq_length=128)).model_id.endswith("/seq128")
    assert load_embedder(ModelConfig(backend="torch")).model_id == ids["torch"]  # stable


def test_prefixes_change_the_model_id() -> None:
    plain = load_embedder(ModelConfig(backend="torch")).model_id
    query = load_embedder(ModelConfig(backend="torch", query_prefix="query: ")).model_id
    document = load_embedder(ModelConfig(backend="torch", document_prefix="passage: ")).model_id
    assert len({plain, query, document}) == 3


def test_dropping_punctuation_is_another_vector_space_for_the_transformers_only() -> None:
    for backend in ("torch", "onnx-int8"):
        kept = load_embedder(ModelConfig(backend=backend)).model_id
        dropped = load_embedder(ModelConfig(backend=backend, punctuation="drop")).model_id
        assert dropped == kept + "/nopunct"
    static = ModelConfig(backend="static", max_seq_length=128)
    assert load_embedder(dataclasses.replace(static, punctuation="drop")).model_id == (
        load_embedder(static).model_id
    )


def test_without_punctuation_keeps_words_apart_and_leaves_other_characters() -> None:
    assert without_punctuation("self._retry(n + 1)  # über") == "self  retry n   1     über"
    assert without_punctuation("a::b->c") == "a  b  c"
    assert without_punctuation("plain words") == "plain words"
    every = "".join(chr(c) for c in range(0x21, 0x7F))
    assert "".join(without_punctuation(every).split()) == "".join(c for c in every if c.isalnum())


def test_concurrent_first_calls_load_the_model_once(monkeypatch: pytest.MonkeyPatch) -> None:
    builds: list[str] = []
    gate = threading.Barrier(8)

    class Fake:
        dimension = 384

        def encode(self, texts: Sequence[str]) -> np.ndarray:
            return np.ones((len(texts), 384), dtype=np.float32)

    def build(plan: object, config: ModelConfig, model_dir: str) -> Fake:
        builds.append(model_dir)
        return Fake()

    monkeypatch.setattr(loader, "_build_encoder", build)
    embedder = load_embedder(ModelConfig(backend="torch"))

    def first_call() -> np.ndarray:
        gate.wait(timeout=10)
        return embedder.embed_query("x")

    with ThreadPoolExecutor(8) as pool:
        vectors = list(pool.map(lambda _: first_call(), range(8)))
    assert len(builds) == 1 and embedder.loaded
    assert all(v.shape == (384,) for v in vectors)


def test_auto_backend_on_cpu_is_the_benchmarked_default() -> None:
    assert load_embedder(ModelConfig(backend="auto", device="cpu")).backend == AUTO_CPU_BACKEND


def test_auto_device_takes_torch_on_a_gpu_where_one_is_found_else_the_cpu() -> None:
    import torch

    auto = load_embedder(ModelConfig(backend="auto", device="auto"))
    if torch.cuda.is_available():
        assert (auto.device, auto.backend) == ("cuda", "torch")
    else:
        assert (auto.device, auto.backend) == ("cpu", AUTO_CPU_BACKEND)
    static = load_embedder(ModelConfig(backend="static", device="auto"))
    assert static.device == "cpu"  # a table lookup: nothing to gain from a GPU


# --- the real model ---------------------------------------------------------------------------


@pytest.mark.model
def test_default_model_gives_unit_float32_vectors_of_384(torch_embedder: LazyEmbedder) -> None:
    vectors = torch_embedder.embed_documents(CODE)
    assert torch_embedder.dimension == 384
    assert vectors.shape == (len(CODE), 384) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)
    assert torch_embedder.embed_documents([]).shape == (0, 384)


@pytest.mark.model
def test_a_paraphrase_ranks_above_unrelated_text(torch_embedder: LazyEmbedder) -> None:
    query = torch_embedder.embed_query("how do I read a file line by line")
    docs = torch_embedder.embed_documents(
        ["iterate over the lines of a text file", "the recipe needs two eggs and some flour"]
    )
    assert float(docs[0] @ query) > float(docs[1] @ query) + 0.2


@pytest.mark.model
def test_query_and_document_embeddings_of_one_text_agree(torch_embedder: LazyEmbedder) -> None:
    docs = torch_embedder.embed_documents(CODE + QUERIES)
    for i, text in enumerate(CODE + QUERIES):
        assert float(torch_embedder.embed_query(text) @ docs[i]) > 0.9999


@pytest.mark.model
def test_batching_by_length_gives_the_vectors_of_one_by_one(torch_embedder: LazyEmbedder) -> None:
    small = load_embedder(ModelConfig(backend="torch", batch_size=2))
    together = small.embed_documents(CODE)
    alone = np.stack([torch_embedder.embed_documents([t])[0] for t in CODE])
    assert _cosines(together, alone).min() > 0.9999


@pytest.mark.model
def test_onnx_fp32_matches_torch_and_reuses_its_export(
    torch_embedder: LazyEmbedder, onnx_cache: Path, caplog: pytest.LogCaptureFixture
) -> None:
    reference = torch_embedder.embed_documents(CODE + QUERIES)
    onnx = load_embedder(ModelConfig(backend="onnx", cache_dir=str(onnx_cache)))
    with caplog.at_level(logging.WARNING, logger="models.onnx_backend"):
        vectors = onnx.embed_documents(CODE + QUERIES)
    # The one-time export (tens of seconds) says so before it starts, at a level the CLI shows.
    told = [r for r in caplog.records if "exporting the embedding model to ONNX once" in r.getMessage()]
    assert len(told) == 1 and told[0].levelno == logging.WARNING
    assert _cosines(vectors, reference).min() > 0.999
    (exported,) = onnx_cache.glob("*/onnx-v*/model.onnx")
    stamp = exported.stat().st_mtime_ns
    caplog.clear()
    again = load_embedder(ModelConfig(backend="onnx", cache_dir=str(onnx_cache)))
    with caplog.at_level(logging.WARNING, logger="models.onnx_backend"):
        again.load()
    assert exported.stat().st_mtime_ns == stamp
    assert not [r for r in caplog.records if "exporting" in r.getMessage()]  # reused: nothing to say
    assert not list(onnx_cache.rglob("*.tmp"))


@pytest.mark.model
def test_onnx_int8_stays_close_to_torch_and_is_batch_independent(
    torch_embedder: LazyEmbedder, onnx_cache: Path
) -> None:
    texts = CODE + QUERIES
    reference = torch_embedder.embed_documents(texts)
    int8 = load_embedder(ModelConfig(backend="onnx-int8", cache_dir=str(onnx_cache)))
    vectors = int8.embed_documents(texts)
    cosines = _cosines(vectors, reference)
    assert cosines.mean() > 0.98 and cosines.min() > 0.95
    for i, text in enumerate(texts):
        assert float(int8.embed_query(text) @ vectors[i]) > 0.99999


@pytest.mark.model
def test_onnx_int8_is_quantized_from_a_graph_for_one_text_without_the_mask(onnx_cache: Path) -> None:
    import onnxruntime as ort
    from tokenizers import Tokenizer

    load_embedder(ModelConfig(backend="onnx", cache_dir=str(onnx_cache))).embed_query("made")
    load_embedder(ModelConfig(backend="onnx-int8", cache_dir=str(onnx_cache))).embed_query("made")
    (folder,) = onnx_cache.glob("*/onnx-v*")
    sessions = {
        name: ort.InferenceSession(str(folder / name), providers=["CPUExecutionProvider"])
        for name in ("model.onnx", "model-single.onnx", "model-int8.onnx")
    }
    inputs = {name: [i.name for i in s.get_inputs()] for name, s in sessions.items()}
    assert inputs["model.onnx"] == ["input_ids", "attention_mask", "token_type_ids"]
    assert inputs["model-single.onnx"] == inputs["model-int8.onnx"] == ["input_ids", "token_type_ids"]
    # For one unpadded text the graph without the mask computes what the masked one does.
    tokenizer = Tokenizer.from_file(str(Path(resolve_model_path(DEFAULT_MODEL)) / "tokenizer.json"))
    for text in [*CODE, *QUERIES]:
        ids = np.asarray([tokenizer.encode(text).ids], dtype=np.int64)
        types = np.zeros_like(ids)
        (masked,) = sessions["model.onnx"].run(
            None, {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": types}
        )
        (single,) = sessions["model-single.onnx"].run(None, {"input_ids": ids, "token_type_ids": types})
        assert float(masked[0] @ single[0]) > 0.99999


@pytest.mark.model
def test_onnx_int8_texts_run_side_by_side_give_the_vectors_of_one_thread(onnx_cache: Path) -> None:
    texts = CODE + QUERIES
    two = load_embedder(ModelConfig(backend="onnx-int8", cache_dir=str(onnx_cache), threads=2))
    one = load_embedder(ModelConfig(backend="onnx-int8", cache_dir=str(onnx_cache), threads=1))
    side_by_side = two.embed_documents(texts)
    assert np.array_equal(side_by_side, one.embed_documents(texts))
    assert np.array_equal(side_by_side, np.stack([one.embed_documents([t])[0] for t in texts]))


@pytest.mark.model
@LINUX_ONLY
def test_a_background_process_embeds_its_batches_at_lower_priority(onnx_cache: Path) -> None:
    config = ModelConfig(backend="onnx-int8", cache_dir=str(onnx_cache), threads=2)
    process = _nice(os.getpid())

    def embed_threads_nice(embedder: LazyEmbedder) -> set[int]:
        before = {t.native_id for t in threading.enumerate()}
        embedder.embed_documents(CODE + QUERIES)
        fresh = [
            t for t in threading.enumerate() if t.native_id not in before and t.name.startswith("plait-embed")
        ]
        assert fresh, "a batch of several texts runs on the encoder's threads"
        return {_nice(t.native_id) for t in fresh if t.native_id is not None}

    foreground = load_embedder(config)
    assert embed_threads_nice(foreground) == {process}  # `plait index`: full priority
    embed_in_background()
    try:
        background = load_embedder(config)
        assert embed_threads_nice(background) == {min(19, process + BACKGROUND_NICE)}
        # a query is one text, run on the searching thread itself: its priority is untouched
        assert background.embed_query(QUERIES[0]).shape == (384,)
        assert _nice(threading.get_native_id()) == process
        assert np.array_equal(background.embed_documents(CODE), foreground.embed_documents(CODE))
    finally:
        embed_in_background(False)


@LINUX_ONLY
@pytest.mark.model
def test_a_search_embeds_its_texts_at_full_priority_in_a_background_process(onnx_cache: Path) -> None:
    config = ModelConfig(backend="onnx-int8", cache_dir=str(onnx_cache), threads=2)
    process = _nice(os.getpid())
    embed_in_background()
    try:
        embedder = load_embedder(config)

        def started(embed: Callable[[], np.ndarray]) -> tuple[np.ndarray, set[int]]:
            before = {t.native_id for t in threading.enumerate()}
            vectors = embed()
            fresh = [t for t in threading.enumerate() if t.native_id not in before]
            assert fresh and all(t.name.startswith("plait-embed") for t in fresh)
            return vectors, {_nice(t.native_id) for t in fresh if t.native_id is not None}

        behind, build_nice = started(lambda: embedder.embed_documents(CODE))  # a build's batch
        with foreground():  # a search's: threads of its own, at the process's priority
            searched, search_nice = started(lambda: embedder.embed_documents(CODE + QUERIES))
        assert build_nice == {min(19, process + BACKGROUND_NICE)} and search_nice == {process}
        assert np.array_equal(searched[: len(CODE)], behind)  # the same vectors, whichever threads
    finally:
        embed_in_background(False)


@pytest.mark.model
def test_a_model_is_ready_when_it_needs_no_export_made_first(onnx_cache: Path, tmp_path: Path) -> None:
    fresh = load_embedder(ModelConfig(backend="onnx-int8", cache_dir=str(tmp_path)))
    assert not fresh.ready()  # its export would take half a minute: a search does not ask for it
    assert not list(tmp_path.rglob("*.onnx")) and not fresh.loaded
    load_embedder(ModelConfig(backend="onnx-int8", cache_dir=str(onnx_cache))).embed_query("made")
    exported = LazyEmbedder(
        ModelConfig(backend="onnx-int8", cache_dir=str(onnx_cache)), resolve_model_path(DEFAULT_MODEL)
    )
    assert exported.ready() and not exported.loaded
    assert not load_embedder(ModelConfig(backend="torch", cache_dir=str(tmp_path))).ready()  # torch to import
    assert load_embedder(ModelConfig(backend="static", cache_dir=str(tmp_path))).ready()
    assert HashingEmbedder(64).ready()


@pytest.mark.model
def test_dropped_punctuation_embeds_the_text_without_it_for_documents_and_queries(onnx_cache: Path) -> None:
    plain = load_embedder(ModelConfig(backend="onnx-int8", cache_dir=str(onnx_cache)))
    bare = load_embedder(ModelConfig(backend="onnx-int8", cache_dir=str(onnx_cache), punctuation="drop"))
    texts = CODE + QUERIES
    stripped = [without_punctuation(t) for t in texts]
    assert np.array_equal(bare.embed_documents(texts), plain.embed_documents(stripped))
    assert np.array_equal(bare.embed_query(CODE[1]), plain.embed_query(stripped[1]))
    assert not np.array_equal(bare.embed_documents(CODE[:1]), plain.embed_documents(CODE[:1]))


@pytest.mark.model
def test_torch_bf16_runs_under_autocast_on_its_device_and_stays_close_to_fp32() -> None:
    import torch

    for device in ["cpu", "cuda"] if torch.cuda.is_available() else ["cpu"]:
        fp32 = load_embedder(ModelConfig(backend="torch", device=device)).embed_documents(CODE + QUERIES)
        bf16 = load_embedder(ModelConfig(backend="torch-bf16", device=device)).embed_documents(CODE + QUERIES)
        assert _cosines(bf16, fp32).min() > 0.999, device
        assert not np.array_equal(bf16, fp32), (
            device
        )  # the pass ran in bf16 (on a GPU too, not fp32 unawares)
