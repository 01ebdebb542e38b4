"""The ONNX backend: onnxruntime + tokenizers, fp32 or int8, exported from the local model once.

The first use exports the model's transformer with its pooling and L2 normalisation baked into
the graph (``torch.onnx.export`` of the Hugging Face ``AutoModel``), and for int8 quantizes the
weights dynamically, per channel (``onnxruntime.quantization.quantize_dynamic``). The int8 model
runs one text at a time (see :class:`OnnxEncoder`), so it is made from a graph for one unpadded
text: no attention mask, a plain mean over the tokens; the fp32 model keeps the mask for batches.
Files are written to a temporary name and renamed into the export directory, so a killed export
never leaves a half-written model and concurrent exports are harmless. After that, loading needs
neither torch nor transformers: only ``onnxruntime`` and ``tokenizers``, which start fast.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import inspect
import logging
import os
import tempfile
import threading
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from models.base import Vectors
from models.errors import ModelError
from models.priority import in_background, in_foreground, start_embedding_thread
from models.resolve import Pooling
from models.tokenize import encode_texts

log = logging.getLogger(__name__)

#: Bump when the exported graph changes; it is part of the export folder and of the model id.
#: 2: the int8 model is quantized from the one-text graph, without the attention mask.
EXPORT_VERSION = 2
_FP32_FILE = "model.onnx"
_SINGLE_FILE = "model-single.onnx"  # fp32, one unpadded text: the int8 model's source
_INT8_FILE = "model-int8.onnx"
_INPUTS = ("input_ids", "attention_mask", "token_type_ids")
#: onnxruntime's fused SkipLayerNormalization (residual add + layer norm in one kernel) ran the int8
#: model 12 % slower on this project's machine than the Add and LayerNormalization it replaces
#: (22.2 → 19.8 ms a 256-token text, one core; BENCHMARKS §9, "Thirty-ninth session").
_DISABLED_OPTIMIZERS = ["SkipLayerNormFusion"]
_ORT_ERROR_NAMES = ("Fail", "InvalidArgument", "NoSuchFile", "NoModel", "InvalidProtobuf", "RuntimeException")


def is_exported(export_dir: Path, *, int8: bool) -> bool:
    """Whether the export :func:`ensure_export` makes is there already (loading it takes a second)."""
    return (export_dir / (_INT8_FILE if int8 else _FP32_FILE)).is_file()


def ensure_export(model_dir: str, export_dir: Path, pooling: Pooling, *, int8: bool) -> Path:
    """Return the path of the exported (and, if ``int8``, quantized) model, creating it if needed.

    Raises:
        ModelError: the export or the quantization failed, or the export directory is not writable.
    """
    int8_path = export_dir / _INT8_FILE
    wanted = int8_path if int8 else export_dir / _FP32_FILE
    if wanted.is_file():
        return wanted
    source = export_dir / (_SINGLE_FILE if int8 else _FP32_FILE)
    if not source.is_file():
        log.warning("exporting the embedding model to ONNX once (about 30 s); later starts reuse it")
        _export_fp32(model_dir, source, pooling, masked=not int8)
    if int8:
        _quantize_int8(source, int8_path)
    return wanted


class OnnxEncoder:
    """Runs an exported model with onnxruntime on the CPU; rows come out L2-normalised.

    ``per_text`` runs each text on its own: int8 dynamic quantization scales activations over
    the whole input tensor, so in a batch one text's vector would depend on its neighbours
    (cosine ~0.99 to itself embedded alone). One text at a time keeps vectors a function of the
    text, and costs nothing measurable on CPU, where padding is saved instead, and so is the
    attention mask: the int8 graph is exported for one unpadded text (7 % of a 256-token text's
    time was the mask's addition to the attention scores, all zeros without padding). The texts
    of a batch then run side by side, one per thread (``threads`` of them), each on one core:
    onnxruntime's own intra-op threads gave a single text no speed-up here (41–45 chunks/s with
    two, 42–52 with one, tokio chunks of 256 tokens), while two texts at once on two cores embed
    1.7–2.0× as many per second (BENCHMARKS §9, "Transformer throughput").

    Raises:
        ModelError: ``tokenizer.json`` is missing, or onnxruntime cannot load the model.
    """

    def __init__(
        self,
        model_dir: str,
        onnx_path: Path,
        *,
        threads: int,
        max_seq_length: int,
        dimension: int,
        per_text: bool = False,
    ) -> None:
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise ModelError(f"the onnx backends need onnxruntime and tokenizers: {exc}") from exc
        tokenizer_file = Path(model_dir) / "tokenizer.json"
        if not tokenizer_file.is_file():
            raise ModelError(
                f"{model_dir} has no tokenizer.json, which the onnx backends need; set model.backend = torch."
            )
        try:
            tokenizer = Tokenizer.from_file(str(tokenizer_file))
        except Exception as exc:  # the Rust tokenizer raises plain Exception on a malformed file
            raise ModelError(f"cannot read {tokenizer_file}: {exc}") from exc
        tokenizer.enable_truncation(max_length=max_seq_length)
        pad = tokenizer.padding or {}
        pad_id, pad_token = int(pad.get("pad_id", 0)), str(pad.get("pad_token", "[PAD]"))
        tokenizer.enable_padding(pad_id=pad_id, pad_token=pad_token)
        options = ort.SessionOptions()
        # One text at a time: parallel over texts, one core each (see the class docstring).
        options.intra_op_num_threads = 1 if per_text else threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        # Idle pool threads would otherwise spin-wait after each call, taking cores from ripgrep and the
        # other retrievers that run beside a query embedding (a search runs all three at once).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        errors = _ort_errors(RuntimeError, OSError)
        try:
            session = ort.InferenceSession(
                str(onnx_path),
                options,
                providers=["CPUExecutionProvider"],
                disabled_optimizers=_DISABLED_OPTIMIZERS,
            )
        except errors as exc:
            raise ModelError(
                f"onnxruntime cannot load {onnx_path}: {exc}; delete the file to re-export it."
            ) from exc
        self._tokenizer = tokenizer
        self._session = session
        self._inputs = [i.name for i in session.get_inputs()]
        self._dimension = dimension
        self._per_text = per_text
        self._threads = max(1, threads)
        self._pool: cf.ThreadPoolExecutor | None = None
        self._foreground_pool: cf.ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()

    @property
    def dimension(self) -> int:
        return self._dimension

    def encode(self, texts: Sequence[str]) -> Vectors:
        """Embed one batch (padded to its longest text, truncated at max_seq_length).

        Raises:
            ModelError: onnxruntime failed to run the batch.
        """
        if self._per_text and len(texts) > 1:  # one text a run: the int8 graph has no mask for padding
            pool = self._texts_pool()
            if pool is None:
                return np.concatenate([self._run([text]) for text in texts])
            return np.concatenate(list(pool.map(lambda text: self._run([text]), texts)))
        return self._run(texts)

    def _texts_pool(self) -> cf.ThreadPoolExecutor | None:
        """The threads that run a batch's texts side by side (``None`` with one thread). An
        InferenceSession may be run from several threads at once; each run releases the GIL. A
        search's texts in a background process (:func:`models.priority.foreground`) get threads of
        their own, at full priority: the others may be lowered and busy with a build's batch."""
        if self._threads < 2:
            return None
        with self._pool_lock:
            if in_background() and in_foreground():
                if self._foreground_pool is None:
                    self._foreground_pool = cf.ThreadPoolExecutor(
                        self._threads, thread_name_prefix="plait-embed-search"
                    )
                return self._foreground_pool
            if self._pool is None:
                # In a server or `plait watch` these threads embed behind searches, at lower priority.
                self._pool = cf.ThreadPoolExecutor(
                    self._threads, thread_name_prefix="plait-embed", initializer=start_embedding_thread
                )
            return self._pool

    def _run(self, texts: Sequence[str]) -> Vectors:
        encodings = encode_texts(self._tokenizer, texts)
        columns = {
            "input_ids": [e.ids for e in encodings],
            "attention_mask": [e.attention_mask for e in encodings],
            "token_type_ids": [e.type_ids for e in encodings],
        }
        feed = {name: np.asarray(columns[name], dtype=np.int64) for name in self._inputs}
        errors = _ort_errors(RuntimeError)
        try:
            (vectors,) = self._session.run(None, feed)
        except errors as exc:
            raise ModelError(f"onnxruntime failed to embed a batch: {exc}") from exc
        return np.asarray(vectors, dtype=np.float32)


