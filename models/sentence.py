"""The sentence-transformers (torch) backend: fp32, or bf16 autocast on the CPU or the GPU.

torch and sentence-transformers are imported when an encoder is built, never at module import.
The model is always loaded from a local directory with ``local_files_only``, so it never
reaches the network. torch and transformers exceptions become :class:`ModelError` here.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

import numpy as np

from models.base import Vectors
from models.errors import ModelError


class SentenceEncoder:
    """Runs one sentence-transformers model on batches of texts.

    ``device`` is ``cpu`` or ``cuda`` (already resolved), ``threads`` the torch intra-op threads
    on CPU, ``bf16`` runs the forward pass under bf16 autocast on that device. Texts longer than
    ``max_seq_length`` tokens are truncated.

    Raises:
        ModelError: torch is missing, CUDA was asked for but is unavailable, or the directory
            does not load as a sentence-transformers model.
    """

    def __init__(self, model_dir: str, *, device: str, threads: int, max_seq_length: int, bf16: bool) -> None:
        try:
            import torch
            from sentence_transformers import SentenceTransformer
            from transformers.utils import logging as hf_logging
        except ImportError as exc:
            raise ModelError(f"the torch backend needs torch and sentence-transformers: {exc}") from exc
        if device == "cuda" and not torch.cuda.is_available():
            raise ModelError(
                "model.device is cuda but torch sees no CUDA device; set model.device to cpu or auto."
            )
        if device == "cpu":
            torch.set_num_threads(threads)
        hf_logging.disable_progress_bar()  # no "Loading weights" bars on a server's stderr
        try:
            model = SentenceTransformer(
                model_dir, device=device, local_files_only=True, trust_remote_code=False
            )
        except (OSError, ValueError, RuntimeError, KeyError, TypeError) as exc:
            raise ModelError(
                f"could not load the embedding model from {model_dir}: {exc}; "
                "check that it is a complete sentence-transformers model directory."
            ) from exc
        model.eval()
        model.max_seq_length = max_seq_length
        dimension = model.get_embedding_dimension()
        if dimension is None:
            raise ModelError(f"the model in {model_dir} does not declare its embedding dimension.")
        self._torch = torch
        self._model = model
        self._device = device
        self._bf16 = bf16
        self._dimension = int(dimension)

    @property
    def dimension(self) -> int:
        return self._dimension

    def encode(self, texts: Sequence[str]) -> Vectors:
        """Embed one batch; returns float32 rows (normalised by the model's own Normalize, if any).

        Raises:
            ModelError: the forward pass failed (out of memory, a broken model).
        """
        torch = self._torch
        autocast: Any = (
            torch.autocast(self._device, dtype=torch.bfloat16) if self._bf16 else contextlib.nullcontext()
        )
        try:
            with torch.inference_mode(), autocast:
                vectors = self._model.encode(
                    list(texts),
                    batch_size=max(1, len(texts)),
                    convert_to_numpy=True,
                    normalize_embeddings=False,
                    show_progress_bar=False,
                )
        except (RuntimeError, ValueError, IndexError) as exc:  # IndexError: positions past the model's limit
            raise ModelError(f"embedding failed on {self._device}: {exc}") from exc
        return np.asarray(vectors, dtype=np.float32)
