"""Configuration in two stages: raw (flags, env, plait.toml) → a frozen, resolved :class:`Settings`.

``load_settings`` is called once at the edge (CLI, server start, daemon); library code receives the
``Settings`` and never reads ``os.environ`` itself. Precedence: explicit overrides (flags) > env >
``plait.toml`` > ``[tool.plait]`` in ``pyproject.toml`` > defaults.
"""

from __future__ import annotations

import hashlib
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from platformdirs import user_cache_dir

from models.config import BACKENDS, DEFAULT_MODEL, ModelConfig
from models.errors import ConfigError

DEFAULT_MAX_FILE_BYTES = 1_000_000


@dataclass(frozen=True, slots=True)
class ChunkSettings:
    max_lines: int = 80  # definitions longer than this are split into windows
    overlap_lines: int = 10
    min_lines: int = 6  # smaller neighbouring definitions are merged up to max_lines
    window_lines: int = 50  # line windows for files without a grammar
    max_chars: int = 4000


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

    @property
    def index_is_local(self) -> bool:
        return "://" not in self.index_dir

    def with_model(self, model: ModelConfig) -> Settings:
        return replace(self, model=model)


def default_index_dir(root: Path) -> str:
    digest = hashlib.sha256(str(root.resolve()).encode()).hexdigest()[:16]
    return str(Path(user_cache_dir("plait", appauthor=False)) / f"{root.resolve().name}-{digest}")


def read_project_config(root: Path) -> dict[str, Any]:
    """The ``plait.toml`` table, else ``[tool.plait]`` of ``pyproject.toml``, else ``{}``."""
    plait_toml = root / "plait.toml"
    try:
        if plait_toml.is_file():
            return tomllib.loads(plait_toml.read_text(encoding="utf-8"))
        pyproject = root / "pyproject.toml"
        if pyproject.is_file():
            data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
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
    index_dir = overrides.get("index_dir") or env.get("PLAIT_INDEX_DIR") or table.get("index_dir")
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
    )
