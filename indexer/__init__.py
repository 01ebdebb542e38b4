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
    from indexer.config import ChunkSettings, Settings, default_index_dir, load_settings
    from indexer.errors import IndexCorruptError, IndexLockedError, IndexMissingError, IndexStoreError
    from indexer.filters import glob_matcher
    from indexer.index import Index
    from indexer.lookup import SymbolMatch, SymbolRow
    from indexer.nearest import VectorHit
    from indexer.ownership import has_tables
    from indexer.procs import GitStatus, git_status
    from indexer.report import BuildReport, Progress
    from indexer.status import IndexState, IndexStatus
    from indexer.textview import TextView, open_view
    from indexer.types import Chunk, ChunkSpan, FileRecord, Symbol
    from indexer.workspace import Walker, WalkStats, WorkspaceFile, find_root, iter_files, skips_content

_SUBMODULES: dict[str, tuple[str, ...]] = {
    "indexer.config": ("ChunkSettings", "Settings", "default_index_dir", "load_settings"),
    "indexer.errors": ("IndexCorruptError", "IndexLockedError", "IndexMissingError", "IndexStoreError"),
    "indexer.filters": ("glob_matcher",),
    "indexer.index": ("Index",),
    "indexer.lookup": ("SymbolMatch", "SymbolRow"),
    "indexer.nearest": ("VectorHit",),
    "indexer.ownership": ("has_tables",),
    "indexer.procs": ("GitStatus", "git_status"),
    "indexer.report": ("BuildReport", "Progress"),
    "indexer.status": ("IndexState", "IndexStatus"),
    "indexer.textview": ("TextView", "open_view"),
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
    "TextView",
    "VectorHit",
    "WalkStats",
    "Walker",
    "WorkspaceFile",
    "default_index_dir",
    "find_root",
    "git_status",
    "glob_matcher",
    "has_tables",
    "iter_files",
    "load_settings",
    "open_view",
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
