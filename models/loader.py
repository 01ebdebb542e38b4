"""``load_embedder``: pick the backend, and defer the heavy load to the first use.

:func:`load_embedder` checks the configuration and finds the model on disk right away (so a bad
name fails fast, before any index work), but imports torch or onnxruntime only when the first
text is embedded or :meth:`LazyEmbedder.load` is called. Loading is guarded by a lock, so
concurrent first calls load once.

``backend="auto"`` resolves to :data:`AUTO_CPU_BACKEND` on CPU — the fastest variant whose
MRR@10 on the stdlib docstring→function benchmark is within 0.01 of fp32 torch (see
``python -m benchmarks embed`` and BENCHMARKS.md) — and to fp32 torch on CUDA. Models the ONNX
export cannot express (extra Dense layers, unusual pooling) fall back to torch.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import numpy as np

from models.bare_text import TAG as BARE_TAG
from models.bare_text import without_punctuation
from models.base import Vectors
from models.config import BACKENDS, DEVICES, PUNCTUATION, ModelConfig
from models.errors import ConfigError, ModelError, PlaitError
from models.resolve import (
    Pooling,
    compose_model_id,
    default_cache_dir,
    display_name,
    read_pooling,
    resolve_model_path,
    weights_fingerprint,
)

if TYPE_CHECKING:
    from concurrent.futures import Executor

#: What ``backend="auto"`` means on CPU; chosen by ``python -m benchmarks embed`` (BENCHMARKS.md).
AUTO_CPU_BACKEND = "onnx-int8"

_RUNTIME_PRECISION = {
    "torch": ("torch", "fp32"),
    "torch-bf16": ("torch", "bf16"),
    "onnx": ("onnx-v{v}", "fp32"),
    "onnx-int8": ("onnx-v{v}", "int8"),
    "static": ("static-v{r}", "d{d}"),
}


class Encoder(Protocol):
    """What a backend provides: one batch of texts in, one row per text out."""

    @property
    def dimension(self) -> int: ...

    def encode(self, texts: Sequence[str]) -> Vectors: ...


@dataclass(frozen=True, slots=True)
class _Plan:
    backend: str  # concrete: torch | torch-bf16 | onnx | onnx-int8 | static
    device: str  # cpu | cuda
    model_id: str
    pooling: Pooling | None
    export_dir: Path  # where the onnx backends keep their exports (and the static backend its table)
    dimension: int | None  # known without loading the model (None: ask the loaded encoder)
    recipe: int = 0  # the static table's recipe (models.static.recipe_label); 0 for the other backends
    bare: bool = False  # texts reach the encoder without punctuation (model.punctuation = "drop")


def load_embedder(config: ModelConfig) -> LazyEmbedder:
    """Return an embedder for ``config`` that loads its model on first use.

    Raises:
        ConfigError: an invalid backend, device, batch size, sequence length or thread count.
        ModelError: the model is not available offline (the message says how to get it).
    """
    _validate(config)
    return LazyEmbedder(config, resolve_model_path(config.name))


def embed_in_length_batches(
    texts: Sequence[str], batch_size: int, encode: Callable[[Sequence[str]], Vectors]
) -> Vectors:
    """Encode ``texts`` in batches of similar length (less padding), returning rows in input order."""
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    parts: list[Vectors] = []
    for start in range(0, len(order), batch_size):
        batch = [texts[i] for i in order[start : start + batch_size]]
        parts.append(encode(batch))
    stacked = np.concatenate(parts) if parts else np.zeros((0, 0), dtype=np.float32)
    out = np.empty_like(stacked)
    out[np.asarray(order, dtype=np.int64)] = stacked
    return out


class LazyEmbedder:
    """An :class:`~models.base.Embedder` that builds its backend on first use (thread-safe).

    ``model_id`` and ``dimension`` are known without loading the model (unless ``device="auto"``
    or the model's layout is unusual). Prefixes from the config are prepended here.
    """

    def __init__(self, config: ModelConfig, model_dir: str) -> None:
        self._config = config
        self._model_dir = model_dir
        self._lock = threading.Lock()
        self._plan: _Plan | None = None
        self._encoder: Encoder | None = None

    @property
    def model_id(self) -> str:
        return self._resolved().model_id

    @property
    def backend(self) -> str:
        """The concrete backend ``auto`` resolved to: torch, torch-bf16, onnx, onnx-int8 or static."""
        return self._resolved().backend

    @property
    def device(self) -> str:
        """Where the model runs: ``cpu``, or ``cuda`` (``auto`` on a machine whose torch finds a GPU;
        the static and onnx backends always run on the CPU)."""
        return self._resolved().device

    @property
    def dimension(self) -> int:
        plan = self._resolved()
        return plan.dimension if plan.dimension is not None else self.load().dimension

    @property
    def loaded(self) -> bool:
        return self._encoder is not None

    def ready(self) -> bool:
        """Whether the model runs without a long wait first: loaded, or an ONNX backend whose export is
        made (loading it takes about a second; making it, or importing torch, many)."""
        if self._encoder is not None:
            return True
        try:
            plan = self._resolved()
        except PlaitError:
            return False
        if plan.backend.startswith("onnx"):
            from models.onnx_backend import is_exported

            return is_exported(plan.export_dir, int8=plan.backend == "onnx-int8")
        return plan.backend == "static"

    def load(self) -> Encoder:
        """Load the model now (e.g. at server start); later calls return the same encoder.

        Raises:
            ModelError: the backend cannot be imported, exported or loaded.
        """
        encoder = self._encoder
        if encoder is not None:
            return encoder
        plan = self._resolved()
        with self._lock:
            if self._encoder is None:
                self._encoder = _build_encoder(plan, self._config, self._model_dir)
            return self._encoder

    @contextlib.contextmanager
    def spread_over(self, pool: Executor) -> Iterator[None]:
        """Within the block, large batches of the static backend are embedded by ``pool``'s processes,
        a part of :data:`~models.static._PART` texts each (its tokenizer runs Python: one process keeps
        one core busy). The same vectors; another backend keeps its own threads."""
        encoder = self.load() if self._resolved().backend == "static" else None
        if encoder is None:
            yield
            return
        from models.static import StaticEncoder  # imported already: the static backend's encoder

        assert isinstance(encoder, StaticEncoder)
        encoder.pool = pool
        try:
            yield
        finally:
            encoder.pool = None

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        """Embed chunk texts; float32 (len(texts), dimension), rows of unit length.

        Raises:
            ModelError: the model cannot be loaded or run.
        """
        encoder = self.load()
        if not texts:
            return np.zeros((0, encoder.dimension), dtype=np.float32)
        plan = self._resolved()
        if plan.bare:
            texts = [without_punctuation(t) for t in texts]
        prefix = self._config.document_prefix
        prefixed = [prefix + t for t in texts] if prefix else list(texts)
        if plan.backend == "static":  # no padding to spare: it reads a batch in parts itself
            return _normalised(encoder.encode(prefixed))
        return _normalised(embed_in_length_batches(prefixed, self._config.batch_size, encoder.encode))

    def embed_query(self, text: str) -> Vectors:
        """Embed one query (with the query prefix); float32 (dimension,), unit length.

        Raises:
            ModelError: the model cannot be loaded or run.
        """
        encoder = self.load()
        if self._resolved().bare:
            text = without_punctuation(text)
        return _normalised(encoder.encode([self._config.query_prefix + text]))[0]

    def _resolved(self) -> _Plan:
        plan = self._plan
        if plan is None:
            with self._lock:
                if self._plan is None:
                    self._plan = _make_plan(self._config, self._model_dir)
                plan = self._plan
        return plan


def _make_plan(config: ModelConfig, model_dir: str) -> _Plan:
    device = _resolve_device(config.device)
    pooling = read_pooling(model_dir)
    backend = config.backend
    if backend == "auto":
        backend = AUTO_CPU_BACKEND if device == "cpu" else "torch"
        if backend.startswith("onnx") and pooling is None:
            backend = "torch"
    if backend == "static":
        device = "cpu"  # a table lookup: nothing to gain from a GPU
    if backend.startswith("onnx"):
        if device != "cpu":
            raise ModelError(
                "the onnx backends run on the CPU; set model.device = cpu or model.backend = torch."
            )
        if pooling is None:
            raise ModelError(
                f"the model in {model_dir} is not a plain transformer + mean/CLS pooling stack, which is all "
                "the onnx backends export; set model.backend = torch."
            )
    cache_root = Path(config.cache_dir).expanduser() if config.cache_dir else default_cache_dir()
    fingerprint = weights_fingerprint(model_dir, cache_root)
    base = f"{display_name(config.name, model_dir)}@{fingerprint}"
    runtime, precision = _RUNTIME_PRECISION[backend]
    from models.onnx_backend import EXPORT_VERSION  # no heavy imports: onnxruntime loads lazily
    from models.static import DIMENSIONS, recipe_label

    dimension = pooling.dimension if pooling is not None else None
    recipe, label = 0, ""
    if backend == "static":
        dimension = min(DIMENSIONS, dimension) if dimension is not None else None
        recipe, label = recipe_label(fingerprint, dimension or DIMENSIONS)
    model_id = compose_model_id(
        base,
        runtime.format(v=EXPORT_VERSION, r=label),
        precision.format(d=dimension or DIMENSIONS),
        config.max_seq_length,
        config.query_prefix,
        config.document_prefix,
    )
    bare = config.punctuation == "drop" and backend != "static"  # the static table reads texts as they are
    if bare:
        model_id += f"/{BARE_TAG}"
    model_root = cache_root / base.replace("/", "--")
    export_dir = model_root / (f"static-v{label}" if backend == "static" else f"onnx-v{EXPORT_VERSION}")
    return _Plan(backend, device, model_id, pooling, export_dir, dimension, recipe, bare)


def _build_encoder(plan: _Plan, config: ModelConfig, model_dir: str) -> Encoder:
    threads = config.threads or _usable_cores()
    if plan.backend == "static":
        from models.static import DIMENSIONS, StaticEncoder, ensure_static

        table = ensure_static(model_dir, plan.export_dir, plan.dimension or DIMENSIONS, recipe=plan.recipe)
        return StaticEncoder(model_dir, table, max_seq_length=config.max_seq_length)
    if plan.backend in ("torch", "torch-bf16"):
        from models.sentence import SentenceEncoder

        return SentenceEncoder(
            model_dir,
            device=plan.device,
            threads=threads,
            max_seq_length=config.max_seq_length,
            bf16=plan.backend == "torch-bf16",
        )
    from models.onnx_backend import OnnxEncoder, ensure_export

    assert plan.pooling is not None  # _make_plan refuses onnx without a known pooling
    onnx_path = ensure_export(model_dir, plan.export_dir, plan.pooling, int8=plan.backend == "onnx-int8")
    return OnnxEncoder(
        model_dir,
        onnx_path,
        threads=threads,
        max_seq_length=config.max_seq_length,
        dimension=plan.pooling.dimension,
        per_text=plan.backend == "onnx-int8",
    )


def _resolve_device(device: str) -> str:
    if device != "auto":
        return device
    try:
        import torch
    except ImportError:
        return "cpu"
    return "cuda" if torch.cuda.is_available() else "cpu"


def _validate(config: ModelConfig) -> None:
    if config.backend not in BACKENDS:
        raise ConfigError(f"model.backend must be one of {', '.join(BACKENDS)}, got {config.backend!r}")
    if config.device not in DEVICES:
        raise ConfigError(f"model.device must be one of {', '.join(DEVICES)}, got {config.device!r}")
    if config.batch_size < 1:
        raise ConfigError(f"model.batch_size must be at least 1, got {config.batch_size}")
    if not 1 <= config.max_seq_length <= 8192:
        raise ConfigError(f"model.max_seq_length must be between 1 and 8192, got {config.max_seq_length}")
    if config.punctuation not in PUNCTUATION:
        raise ConfigError(
            f"model.punctuation must be one of {', '.join(PUNCTUATION)}, got {config.punctuation!r}"
        )
    if config.threads is not None and config.threads < 1:
        raise ConfigError(f"model.threads must be at least 1, got {config.threads}")


def _usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _normalised(vectors: Vectors) -> Vectors:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.asarray(vectors / np.maximum(norms, 1e-12), dtype=np.float32)
