"""Vectors of chunk texts embedded at search time, kept by model and content so a text costs once.

Two things embed chunks while a user waits: the local delta (the changed files' chunks, ranked by the
tier the snapshot is searched with) and the fast tier's re-ranking (a sentence's candidates, by the
full tier's model). Both keep what they embedded here, keyed by the model's id and the text's
content hash, up to :data:`MAX_KEPT_VECTORS` vectors (then started afresh), take what an index build
has embedded already where they are told where to look (the full tier's embedding cache, for the
re-ranking), and embed the rest on the search's behalf (:func:`models.foreground`: in a server, not
behind a background build's batch).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence

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
        self,
        embedder: Embedder,
        texts: Sequence[tuple[str, str]],
        *,
        budget: int | None = None,
        stored: Callable[[list[str]], Mapping[str, np.ndarray]] | None = None,
    ) -> dict[str, np.ndarray]:
        """Unit vectors of ``texts`` (content hash, text) by ``embedder``, by content hash: those kept,
        those ``stored`` has (by content hash: vectors this model made before, an index build's), and
        up to ``budget`` more (all by default) embedded now, in the order given.

        Raises:
            ModelError: the model cannot be loaded or run.
        """
        model = embedder.model_id
        with self._lock:
            out = {h: v for h, _ in texts if (v := self._vectors.get((model, h))) is not None}
        missing = list({h: t for h, t in texts if h not in out}.items())
        if missing and stored is not None:
            have = dict(stored([h for h, _ in missing]))
            if have:
                hashes = [h for h, _ in missing if h in have]
                out.update(
                    self._keep(model, hashes, np.stack([np.asarray(have[h], np.float32) for h in hashes]))
                )
                missing = [(h, t) for h, t in missing if h not in have]
        if budget is not None:
            missing = missing[:budget]
        if missing:
            with foreground():
                matrix = np.asarray(embedder.embed_documents([t for _, t in missing]), dtype=np.float32)
            out.update(self._keep(model, [h for h, _ in missing], matrix))
        return out

    def _keep(self, model: str, hashes: Sequence[str], matrix: np.ndarray) -> dict[str, np.ndarray]:
        """Keep the rows of ``matrix``, made unit length, as ``model``'s vectors of ``hashes``."""
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        unit = dict(zip(hashes, (matrix / np.where(norms > 0, norms, 1.0)).astype(np.float32), strict=True))
        with self._lock:
            if len(self._vectors) + len(unit) > self._capacity:
                self._vectors.clear()
            for h, vec in unit.items():
                self._vectors[(model, h)] = vec
        return unit
