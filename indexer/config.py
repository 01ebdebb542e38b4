"""Configuration in two stages: raw (flags, env, plait.toml) → a frozen, resolved :class:`Settings`.

``load_settings`` is called once at the edge (CLI, server start, daemon); library code receives the
``Settings`` and never reads ``os.environ`` itself. Precedence: explicit overrides (flags) > env >
``plait.toml`` > ``[tool.plait]`` in ``pyproject.toml`` > defaults.

Where the index goes is the user's choice, never the repository's: ``--index-dir`` and
``PLAIT_INDEX_DIR`` name the index location of one workspace (a path or any LanceDB URI) — the same
meaning for ``plait index``, ``watch``, ``search`` and ``serve`` (which refuses them with several
roots). ``index_dir`` in a repository's ``plait.toml`` may only pick a folder inside plait's cache
directory (relative paths are taken relative to it); anything else is refused with
:class:`ConfigError` saying to pass it on the command line or in the environment instead.
"""

from __future__ import annotations

import hashlib
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from platformdirs import user_cache_dir

from indexer.beneath import is_regular_beneath, read_beneath
from models import BACKENDS, DEFAULT_MODEL, PUNCTUATION, ConfigError, ModelConfig

DEFAULT_MAX_FILE_BYTES = 1_000_000
# Seconds a reader of an index on object storage may answer from the snapshot it read last before
# asking whether a newer one was published (a request: a listing of ``meta``'s versions). A local
# index is asked at every search (a directory listing). See :meth:`indexer.store.Store.published_meta`.
DEFAULT_REMOTE_RECHECK = 1.0
MAX_RECHECK = 60.0
MAX_CONFIG_BYTES = 4 << 20


@dataclass(frozen=True, slots=True)
class ChunkSettings:
    max_lines: int = 80  # definitions longer than this are split into windows
    overlap_lines: int = 10
    min_lines: int = 6  # smaller neighbouring definitions are merged…
    # …into chunks of at most this many lines: the transformer reads ~21–26 non-blank lines of code (254
    # word pieces), so the tenth of ten short methods merged into 80 lines was never embedded
    merge_lines: int = 40
    window_lines: int = 50  # line windows for files without a grammar
    # A chunk's text (its header and lines): what BM25 reads and what is hashed; the models stop well
    # before (256 tokens, the static table 128). The cap only bounds pathological lines (BENCHMARKS §10).
    max_chars: int = 16000


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything the library needs to know about one workspace."""

    root: Path
    index_dir: str  # a local path or any LanceDB URI
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    chunks: ChunkSettings = field(default_factory=ChunkSettings)
    model: ModelConfig = field(default_factory=ModelConfig)
    # Raw tables passed through to the parts that own them (guard rules, server tool config).
    guard: tuple[Mapping[str, Any], ...] = ()
    server: Mapping[str, Any] = field(default_factory=dict)
    ranking: Mapping[str, Any] = field(default_factory=dict)  # [ranking], validated by the search side
    snapshot_recheck: float | None = None  # None: the default for the location (see recheck)

    @property
    def index_is_local(self) -> bool:
        return "://" not in self.index_dir

    @property
    def recheck(self) -> float:
        """Seconds a reader may keep the last published snapshot it read before asking again: the
        configured ``snapshot_recheck``, else 0 for a local index and :data:`DEFAULT_REMOTE_RECHECK`
        on object storage."""
        if self.snapshot_recheck is not None:
            return self.snapshot_recheck
        return 0.0 if self.index_is_local else DEFAULT_REMOTE_RECHECK

    def with_model(self, model: ModelConfig) -> Settings:
        return replace(self, model=model)


def cache_dir() -> Path:
    """plait's folder in the user cache directory (platformdirs): the home of every default index."""
    return Path(user_cache_dir("plait", appauthor=False))


def default_index_dir(root: Path) -> str:
    digest = hashlib.sha256(str(root.resolve()).encode()).hexdigest()[:16]
    return str(cache_dir() / f"{root.resolve().name}-{digest}")


