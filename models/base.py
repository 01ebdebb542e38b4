"""The one small boundary between plait and any embedding model."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors.

    ``model_id`` is stable across processes and changes whenever the vectors would change
    (model weights, backend precision, max sequence length, prefixes); the embedding cache and
    the index fingerprint are keyed by it.
    """

    @property
    def model_id(self) -> str: ...

    @property
    def dimension(self) -> int: ...

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        """Embed chunk texts; returns an array of shape (len(texts), dimension)."""
        ...

    def embed_query(self, text: str) -> Vectors:
        """Embed one search query; returns an array of shape (dimension,)."""
        ...

    def ready(self) -> bool:
        """Whether it embeds without a long wait first (a model to load from scratch, an export to make):
        what a search may ask of it in passing."""
        ...
