"""The trained recipe of the static model (recipe 2): fit a token table to its teacher on code.

The distilled table (:func:`models.static.distil`) sees each token alone, framed as ``[CLS] token
[SEP]``; what a token means inside code — ``async``, ``retry``, ``ctx``, ``##er`` — it never sees. This
recipe starts from that table and moves its rows so that, for each chunk of a training corpus, the
mean of the chunk's token rows (exactly what :class:`models.static.StaticEncoder` computes) points
where the teacher's own embedding of the chunk points:

1. **start**: the teacher's token vectors, centred, SIF-weighted (steps 1 and 3 of the distilling
   recipe; no PCA yet, so the rows live in the teacher's output space);
2. **fit**: minimise ``1 - cos(mean of the chunk's rows, teacher vector)`` over the corpus with sparse
   Adam (only the rows of a batch's tokens move; tokens the corpus never holds keep their start);
3. **reduce**: project the rows onto the first :data:`models.static.DIMENSIONS` principal axes of the
   corpus's fitted chunk vectors (uncentred: a cosine of means is what is ranked), a fixed sign per axis;
4. **pack**: each row as int8 with one float32 scale (a quarter of the size; no measurable loss).

The idea is tokenlearn's (a static model trained on a teacher's embeddings of a corpus, as the
potion models are made); this is a small re-derivation of it, with the corpus and the teacher
vectors the caller's: ``python -m benchmarks static-train`` fits on the chunks and full-tier vectors
of the peer suite's tuning half. torch is imported by :func:`fit` only.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from models.errors import ModelError
from models.resolve import weights_fingerprint
from models.static import (
    DIMENSIONS,
    SHIPPED_TABLE,
    STATIC_MAX_TOKENS,
    TRAINED_RECIPE,
    Twin,
    max_chars,
    principal_axes,
    sif_weights,
    static_tokenizer,
    teacher_token_vectors,
    token_ids,
)

#: The fit's settings, chosen on the peer suite's tuning half (two folds of ten repositories: trained
#: on one, scored on the other; BENCHMARKS.md §9).
EPOCHS = 6
LEARNING_RATE = 3e-3
BATCH = 128
SEED = 0


def static_token_ids(model_dir: str, texts: Sequence[str]) -> list[list[int]]:
    """Each text's token ids exactly as the fast tier's static model reads them."""
    tokenizer = static_tokenizer(model_dir, STATIC_MAX_TOKENS)
    return token_ids(tokenizer, texts, max_chars(STATIC_MAX_TOKENS), Twin.of(tokenizer))


def train_static_table(
    model_dir: str,
    ids: Sequence[Sequence[int]],
    targets: np.ndarray,
    *,
    epochs: int | None = None,
    on_epoch: Callable[[int, float], None] | None = None,
) -> np.ndarray:
    """Steps 1–3 for the teacher in ``model_dir``: the rows of a table that averages ``ids`` (from
    :func:`static_token_ids`) towards ``targets`` (the teacher's vectors of the same texts), in
    ``epochs`` passes (default :data:`EPOCHS`).

    Raises:
        ModelError: torch or the teacher cannot be loaded, or the inputs do not fit together.
    """
    passes = EPOCHS if epochs is None else epochs
    rows = fit(ids, targets, start_rows(model_dir), epochs=passes, on_epoch=on_epoch)
    return reduce(rows, ids)  # epochs=0: the distilled table, reduced on the corpus


@functools.lru_cache(maxsize=1)
def start_rows(model_dir: str) -> np.ndarray:
    """Step 1: the teacher's token vectors, centred and SIF-weighted (float32, vocabulary × hidden)."""
    vectors = teacher_token_vectors(model_dir)
    centred = vectors - vectors.mean(axis=0, dtype=np.float64)
    return np.asarray(centred * sif_weights(len(centred))[:, None], dtype=np.float32)


def fit(
    token_ids: Sequence[Sequence[int]],
    targets: np.ndarray,
    start: np.ndarray,
    *,
    epochs: int = EPOCHS,
    learning_rate: float = LEARNING_RATE,
    batch: int = BATCH,
    seed: int = SEED,
    on_epoch: Callable[[int, float], None] | None = None,
) -> np.ndarray:
    """Step 2: rows moved so that each text's mean row has the cosine of its target (deterministic
    for the same inputs, seed and torch build). Texts without tokens are skipped.

    Raises:
        ModelError: torch is missing, or the inputs disagree in length or width.
    """
    try:
        import torch
    except ImportError as exc:
        raise ModelError(f"training the static model needs torch: {exc}") from exc
    if len(token_ids) != len(targets) or targets.ndim != 2 or targets.shape[1] != start.shape[1]:
        raise ModelError(
            f"{len(token_ids)} texts, {targets.shape} targets and {start.shape} rows do not fit together"
        )
    torch.manual_seed(seed)
    kept = np.array([k for k, ids in enumerate(token_ids) if len(ids)], dtype=np.int64)
    ids = [np.asarray(t, dtype=np.int64) for t in token_ids]
    goal = torch.from_numpy(np.ascontiguousarray(targets, dtype=np.float32))
    table = torch.nn.EmbeddingBag(start.shape[0], start.shape[1], mode="mean", sparse=True)
    table.weight.data = torch.from_numpy(np.array(start, dtype=np.float32))
    optimiser = torch.optim.SparseAdam(list(table.parameters()), lr=learning_rate)
    for epoch in range(epochs):
        order = np.random.default_rng(seed + epoch).permutation(kept)
        total = 0.0
        for first in range(0, len(order), batch):
            chosen = order[first : first + batch]
            flat = torch.from_numpy(np.concatenate([ids[k] for k in chosen]))
            offsets = torch.from_numpy(np.cumsum([0] + [len(ids[k]) for k in chosen[:-1]]))
            means = table(flat, offsets)
            loss = (1 - torch.nn.functional.cosine_similarity(means, goal[chosen])).mean()
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            total += loss.item() * len(chosen)
        if on_epoch is not None:
            on_epoch(epoch, total / max(1, len(kept)))
    return table.weight.data.numpy().copy()


def reduce(rows: np.ndarray, token_ids: Sequence[Sequence[int]], dimensions: int = DIMENSIONS) -> np.ndarray:
    """Step 3: the rows on the first ``dimensions`` principal axes of the texts' mean rows."""
    means = np.stack([rows[np.asarray(t, dtype=np.int64)].mean(axis=0) for t in token_ids if len(t)])
    means /= np.maximum(np.linalg.norm(means, axis=1, keepdims=True), 1e-12)
    basis = principal_axes(means, dimensions)
    return np.asarray(rows @ basis.T.astype(np.float32), dtype=np.float32)


def pack(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Step 4: int8 codes and one float32 scale per row (``codes * scale`` gives the row back)."""
    scales = np.abs(rows).max(axis=1) / 127.0
    scales[scales == 0] = 1.0
    codes = np.clip(np.rint(rows / scales[:, None]), -127, 127).astype(np.int8)
    return codes, scales.astype(np.float32)


def write_static_table(
    rows: np.ndarray, model_dir: str, info: dict[str, Any], path: Path = SHIPPED_TABLE
) -> Path:
    """Step 4: pack ``rows`` into ``path`` with ``info`` and the teacher's weights fingerprint, which
    :func:`models.static.recipe_for` matches before the table is used."""
    codes, scales = pack(rows)
    meta = {
        **info,
        "teacher": weights_fingerprint(model_dir),
        "recipe": TRAINED_RECIPE,
        "dimensions": int(rows.shape[1]),
        "tokens": int(rows.shape[0]),
        "fit": {
            "epochs": info.get("epochs", EPOCHS),
            "learning_rate": LEARNING_RATE,
            "batch": BATCH,
            "seed": SEED,
        },
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez_compressed(tmp, codes=codes, scales=scales, info=np.array(json.dumps(meta, sort_keys=True)))
    tmp.replace(path)
    return path
