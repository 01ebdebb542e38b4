"""Choosing and caching the embedder for a workspace (lazy: nothing heavy is imported here)."""

from __future__ import annotations

import threading

from models.base import Embedder
from models.config import ModelConfig

_lock = threading.Lock()
_cache: dict[ModelConfig, Embedder] = {}


def make_embedder(config: ModelConfig) -> Embedder:
    """The embedder for ``config``, shared per process (the model stays loaded and warm).

    ``hashing`` / ``hashing-<dim>`` selects the deterministic feature-hashing embedder (fast tests and
    benchmarks of everything but the model); any other name goes to :func:`models.load_embedder`.
    """
    with _lock:
        found = _cache.get(config)
        if found is not None:
            return found
        if config.name == "hashing" or config.name.startswith("hashing-"):
            from models.hashing import HashingEmbedder

            dim = int(config.name.split("-", 1)[1]) if "-" in config.name else 256
            embedder: Embedder = HashingEmbedder(dimension=dim)
        else:
            from models import load_embedder

            embedder = load_embedder(config)
        _cache[config] = embedder
        return embedder
