"""The indexer: workspace scanning, languages, tree-sitter symbols and chunks, LanceDB stores,
incremental builds and the reindex daemon.

May import ``models``; never ``search``. The public surface is listed in ``__all__``.
"""

from indexer.build import BuildReport, Progress
from indexer.config import ChunkSettings, Settings, default_index_dir, load_settings
from indexer.errors import IndexCorruptError, IndexLockedError, IndexMissingError, IndexStoreError
from indexer.index import ChunkSpan, Index, IndexState, IndexStatus, VectorHit, glob_matcher
from indexer.lookup import SymbolMatch, SymbolRow
from indexer.procs import GitStatus, git_status
from indexer.revision import describe as describe_revision
from indexer.revision import tree_revision
from indexer.types import Chunk, FileRecord, Symbol
from indexer.workspace import Walker, WalkStats, WorkspaceFile, find_root, iter_files, skips_content

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
    "describe_revision",
    "find_root",
    "git_status",
    "glob_matcher",
    "iter_files",
    "load_settings",
    "skips_content",
    "tree_revision",
]
