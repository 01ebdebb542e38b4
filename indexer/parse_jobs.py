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
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING

from indexer.beneath import read_beneath
from indexer.chunks import chunk_file
from indexer.config import Settings
from indexer.languages import SYMBOL_LANGUAGES
from indexer.parent_watch import usable_cores, watch_parent
from indexer.types import Chunk, FileRecord, Symbol, sha256_hex
from models import PlaitError

if TYPE_CHECKING:
    import pyarrow as pa

log = logging.getLogger(__name__)

#: A build of at least this many changed files reads and parses them in worker processes.
PARALLEL_MIN_FILES = 2000
MAX_PARSE_WORKERS = 8
TASK_FILES = 8  # files a parse worker reads and parses per task


@dataclass(frozen=True, slots=True)
class Parsed:
    record: FileRecord
    symbols: list[Symbol]
    chunks: list[Chunk]


@dataclass(frozen=True, slots=True)
class ParsedRows:
    """A file parsed in a worker process, as the rows a build writes: its manifest record (which counts
    its symbols and chunks), and the tables its worker made for its group of files, where its own
    rows start at ``first_symbol`` and ``first_chunk``."""

    record: FileRecord
    symbols: pa.Table
    first_symbol: int
    chunks: pa.Table
    first_chunk: int


@dataclass(frozen=True, slots=True)
class ParsedGroup:
    """The outcomes of a group of jobs read and parsed in a worker process (:func:`parse_group`), the
    rows of its parsed files as two tables made there: a table is pickled as a few buffers, where the
    symbols and chunks of a large tree were a million objects pickled one by one and made into rows by
    the build's own process (~40 CPU-seconds of it over the Linux tree)."""

    kinds: list[tuple[str, object]]  # per job: read_and_parse's outcome, a parsed file's record alone
    symbols: pa.Table
    chunks: pa.Table

    def outcomes(self) -> list[tuple[str, object]]:
        """Per job, in order: ``("parsed", ParsedRows)``, or the outcome it had."""
        out: list[tuple[str, object]] = []
        at_symbol = at_chunk = 0
        for kind, value in self.kinds:
            if kind == "parsed" and isinstance(value, FileRecord):
                out.append((kind, ParsedRows(value, self.symbols, at_symbol, self.chunks, at_chunk)))
                at_symbol += value.symbols
                at_chunk += value.chunks
            else:
                out.append((kind, value))
        return out


def parse_group(jobs: list[ParseJob]) -> ParsedGroup:
    """:func:`read_and_parse` of each job, in a worker process, with the parsed files' rows as tables."""
    from indexer.tables import chunks_table, symbols_table

    kinds: list[tuple[str, object]] = []
    symbols: list[Symbol] = []
    chunks: list[Chunk] = []
    for job in jobs:
        kind, value = read_and_parse(job)
        if kind == "parsed" and isinstance(value, Parsed):
            symbols.extend(value.symbols)
            chunks.extend(value.chunks)
            kinds.append((kind, value.record))
        else:
            kinds.append((kind, value))
    return ParsedGroup(kinds, symbols_table(symbols), chunks_table(chunks))


@dataclass(slots=True)
class _Run:
    """Adjacent rows of one worker group's tables, taken as one slice of each."""

    symbols: pa.Table
    chunks: pa.Table
    symbol_start: int
    symbol_stop: int
    chunk_start: int
    chunk_stop: int


def batch_tables(parsed: Sequence[Parsed | ParsedRows]) -> tuple[pa.Table, pa.Table]:
    """The symbols and chunks tables of ``parsed`` files, in their order: the rows made in-process for
    :class:`Parsed` files, the worker's rows of :class:`ParsedRows` (those of one group taken as one
    slice where they follow each other)."""
    import pyarrow as pa

    from indexer.tables import chunks_table, symbols_table

    symbols: list[pa.Table] = []
    chunks: list[pa.Table] = []
    # What is not in those yet: files parsed here, or one run of adjacent rows of one group; never both.
    objects: list[Parsed] = []
    run: _Run | None = None

    def flush() -> None:
        nonlocal run
        if objects:
            symbols.append(symbols_table([s for p in objects for s in p.symbols]))
            chunks.append(chunks_table([c for p in objects for c in p.chunks]))
            objects.clear()
        if run is not None:
            symbols.append(run.symbols.slice(run.symbol_start, run.symbol_stop - run.symbol_start))
            chunks.append(run.chunks.slice(run.chunk_start, run.chunk_stop - run.chunk_start))
            run = None

    for p in parsed:
        if isinstance(p, Parsed):
            if run is not None:
                flush()
            objects.append(p)
            continue
        s_stop, c_stop = p.first_symbol + p.record.symbols, p.first_chunk + p.record.chunks
        if (
            run is not None
            and run.symbols is p.symbols
            and run.symbol_stop == p.first_symbol
            and run.chunk_stop == p.first_chunk
        ):
            run.symbol_stop, run.chunk_stop = s_stop, c_stop
        else:
            flush()
            run = _Run(p.symbols, p.chunks, p.first_symbol, s_stop, p.first_chunk, c_stop)
    flush()
    if not symbols:
        return symbols_table([]), chunks_table([])
    return pa.concat_tables(symbols), pa.concat_tables(chunks)


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
