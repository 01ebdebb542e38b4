"""The static model of the fast tier (issue 16): distilled here from the packaged teacher, loaded
offline, and good enough to rank a paraphrase first.

The module fixture loads the fast tier as ``plait index`` does, from the user cache directory: the
first run on a machine distils the table there (a few minutes), later runs find it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from indexer.embedding import tier_config
from models import ModelConfig, load_embedder
from models.loader import LazyEmbedder
from models.static import STATIC_MAX_TOKENS, StaticEncoder, _pca, _sif_weights

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
    embedder.load()  # distils into the user cache on the first run on this machine
    return embedder


def test_the_fast_tier_is_the_static_model_on_128_tokens() -> None:
    config = tier_config(ModelConfig(), "fast")
    assert (config.backend, config.max_seq_length) == ("static", STATIC_MAX_TOKENS)
    embedder = load_embedder(config)
    assert "/static-v1/d256/seq128" in embedder.model_id and embedder.dimension == 256
    assert tier_config(ModelConfig(), "full") == ModelConfig()


def test_static_vectors_are_unit_length_and_rank_each_query_to_its_code(fast: LazyEmbedder) -> None:
    docs = fast.embed_documents([*CODE, "", "x" * 100_000])
    assert docs.shape == (5, 256) and docs.dtype == np.float32
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
    assert out == {"id": fast.model_id, "shape": [1, 256], "heavy": []}


def test_the_recipe_is_deterministic_pca_signs_and_zipf_weights() -> None:
    rng = np.random.default_rng(0)
    matrix = rng.normal(size=(200, 12)) * np.linspace(3, 0.5, 12)
    order = rng.permutation(200)
    assert np.allclose(_pca(matrix, 4)[order], _pca(matrix[order], 4))  # no sign flips between runs
    projected = _pca(matrix, 4)
    assert np.allclose(projected.mean(axis=0), 0, atol=1e-9)
    assert (np.var(projected, axis=0)[:-1] >= np.var(projected, axis=0)[1:]).all()
    weights = _sif_weights(1000)
    assert (np.diff(weights) > 0).all() and 0 < weights[0] < weights[-1] < 1  # frequent pieces weigh less
