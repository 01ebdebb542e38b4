"""The indexer: workspace scanning, languages, tree-sitter symbols and chunks, LanceDB stores,
incremental builds and the reindex daemon.

May import ``models``; never ``search``. Other packages use the names in ``_EXPORTS`` only
(``lint-imports`` checks it). They are imported on first use (:func:`models.lazy.lazy_exports`):
importing one loads only the submodule that defines it, so ``from indexer import load_settings``
does not import LanceDB, pyarrow or numpy. To add a public name, add it to its module's tuple in
``_EXPORTS`` and to the ``TYPE_CHECKING`` imports (a test checks that the two agree).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from models import lazy_exports

if TYPE_CHECKING:
    from indexer.abbreviations import ABBREVIATIONS as ABBREVIATIONS
    from indexer.abbreviations import NAME_FORMS as NAME_FORMS
    from indexer.abbreviations import short_forms as short_forms
    from indexer.beneath import TEMP_PREFIX as TEMP_PREFIX
    from indexer.beneath import TEMP_SUFFIX as TEMP_SUFFIX
    from indexer.beneath import SpecialFileError as SpecialFileError
    from indexer.beneath import dir_beneath as dir_beneath
    from indexer.beneath import is_regular_beneath as is_regular_beneath
    from indexer.beneath import kind_of as kind_of
    from indexer.beneath import lstat_beneath as lstat_beneath
    from indexer.beneath import lstat_kind as lstat_kind
    from indexer.beneath import makedirs_beneath as makedirs_beneath
    from indexer.beneath import open_beneath as open_beneath
    from indexer.beneath import open_regular as open_regular
    from indexer.beneath import read_beneath as read_beneath
    from indexer.beneath import read_fd as read_fd
    from indexer.beneath import root_fd as root_fd
    from indexer.beneath import write_atomic as write_atomic
    from indexer.beneath import write_temp as write_temp
    from indexer.build import vector_matrix as vector_matrix
    from indexer.config import ChunkSettings as ChunkSettings
    from indexer.config import Settings as Settings
    from indexer.config import default_index_dir as default_index_dir
    from indexer.config import load_settings as load_settings
    from indexer.daemon import run_watch as run_watch
    from indexer.daemon import start_background_watcher as start_background_watcher
    from indexer.daemon_state import describe_watcher as describe_watcher
    from indexer.daemon_state import read_watcher_state as read_watcher_state
    from indexer.errors import GrammarUnavailableError as GrammarUnavailableError
    from indexer.errors import IndexCorruptError as IndexCorruptError
    from indexer.errors import IndexLockedError as IndexLockedError
    from indexer.errors import IndexMissingError as IndexMissingError
    from indexer.errors import IndexStoreError as IndexStoreError
    from indexer.filters import glob_matcher as glob_matcher
    from indexer.filters import path_filter as path_filter
    from indexer.fleet import FleetError as FleetError
    from indexer.fleet import FleetResult as FleetResult
    from indexer.fleet import fleet_summary as fleet_summary
    from indexer.fleet import plan_fleet as plan_fleet
    from indexer.fleet import run_fleet_here as run_fleet_here
    from indexer.fleet import run_fleet_on_ray as run_fleet_on_ray
    from indexer.imports import IMPORT_LANGUAGES as IMPORT_LANGUAGES
    from indexer.imports import ImportRef as ImportRef
    from indexer.imports import extract_imports as extract_imports
    from indexer.index import ANN_INDEX_TYPE as ANN_INDEX_TYPE
    from indexer.index import ANN_NPROBES as ANN_NPROBES
    from indexer.index import ANN_REFINE as ANN_REFINE
    from indexer.index import Index as Index
    from indexer.index import ann_ef as ann_ef
    from indexer.languages import EXTENSIONS as EXTENSIONS
    from indexer.languages import FILENAMES as FILENAMES
    from indexer.languages import SHARED_SUFFIXES as SHARED_SUFFIXES
    from indexer.languages import SYMBOL_LANGUAGES as SYMBOL_LANGUAGES
    from indexer.languages import detect_language as detect_language
    from indexer.lexical import K1 as K1
    from indexer.lexical import NUMERIC_WIDTHS as NUMERIC_WIDTHS
    from indexer.lexical import STOP_WORDS as STOP_WORDS
    from indexer.lexical import B as B
    from indexer.lexical import LexicalIndex as LexicalIndex
    from indexer.lexical import code_tokens as code_tokens
    from indexer.lexical import identifier_parts as identifier_parts
    from indexer.lexical import name_widths as name_widths
    from indexer.lexical import name_words as name_words
    from indexer.lexical import phrase_tokens as phrase_tokens
    from indexer.lexical import stem_words as stem_words
    from indexer.lexical import typed_name_words as typed_name_words
    from indexer.lexical import words_of_parts as words_of_parts
    from indexer.lookup import SymbolMatch as SymbolMatch
    from indexer.lookup import SymbolRow as SymbolRow
    from indexer.lookup import SymbolTable as SymbolTable
    from indexer.names import dotted as dotted
    from indexer.names import normalise as normalise
    from indexer.nearest import VectorHit as VectorHit
    from indexer.ownership import has_tables as has_tables
    from indexer.parse_jobs import Parsed as Parsed
    from indexer.parse_jobs import parse_file as parse_file
    from indexer.parsing import captures as captures
    from indexer.parsing import compile_user_query as compile_user_query
    from indexer.parsing import parse as parse
    from indexer.procs import GitStatus as GitStatus
    from indexer.procs import ProcResult as ProcResult
    from indexer.procs import git_status as git_status
    from indexer.procs import rg_binary as rg_binary
    from indexer.procs import run as run
    from indexer.report import BuildReport as BuildReport
    from indexer.report import Progress as Progress
    from indexer.revision import describe_revision as describe_revision
    from indexer.revision import tree_revision as tree_revision
    from indexer.sandbox import run_beneath as run_beneath
    from indexer.status import IndexState as IndexState
    from indexer.status import IndexStatus as IndexStatus
    from indexer.status import saved_status as saved_status
    from indexer.symbol_reads import lookup_names as lookup_names
    from indexer.symbols import extract_symbols as extract_symbols
    from indexer.textview import TextView as TextView
    from indexer.textview import open_view as open_view
    from indexer.types import DATA_KINDS as DATA_KINDS
    from indexer.types import FUNCTION_KINDS as FUNCTION_KINDS
    from indexer.types import TYPE_KINDS as TYPE_KINDS
    from indexer.types import Chunk as Chunk
    from indexer.types import ChunkSpan as ChunkSpan
    from indexer.types import FileRecord as FileRecord
    from indexer.types import Symbol as Symbol
    from indexer.types import SymbolKind as SymbolKind
    from indexer.types import sha256_hex as sha256_hex
    from indexer.workspace import ALWAYS_SKIP_DIRS as ALWAYS_SKIP_DIRS
    from indexer.workspace import BINARY_SNIFF_BYTES as BINARY_SNIFF_BYTES
    from indexer.workspace import IGNORE_FILES as IGNORE_FILES
    from indexer.workspace import TEMP_FILE_GLOB as TEMP_FILE_GLOB
    from indexer.workspace import ConfigGlobs as ConfigGlobs
    from indexer.workspace import Walker as Walker
    from indexer.workspace import WalkStats as WalkStats
    from indexer.workspace import WorkspaceFile as WorkspaceFile
    from indexer.workspace import find_root as find_root
    from indexer.workspace import is_binary as is_binary
    from indexer.workspace import iter_files as iter_files
    from indexer.workspace import skips_content as skips_content

_EXPORTS: dict[str, tuple[str, ...]] = {
    "indexer.abbreviations": ("ABBREVIATIONS", "NAME_FORMS", "short_forms"),
    "indexer.beneath": (
        "SpecialFileError",
        "TEMP_PREFIX",
        "TEMP_SUFFIX",
        "dir_beneath",
        "is_regular_beneath",
        "kind_of",
        "lstat_beneath",
        "lstat_kind",
        "makedirs_beneath",
        "open_beneath",
        "open_regular",
        "read_beneath",
        "read_fd",
        "root_fd",
        "write_atomic",
        "write_temp",
    ),
    "indexer.build": ("vector_matrix",),
    "indexer.config": ("ChunkSettings", "Settings", "default_index_dir", "load_settings"),
    "indexer.daemon": ("run_watch", "start_background_watcher"),
    "indexer.daemon_state": ("describe_watcher", "read_watcher_state"),
    "indexer.errors": (
        "GrammarUnavailableError",
        "IndexCorruptError",
        "IndexLockedError",
        "IndexMissingError",
        "IndexStoreError",
    ),
    "indexer.filters": ("glob_matcher", "path_filter"),
    "indexer.fleet": (
        "FleetError",
        "FleetResult",
        "fleet_summary",
        "plan_fleet",
        "run_fleet_here",
        "run_fleet_on_ray",
    ),
    "indexer.imports": ("IMPORT_LANGUAGES", "ImportRef", "extract_imports"),
    "indexer.index": ("ANN_INDEX_TYPE", "ANN_NPROBES", "ANN_REFINE", "Index", "ann_ef"),
    "indexer.languages": (
        "EXTENSIONS",
        "FILENAMES",
        "SHARED_SUFFIXES",
        "SYMBOL_LANGUAGES",
        "detect_language",
    ),
    "indexer.lexical": (
        "B",
        "K1",
        "LexicalIndex",
        "NUMERIC_WIDTHS",
        "STOP_WORDS",
        "code_tokens",
        "identifier_parts",
        "name_widths",
        "name_words",
        "phrase_tokens",
        "stem_words",
        "typed_name_words",
        "words_of_parts",
    ),
    "indexer.lookup": ("SymbolMatch", "SymbolRow", "SymbolTable"),
    "indexer.names": ("dotted", "normalise"),
    "indexer.nearest": ("VectorHit",),
    "indexer.ownership": ("has_tables",),
    "indexer.parse_jobs": ("Parsed", "parse_file"),
    "indexer.parsing": ("captures", "compile_user_query", "parse"),
    "indexer.procs": ("GitStatus", "ProcResult", "git_status", "rg_binary", "run"),
    "indexer.report": ("BuildReport", "Progress"),
    "indexer.revision": ("describe_revision", "tree_revision"),
    "indexer.sandbox": ("run_beneath",),
    "indexer.status": ("IndexState", "IndexStatus", "saved_status"),
    "indexer.symbol_reads": ("lookup_names",),
    "indexer.symbols": ("extract_symbols",),
    "indexer.textview": ("TextView", "open_view"),
    "indexer.types": (
        "Chunk",
        "ChunkSpan",
        "FileRecord",
        "DATA_KINDS",
        "FUNCTION_KINDS",
        "TYPE_KINDS",
        "Symbol",
        "SymbolKind",
        "sha256_hex",
    ),
    "indexer.workspace": (
        "ALWAYS_SKIP_DIRS",
        "BINARY_SNIFF_BYTES",
        "ConfigGlobs",
        "IGNORE_FILES",
        "TEMP_FILE_GLOB",
        "WalkStats",
        "Walker",
        "WorkspaceFile",
        "find_root",
        "is_binary",
        "iter_files",
        "skips_content",
    ),
}
__all__, _first_use = lazy_exports(__name__, _EXPORTS)
if not TYPE_CHECKING:  # hidden from type checkers, which then flag a name missing from the table
    __getattr__ = _first_use
