"""Parsing a first build's files while the process is still opening the index.

A process that opens a LanceDB index first imports lancedb, 0.7–0.9 s of one core here, and a first
build parses every file only after that. Nothing in a first build needs the index to decide what to
parse (every file is new), so when the index has no table yet and this process has not imported
lancedb, :meth:`ParseAhead.start` walks the tree's first files and begins parsing them in worker
processes (:func:`indexer.parse_jobs.parse_pool`) before the index is opened. The build then takes a file's
outcome from there when the job it would run is the very same one (path, modification time,
language, no earlier hash) and parses any other file itself, so the index is the one in-process
parsing gives, file for file. Only the first :data:`AHEAD_MAX_FILES` files are parsed ahead, so
memory stays bounded by that many files' symbols and chunks; a build of more files goes on with the
same workers (:attr:`ParseAhead.pool`).
"""

from __future__ import annotations

import logging
import sys
from concurrent.futures import Future, ProcessPoolExecutor
from itertools import islice
from pathlib import Path

from indexer import ownership
from indexer.config import Settings
from indexer.parse_jobs import TASK_FILES, ParseJob, parse_pool, read_and_parse
from indexer.workspace import Walker, WalkStats

log = logging.getLogger(__name__)

#: A first build of fewer files than this parses in-process: two workers' start-up (0.15 s of CPU
#: each) would cost about what the overlap saves.
AHEAD_MIN_FILES = 100
#: At most this many files' outcomes are parsed ahead (and held until the build takes them).
AHEAD_MAX_FILES = 2000


def parse_many(jobs: list[ParseJob]) -> list[tuple[str, object]]:
    """:func:`read_and_parse` for each job, in a worker process."""
    return [read_and_parse(job) for job in jobs]


def lancedb_imported() -> bool:
    """Whether this process has imported lancedb already (opening an index then costs little)."""
    return "lancedb" in sys.modules


class ParseAhead:
    """Outcomes of files parsed in worker processes before the build asked for them."""

    def __init__(self, pool: ProcessPoolExecutor, jobs: list[ParseJob]) -> None:
        self.pool = pool
        self._waiting: dict[ParseJob, tuple[Future[list[tuple[str, object]]], int]] = {}
        for i in range(0, len(jobs), TASK_FILES):
            part = jobs[i : i + TASK_FILES]
            future = pool.submit(parse_many, part)
            for k, job in enumerate(part):
                self._waiting[job] = (future, k)
        self.taken = 0
        self.closed = False

    @classmethod
    def start(cls, settings: Settings, location: Path | None) -> ParseAhead | None:
        """Begin parsing when this is a first build of a local index (``location`` holds no table)
        in a process that has not imported lancedb, of at least AHEAD_MIN_FILES files on more than
        one core; None otherwise (the build parses as usual)."""
        if location is None or lancedb_imported() or ownership.has_tables(location):
            return None
        try:  # the walk's first files, in the order the build commits them: not the whole tree
            files = list(islice(Walker(settings).walk(WalkStats()), AHEAD_MAX_FILES))
        except Exception as exc:  # the build walks again and reports what went wrong
            log.debug("no parsing ahead: %s", exc)
            return None
        if len(files) < AHEAD_MIN_FILES:
            return None
        jobs = [ParseJob(f.path, f.mtime_ns, f.language, None) for f in files]
        pool = parse_pool(settings, len(jobs), min_files=AHEAD_MIN_FILES)
        if pool is None:
            return None
        return cls(pool, jobs)

    def take(self, job: ParseJob) -> tuple[str, object] | None:
        """The outcome of ``job`` if it was parsed ahead (each is handed out once), else None."""
        entry = self._waiting.pop(job, None)
        if entry is None:
            return None
        future, k = entry
        try:
            outcome = future.result()[k]
        except Exception as exc:  # a worker died: this file is parsed in-process instead
            log.debug("%s: parsed again after the worker failed: %s", job.path, exc)
            return None
        self.taken += 1
        return outcome

    def close(self) -> None:
        """Stop the workers (once parsing is over; again does nothing); outcomes never taken are dropped."""
        self._waiting.clear()
        if not self.closed:
            self.closed = True
            self.pool.shutdown(wait=True, cancel_futures=True)
