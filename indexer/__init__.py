"""The indexer: workspace scanning, languages, tree-sitter symbols and chunks, LanceDB stores,
incremental builds and the reindex daemon.

May import ``models``; never ``search``. The public surface is listed in ``__all__``.
"""

from indexer.beneath import read_beneath
from indexer.build import BuildReport, Progress
from indexer.config import ChunkSettings, Settings, default_index_dir, load_settings
from indexer.errors import IndexCorruptError, IndexLockedError, IndexMissingError, IndexStoreError
from indexer.fleet import FleetError, FleetResult
from indexer.fleet import plan as plan_fleet
from indexer.fleet import run_here as run_fleet_here
from indexer.fleet import run_on_ray as run_fleet_on_ray
from indexer.fleet import summary as fleet_summary
from indexer.index import ChunkSpan, Index, IndexState, IndexStatus, VectorHit, glob_matcher
from indexer.languages import detect_language
from indexer.lookup import SymbolMatch, SymbolRow, SymbolTable
from indexer.parse_jobs import Parsed, parse_file
from indexer.procs import GitStatus, git_status
from indexer.revision import describe as describe_revision
from indexer.revision import tree_revision
from indexer.symbol_reads import STRICT_MATCHES
from indexer.types import Chunk, FileRecord, Symbol
from indexer.workspace import Walker, WalkStats, WorkspaceFile, find_root, iter_files, skips_content

__all__ = [
    "STRICT_MATCHES",
    "BuildReport",
    "Chunk",
    "ChunkSettings",
    "ChunkSpan",
    "FileRecord",
    "FleetError",
    "FleetResult",
    "GitStatus",
    "Index",
    "IndexCorruptError",
    "IndexLockedError",
    "IndexMissingError",
    "IndexState",
    "IndexStatus",
    "IndexStoreError",
    "Parsed",
    "Progress",
    "Settings",
    "Symbol",
    "SymbolMatch",
    "SymbolRow",
    "SymbolTable",
    "VectorHit",
    "WalkStats",
    "Walker",
    "WorkspaceFile",
    "default_index_dir",
    "describe_revision",
    "detect_language",
    "find_root",
    "fleet_summary",
    "git_status",
    "glob_matcher",
    "iter_files",
    "load_settings",
    "parse_file",
    "plan_fleet",
    "read_beneath",
    "run_fleet_here",
    "run_fleet_on_ray",
    "skips_content",
    "tree_revision",
]