def _export_fp32(model_dir: str, target: Path, pooling: Pooling, *, masked: bool) -> None:
    """Export the fp32 graph: with ``masked``, for padded batches (an ``attention_mask`` input);
    without, for one unpadded text (no mask input, no mask in the attention, a plain mean)."""
    try:
        import torch
        from transformers import AutoModel
        from transformers.utils import logging as hf_logging
    except ImportError as exc:
        raise ModelError(f"exporting the model to ONNX needs torch and transformers: {exc}") from exc
    hf_logging.disable_progress_bar()
    try:
        # The eager attention graph runs faster in onnxruntime than the exported SDPA one.
        model = AutoModel.from_pretrained(model_dir, local_files_only=True, attn_implementation="eager")
    except (OSError, ValueError, RuntimeError, KeyError, TypeError) as exc:
        raise ModelError(
            f"cannot load {model_dir} for the ONNX export: {exc}; use model.backend = torch."
        ) from exc
    wrapper = _pooled_module(torch, model.eval(), pooling.mode, masked=masked)
    sample = torch.ones((2 if masked else 1, 8), dtype=torch.int64)
    inputs = [name for name in _INPUTS if masked or name != "attention_mask"]
    axes = {name: {0: "batch", 1: "sequence"} for name in inputs} | {"embedding": {0: "batch"}}
    samples = (sample, sample, torch.zeros_like(sample)) if masked else (sample, torch.zeros_like(sample))
    with _atomic_target(target) as tmp, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # tracer and exporter deprecation chatter
        try:
            torch.onnx.export(
                wrapper,
                samples,
                str(tmp),
                dynamo=False,
                input_names=inputs,
                output_names=["embedding"],
                dynamic_axes=axes,
                opset_version=17,
                do_constant_folding=True,
            )
        except (RuntimeError, ValueError, TypeError, OSError) as exc:
            raise ModelError(
                f"exporting {model_dir} to ONNX failed: {exc}; use model.backend = torch."
            ) from exc


