"""Reading and parsing the changed files of a build: symbols and chunks of each, in-process or in
worker processes for large builds.

A build of at least :data:`PARALLEL_MIN_FILES` changed files, on a machine with more than one
usable core, reads and parses them in spawned worker processes (:func:`parse_pool`); the result
is the same as in-process parsing, file for file.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from indexer.beneath import read_beneath
from indexer.chunks import chunk_file
from indexer.config import Settings
from indexer.languages import SYMBOL_LANGUAGES
from indexer.parent_watch import usable_cores, watch_parent
from indexer.types import Chunk, FileRecord, Symbol, sha256_hex
from models import PlaitError

log = logging.getLogger(__name__)

#: A build of at least this many changed files reads and parses them in worker processes.
PARALLEL_MIN_FILES = 2000
MAX_PARSE_WORKERS = 8


@dataclass(frozen=True, slots=True)
class Parsed:
    record: FileRecord
    symbols: list[Symbol]
    chunks: list[Chunk]


def decode(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


def parse_file(path: str, data: bytes, language: str | None, settings: Settings, mtime_ns: int) -> Parsed:
    """Symbols and chunks of one file's bytes (never raises for bad content)."""
    from indexer.symbols import extract_symbols

    symbols: list[Symbol] = []
    if language in SYMBOL_LANGUAGES:
        try:
            symbols = extract_symbols(data, language, path)
        except PlaitError as exc:
            log.warning("%s: symbols skipped: %s", path, exc)
    chunks = chunk_file(path, decode(data), symbols, language, settings.chunks)
    record = FileRecord(path, sha256_hex(data), len(data), mtime_ns, language, len(symbols), len(chunks))
    return Parsed(record, symbols, chunks)


@dataclass(frozen=True, slots=True)
class ParseJob:
    path: str
    mtime_ns: int
    language: str | None
    old_hash: str | None  # the manifest's sha256 of the file, if it was indexed


_worker_settings: Settings | None = None


def _init_worker(settings: Settings, parent: int) -> None:
    global _worker_settings
    _worker_settings = settings
    watch_parent(parent)  # a build killed with SIGKILL cannot shut its pool down


def read_and_parse(job: ParseJob, settings: Settings | None = None) -> tuple[str, object]:
    """One changed file: ("parsed", Parsed), ("same", FileRecord) when only its mtime changed,
    ("missing", None) or ("error", message). Runs in a worker process for large builds."""
    settings = settings or _worker_settings
    assert settings is not None
    try:
        data = read_beneath(
            settings.root, job.path, 4 * settings.max_file_bytes
        )  # no symlink out of the root
    except FileNotFoundError:
        return "missing", None
    except OSError as exc:
        return "error", f"{job.path}: {exc.strerror or exc}"
    digest = sha256_hex(data)
    if job.old_hash == digest:
        return "same", FileRecord(job.path, digest, len(data), job.mtime_ns, job.language, -1, -1)
    return "parsed", parse_file(job.path, data, job.language, settings, job.mtime_ns)


def parse_pool(settings: Settings, files: int, *, min_files: int | None = None) -> ProcessPoolExecutor | None:
    """Worker processes for a build of at least ``min_files`` (default PARALLEL_MIN_FILES) files on a
    machine with more than one usable core (spawned: the parent holds LanceDB threads, which a fork
    would copy mid-state)."""
    cores = usable_cores()
    if files < (PARALLEL_MIN_FILES if min_files is None else min_files) or cores < 2:
        return None
    return ProcessPoolExecutor(
        max_workers=min(cores, MAX_PARSE_WORKERS),
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_init_worker,
        initargs=(settings, os.getpid()),
    )
