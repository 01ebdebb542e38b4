"""A deterministic feature-hashing embedder: a real, fast :class:`~models.base.Embedder` for tests.

Each text becomes a bag of features — lowercased word tokens, their camelCase / snake_case
sub-tokens and the character trigrams of each word — hashed (crc32, the same in every process)
into ``dimension`` signed buckets, then L2-normalised. Texts that share identifiers or word
pieces get similar vectors, which is enough for component tests of indexing and retrieval
without loading a neural model.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterator, Sequence

import numpy as np

from models.base import Vectors

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+")
_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_WEIGHTS = {"w": 1.0, "s": 0.7, "t": 0.3}


class HashingEmbedder:
    """Feature hashing of words, sub-tokens and trigrams; ``model_id`` is ``hashing-v1-<dimension>``.

    Raises:
        ValueError: ``dimension`` is smaller than 8.
    """

    def __init__(self, dimension: int = 256) -> None:
        if dimension < 8:
            raise ValueError(f"dimension must be at least 8, got {dimension}")
        self._dimension = dimension

    @property
    def model_id(self) -> str:
        return f"hashing-v1-{self._dimension}"

    @property
    def dimension(self) -> int:
        return self._dimension

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        """Embed texts; returns float32 (len(texts), dimension), each row of unit length."""
        out = np.zeros((len(texts), self._dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            self._fill(out[row], text)
        return out

    def ready(self) -> bool:
        return True

    def embed_query(self, text: str) -> Vectors:
        """Embed one query exactly as a document; returns float32 (dimension,)."""
        out = np.zeros(self._dimension, dtype=np.float32)
        self._fill(out, text)
        return out

    def _fill(self, row: Vectors, text: str) -> None:
        for feature, weight in _features(text):
            code = zlib.crc32(feature.encode("utf-8"))
            high, bucket = divmod(code, self._dimension)
            row[bucket] += weight if high % 2 == 0 else -weight  # signed: collisions cancel on average
        norm = float(np.linalg.norm(row))
        if norm == 0.0:  # no word at all (empty or punctuation only): one fixed feature
            row[zlib.crc32(b"<empty>") % self._dimension] = 1.0
        else:
            row /= norm


def _features(text: str) -> Iterator[tuple[str, float]]:
    for word in _WORD.findall(text):
        lowered = word.lower()
        yield f"w:{lowered}", _WEIGHTS["w"]
        parts = [p.lower() for piece in word.split("_") for p in _CAMEL.findall(piece)]
        if len(parts) > 1:
            for part in parts:
                yield f"s:{part}", _WEIGHTS["s"]
        padded = f"^{lowered}$"
        for i in range(len(padded) - 2):
            yield f"t:{padded[i : i + 3]}", _WEIGHTS["t"]
