"""The indexer: workspace scanning, languages, tree-sitter symbols and chunks, LanceDB stores,
incremental builds and the reindex daemon.

May import ``models``; never ``search``. The public surface is listed in ``__all__``. Its names are
imported on first use (module ``__getattr__``): importing one loads only the submodule that defines
it, so ``from indexer import load_settings`` does not import LanceDB, pyarrow or numpy. To add a
public name, add it to its module's tuple in ``_SUBMODULES`` and to the ``TYPE_CHECKING`` imports
(``__all__`` is built from the table).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from indexer.build import BuildReport, Progress
    from indexer.config import ChunkSettings, Settings, default_index_dir, load_settings
    from indexer.errors import IndexCorruptError, IndexLockedError, IndexMissingError, IndexStoreError
    from indexer.globs import glob_matcher
    from indexer.index import Index, IndexState, IndexStatus, VectorHit
    from indexer.lookup import SymbolMatch, SymbolRow
    from indexer.procs import GitStatus, git_status
    from indexer.types import Chunk, ChunkSpan, FileRecord, Symbol
    from indexer.workspace import Walker, WalkStats, WorkspaceFile, find_root, iter_files, skips_content

_SUBMODULES: dict[str, tuple[str, ...]] = {
    "indexer.build": ("BuildReport", "Progress"),
    "indexer.config": ("ChunkSettings", "Settings", "default_index_dir", "load_settings"),
    "indexer.errors": ("IndexCorruptError", "IndexLockedError", "IndexMissingError", "IndexStoreError"),
    "indexer.globs": ("glob_matcher",),
    "indexer.index": ("Index", "IndexState", "IndexStatus", "VectorHit"),
    "indexer.lookup": ("SymbolMatch", "SymbolRow"),
    "indexer.procs": ("GitStatus", "git_status"),
    "indexer.types": ("Chunk", "ChunkSpan", "FileRecord", "Symbol"),
    "indexer.workspace": ("Walker", "WalkStats", "WorkspaceFile", "find_root", "iter_files", "skips_content"),
}
_WHERE = {name: module for module, names in _SUBMODULES.items() for name in names}

__all__ = [
    "BuildReport",
    "Chunk",
    "ChunkSettings",
    "ChunkSpan",
    "FileRecord",
    "GitStatus",
    "Index",
    "IndexCorruptError",
    "IndexLockedError",
    "IndexMissingError",
    "IndexState",
    "IndexStatus",
    "IndexStoreError",
    "Progress",
    "Settings",
    "Symbol",
    "SymbolMatch",
    "SymbolRow",
    "VectorHit",
    "WalkStats",
    "Walker",
    "WorkspaceFile",
    "default_index_dir",
    "find_root",
    "git_status",
    "glob_matcher",
    "iter_files",
    "load_settings",
    "skips_content",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'indexer' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