def _pooled_module(torch: Any, model: Any, mode: str, *, masked: bool) -> Any:
    # Some encoders (DistilBERT, ...) take no token types; the exporter then drops that input.
    takes_types = "token_type_ids" in inspect.signature(model.forward).parameters

    def pooled(states: Any, attention_mask: Any) -> Any:
        if mode == "cls":
            vector = states[:, 0]
        elif attention_mask is None:
            vector = states.mean(1)
        else:
            mask = attention_mask.unsqueeze(-1).to(states.dtype)
            vector = (states * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
        return torch.nn.functional.normalize(vector, p=2.0, dim=1)

    class Pooled(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            extra = {"token_type_ids": token_type_ids} if takes_types else {}
            states = self.model(input_ids=input_ids, attention_mask=attention_mask, **extra).last_hidden_state
            return pooled(states, attention_mask)

    class Single(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids: Any, token_type_ids: Any) -> Any:
            extra = {"token_type_ids": token_type_ids} if takes_types else {}
            return pooled(self.model(input_ids=input_ids, **extra).last_hidden_state, None)

    return (Pooled() if masked else Single()).eval()


def _quantize_int8(source: Path, target: Path) -> None:
    try:
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError as exc:
        raise ModelError(f"int8 quantization needs onnxruntime and onnx: {exc}") from exc
    quiet = _DropRootMessage("pre-processing before quantization")
    root = logging.getLogger()
    root.addFilter(quiet)
    errors = _ort_errors(RuntimeError, ValueError, OSError)
    try:
        with _atomic_target(target) as tmp:
            # Per-channel scales keep cosine to fp32 around 0.99 (per-tensor: about 0.95).
            quantize_dynamic(source, tmp, weight_type=QuantType.QInt8, per_channel=True)
    except errors as exc:
        raise ModelError(f"int8 quantization of {source} failed: {exc}; use model.backend = onnx.") from exc
    finally:
        root.removeFilter(quiet)


@contextlib.contextmanager
def _atomic_target(target: Path) -> Iterator[Path]:
    """Yield a temporary path beside ``target``; rename it onto ``target`` if the block succeeds."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.stem}-", suffix=".onnx.tmp")
        os.close(fd)
    except OSError as exc:
        raise ModelError(
            f"cannot write the ONNX export under {target.parent}: {exc}; "
            "set model.cache_dir to a writable folder."
        ) from exc
    tmp = Path(name)
    try:
        yield tmp
        tmp.chmod(0o644)  # mkstemp creates 0600; the export is a shareable cache entry
        os.replace(tmp, target)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


class _DropRootMessage(logging.Filter):
    def __init__(self, fragment: str) -> None:
        super().__init__()
        self._fragment = fragment

    def filter(self, record: logging.LogRecord) -> bool:
        return self._fragment not in record.getMessage()


def _ort_errors(*extra: type[Exception]) -> tuple[type[Exception], ...]:
    """onnxruntime's own exception types (they do not derive from RuntimeError), plus ``extra``."""
    from onnxruntime.capi import onnxruntime_pybind11_state as state

    found = (getattr(state, name, None) for name in _ORT_ERROR_NAMES)
    return (*(e for e in found if isinstance(e, type) and issubclass(e, Exception)), *extra)