def project_index_dir(root: Path, value: Any) -> str:
    """``index_dir`` from a repository's own configuration, kept inside :func:`cache_dir` (see the
    module docstring); raises :class:`ConfigError` otherwise."""
    base = cache_dir().resolve()
    text = str(value) if isinstance(value, str) else ""
    if text and "://" not in text:
        path = Path(text).expanduser()
        resolved = (path if path.is_absolute() else base / path).resolve()
        if resolved.is_relative_to(base) and resolved != base:
            return str(resolved)
    raise ConfigError(
        f"the plait.toml of {root} sets index_dir = {value!r}, outside plait's cache directory ({base}); "
        "a repository cannot choose where plait writes. Pass it yourself with --index-dir or "
        "PLAIT_INDEX_DIR, or remove index_dir from plait.toml."
    )


def read_project_config(root: Path) -> dict[str, Any]:
    """The ``plait.toml`` table, else ``[tool.plait]`` of ``pyproject.toml``, else ``{}``."""
    try:
        if is_regular_beneath(root, "plait.toml"):  # never a symlink out, never a FIFO
            return tomllib.loads(read_beneath(root, "plait.toml", MAX_CONFIG_BYTES).decode("utf-8"))
        if is_regular_beneath(root, "pyproject.toml"):
            data = tomllib.loads(read_beneath(root, "pyproject.toml", MAX_CONFIG_BYTES).decode("utf-8"))
            tool = data.get("tool", {})
            plait = tool.get("plait", {}) if isinstance(tool, dict) else {}
            return plait if isinstance(plait, dict) else {}
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(
            f"cannot read the plait configuration in {root}: {exc}; fix the TOML syntax."
        ) from exc
    except OSError as exc:
        raise ConfigError(f"cannot read the plait configuration in {root}: {exc}") from exc
    return {}


def _int(value: Any, name: str, minimum: int = 1) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{name} must be an integer, got {value!r}") from exc
    if number < minimum:
        raise ConfigError(f"{name} must be at least {minimum}, got {number}")
    return number


def _seconds(value: Any, name: str) -> float | None:
    """A re-check interval in seconds, 0 to :data:`MAX_RECHECK` (``None`` when not given)."""
    if value is None or value == "":
        return None
    try:
        number = float(value)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{name} must be a number of seconds, got {value!r}") from exc
    if not 0 <= number <= MAX_RECHECK:
        raise ConfigError(f"{name} must be between 0 and {MAX_RECHECK:g} seconds, got {value!r}")
    return number


