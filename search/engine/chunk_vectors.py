"""Vectors of chunk texts embedded at search time, kept by model and content so a text costs once.

Two things embed chunks while a user waits: the local delta (the changed files' chunks, ranked by the
tier the snapshot is searched with) and the fast tier's re-ranking (a sentence's candidates, by the
full tier's model). Both keep what they embedded here, keyed by the model's id and the text's
content hash, up to :data:`MAX_KEPT_VECTORS` vectors (then started afresh), and embed on the search's
behalf (:func:`models.foreground`: in a server, not behind a background build's batch).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

from models import Embedder, foreground

MAX_KEPT_VECTORS = 20_000


class ChunkVectors:
    """(model id, content hash) → unit vector. Thread-safe."""

    def __init__(self, capacity: int = MAX_KEPT_VECTORS) -> None:
        self._capacity = capacity
        self._vectors: dict[tuple[str, str], np.ndarray] = {}
        self._lock = threading.Lock()

    def of(
        self, embedder: Embedder, texts: Sequence[tuple[str, str]], *, budget: int | None = None
    ) -> dict[str, np.ndarray]:
        """Unit vectors of ``texts`` (content hash, text) by ``embedder``, by content hash: those kept,
        and up to ``budget`` more (all by default) embedded now, in the order given.

        Raises:
            ModelError: the model cannot be loaded or run.
        """
        model = embedder.model_id
        with self._lock:
            missing = list({h: t for h, t in texts if (model, h) not in self._vectors}.items())
        if budget is not None:
            missing = missing[:budget]
        if missing:
            with foreground():
                matrix = np.asarray(embedder.embed_documents([t for _, t in missing]), dtype=np.float32)
            norms = np.linalg.norm(matrix, axis=1, keepdims=True)
            matrix = (matrix / np.where(norms > 0, norms, 1.0)).astype(np.float32)
            with self._lock:
                if len(self._vectors) + len(missing) > self._capacity:
                    self._vectors.clear()
                for (h, _), vec in zip(missing, matrix, strict=True):
                    self._vectors[(model, h)] = vec
        with self._lock:
            return {h: found for h, _ in texts if (found := self._vectors.get((model, h))) is not None}