def _strs(value: Any, name: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise ConfigError(f"{name} must be a list of strings, got {value!r}")


def _model_config(
    table: Mapping[str, Any], env: Mapping[str, str], overrides: Mapping[str, Any]
) -> ModelConfig:
    raw: dict[str, Any] = dict(table)
    for key, var in (
        ("name", "PLAIT_MODEL"),
        ("device", "PLAIT_DEVICE"),
        ("backend", "PLAIT_MODEL_BACKEND"),
        ("batch_size", "PLAIT_BATCH_SIZE"),
    ):
        if env.get(var):
            raw[key] = env[var]
    for key in ("name", "device", "backend", "batch_size", "max_seq_length"):
        if overrides.get(f"model_{key}") is not None:
            raw[key] = overrides[f"model_{key}"]
    device = str(raw.get("device", "cpu"))
    if device not in ("cpu", "cuda", "auto") and not device.startswith("cuda:"):
        raise ConfigError(f"model.device must be cpu, cuda or auto, got {device!r}")
    backend = str(raw.get("backend", "auto"))
    if backend not in BACKENDS:
        raise ConfigError(f"model.backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    threads = raw.get("threads")
    punctuation = str(raw.get("punctuation", "keep"))
    if punctuation not in PUNCTUATION:
        raise ConfigError(
            f"model.punctuation must be keep (the transformer reads code as written) or drop (without its "
            f"punctuation: faster, slightly less precise), got {punctuation!r}"
        )
    return ModelConfig(
        name=str(raw.get("name", DEFAULT_MODEL)),
        device=device,
        backend=backend,
        batch_size=_int(raw.get("batch_size", 32), "model.batch_size"),
        max_seq_length=_int(raw.get("max_seq_length", 256), "model.max_seq_length", 8),
        query_prefix=str(raw.get("query_prefix", "")),
        document_prefix=str(raw.get("document_prefix", "")),
        threads=None if threads is None else _int(threads, "model.threads"),
        cache_dir=str(raw["cache_dir"]) if raw.get("cache_dir") else None,
        punctuation=punctuation,
    )


def load_settings(
    root: Path,
    *,
    env: Mapping[str, str] | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> Settings:
    """Resolve the settings of the workspace at ``root`` (which must exist)."""
    env = env or {}
    overrides = overrides or {}
    root = root.resolve()
    table = read_project_config(root)
    index_dir = overrides.get("index_dir") or env.get("PLAIT_INDEX_DIR")
    if not index_dir and table.get("index_dir") is not None:
        index_dir = project_index_dir(root, table["index_dir"])
    index_table = table.get("index", {}) if isinstance(table.get("index"), dict) else {}
    chunk_table = table.get("chunks", {}) if isinstance(table.get("chunks"), dict) else {}
    model_table = table.get("model", {})
    if isinstance(model_table, str):
        model_table = {"name": model_table}
    if not isinstance(model_table, dict):
        raise ConfigError(f"[model] must be a table or a model name, got {model_table!r}")
    max_bytes = (
        overrides.get("max_file_bytes")
        or index_table.get("max_file_bytes")
        or table.get("max_file_bytes", DEFAULT_MAX_FILE_BYTES)
    )
    defaults = ChunkSettings()
    chunks = ChunkSettings(
        max_lines=_int(chunk_table.get("max_lines", defaults.max_lines), "chunks.max_lines", 4),
        overlap_lines=_int(
            chunk_table.get("overlap_lines", defaults.overlap_lines), "chunks.overlap_lines", 0
        ),
        min_lines=_int(chunk_table.get("min_lines", defaults.min_lines), "chunks.min_lines"),
        merge_lines=_int(chunk_table.get("merge_lines", defaults.merge_lines), "chunks.merge_lines"),
        window_lines=_int(chunk_table.get("window_lines", defaults.window_lines), "chunks.window_lines", 4),
        max_chars=_int(chunk_table.get("max_chars", defaults.max_chars), "chunks.max_chars", 200),
    )
    if chunks.overlap_lines >= chunks.max_lines:
        raise ConfigError("chunks.overlap_lines must be smaller than chunks.max_lines")
    guard = table.get("guard", {})
    rules = guard.get("rules", []) if isinstance(guard, dict) else []
    if not isinstance(rules, list) or not all(isinstance(r, dict) for r in rules):
        raise ConfigError("[[guard.rules]] must be an array of tables")
    server = table.get("server", {})
    recheck = _first(
        overrides.get("snapshot_recheck"),
        env.get("PLAIT_SNAPSHOT_RECHECK"),
        index_table.get("snapshot_recheck"),
    )
    ranking = table.get("ranking", {})
    if not isinstance(ranking, dict):
        raise ConfigError(f"[ranking] must be a table, got {ranking!r}")
    return Settings(
        root=root,
        index_dir=str(index_dir) if index_dir else default_index_dir(root),
        include=_strs(
            overrides.get("include") or index_table.get("include") or table.get("include"), "include"
        ),
        exclude=_strs(
            overrides.get("exclude") or index_table.get("exclude") or table.get("exclude"), "exclude"
        ),
        max_file_bytes=_int(max_bytes, "max_file_bytes"),
        chunks=chunks,
        model=_model_config(model_table, env, overrides),
        guard=tuple(rules),
        server=server if isinstance(server, dict) else {},
        ranking=ranking,
        snapshot_recheck=_seconds(recheck, "snapshot_recheck (PLAIT_SNAPSHOT_RECHECK)"),
    )


def _first(*values: Any) -> Any:
    """The first value that is given (not ``None``): 0 is a value."""
    return next((v for v in values if v is not None), None)
