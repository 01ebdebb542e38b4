"""The incremental build: walk → parse → symbols and chunks → stores → vectors.

This module runs a build (:class:`Builder`) and writes its symbols half; reading and parsing the
files is :mod:`indexer.parse_jobs`, the rows are made by :mod:`indexer.tables`, and the vectors half
is :mod:`indexer.vector_build`.

Order of commits, which is what makes a killed build safe:

1. For each batch of changed files: delete their symbol and chunk rows, add the new ones, then
   upsert their manifest rows. A kill before the manifest upsert leaves the old hash in the
   manifest, so the next build treats those files as changed again and, deleting by path first,
   never duplicates a row. (A build that starts on tables without a row deletes nothing: a file
   is committed once per build. The workers parse the next batch while one is committed.)
2. Deleted files: their rows go first, their manifest rows last.
3. Vectors, per tier (:mod:`indexer.embedding`), written by :mod:`indexer.vector_build`: the fast
   tier's table (``vectors_<static model>``) first, then the full tier's (``vectors_<transformer>``)
   when asked for, or when only a few of its vectors are missing
   (:data:`~indexer.vector_build.FULL_TOPUP`: a daemon batch keeps a complete full tier complete).
   Every chunk without a vector gets one, from the embedding cache when its content was seen before,
   else from the model; orphan vectors go in the order described there.

Readers do not see these commits one by one: they read the table versions last *published*
(:mod:`indexer.snapshot`). A build publishes once at its end, so a small build (one daemon
batch) appears to searches all at once. A build that embeds more than one batch of vectors also
publishes when its symbols half is done and after each vector write (a batch of the full tier,
:data:`~indexer.vector_build.FAST_WRITE_ROWS` of the fast tier), so a first index is
searchable by text and symbols while embedding goes on, and semantic coverage grows as it lands.
Such a build publishes first before its vectors phase and calls ``chunks_ready`` there, where
:class:`~indexer.index.Index` saves the BM25 index of the chunks: a build stopped in its (long)
vectors phase leaves a fast text search.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Executor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

import pyarrow as pa

from indexer import symbol_reads
from indexer.config import Settings
from indexer.embedding import search_tier_of, tier_entries
from indexer.fingerprint import fingerprint
from indexer.parse_ahead import ParseAhead
from indexer.parse_jobs import (
    PARALLEL_MIN_FILES,
    TASK_FILES,
    Parsed,
    ParsedGroup,
    ParsedRows,
    ParseJob,
    batch_tables,
    parse_group,
    parse_pool,
    read_and_parse,
)
from indexer.report import BuildReport, NullProgress, Progress
from indexer.revision import REVISION_KEY, tree_revision
from indexer.snapshot import publish
from indexer.store import (
    CHUNKS_SCHEMA,
    FILES_SCHEMA,
    META_KEEP,
    SYMBOLS_SCHEMA,
    Store,
    batched,
    in_filter,
)
from indexer.tables import Manifest, files_table, read_manifest, vector_matrix
from indexer.types import FileRecord
from indexer.vector_build import FAST_VECTOR_BATCH, VectorWriter
from indexer.walk_feed import WalkFeed
from indexer.workspace import Walker, WalkStats, WorkspaceFile
from models import Embedder

# Names that moved out of this module, importable from here as before.
__all__ = [
    "BuildReport",
    "Builder",
    "Progress",
    "fingerprint",
    "plan_changes",
    "read_manifest",
    "search_tier_of",
    "tier_entries",
    "vector_matrix",
]

log = logging.getLogger(__name__)

FILE_BATCH = 300
#: A build of this many changed files has its parse workers make its rows (``parse_group``), which
#: spares this process ~0.4 ms a file; their import of pyarrow (~0.2 s each) would delay a small first
#: build, all parsed ahead (tokio, 377 files: 2.17 s against 2.05 s to a fresh status, BENCHMARKS §9,
#: "Thirty-second session"). A first build's files parsed ahead come as objects either way.
ROWS_IN_WORKERS_FILES = PARALLEL_MIN_FILES
COMPACT_FILES = 200
COMPACT_CHUNKS = 1000
COMPACT_EVERY = 25


@dataclass
class _Plan:
    changed: list[WorkspaceFile]
    deleted: list[str]
    unchanged: int


def plan_changes(
    settings: Settings,
    manifest: Manifest,
    *,
    full: bool,
    paths: Iterable[str] | None,
    stats: WalkStats,
) -> _Plan:
    """Which files to (re)parse, delete, or just refresh in the manifest."""
    walker = Walker(settings)
    if paths is None:
        found = {f.path: f for f in walker.walk(stats)}
        deleted = sorted(set(manifest) - set(found))
    else:
        found = {}
        deleted = []
        for rel in sorted(set(paths)):
            f = _single_file(walker, rel, stats)
            if f is not None:
                found[rel] = f
            elif rel in manifest:
                deleted.append(rel)
    plan = _Plan([], deleted, 0)
    for rel, f in found.items():
        old = manifest.get(rel)
        if full or old is None:
            plan.changed.append(f)
        elif old[1] == f.size and old[2] == f.mtime_ns:
            plan.unchanged += 1
        else:
            plan.changed.append(f)  # parse decides: same hash → only the manifest row is refreshed
    return plan


def _single_file(walker: Walker, rel: str, stats: WalkStats) -> WorkspaceFile | None:
    return walker.single(rel, stats)  # reached without following a symlink (indexer.beneath)


def _hash_of(manifest: Manifest, path: str) -> str | None:
    old = manifest.get(path)
    return old[0] if old is not None else None


class Builder:
    """Runs one build against an open store (the caller holds the writer lock)."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        *,
        embedders: Mapping[str, Callable[[], Embedder]] | None,
        tier: str = "full",
        progress: Progress | None = None,
        chunks_ready: Callable[[], None] | None = None,
        ahead: ParseAhead | None = None,
    ) -> None:
        """``embedders``: tier name → embedder factory (``fast`` and ``full``); None skips vectors.
        ``tier``: ``fast`` embeds the fast tier (and tops up an almost complete full tier), ``full``
        both. ``chunks_ready``: called once, when a long vectors phase first publishes (the chunks are
        complete and published, no vector is written yet): the index saves its text search there.
        ``ahead``: files whose parsing began before the store was opened (the caller closes it)."""
        self.settings = settings
        self.store = store
        self.embedders = embedders
        self.tier = tier
        self.progress = progress or NullProgress()
        self.chunks_ready = chunks_ready
        self.ahead = ahead
        self._pool_broken = False  # a worker pool failed: parse in-process from then on
        self._replacing = True  # a batch's files may have rows already: deleted before it is added
        self._swept = False  # rows of files the manifest lacks were deleted before the batches
        self._rows_in_workers = False  # parse workers make the rows of their groups of files
        self._emptied = False  # the tables were emptied (a full build): their old versions go too

    def run(self, *, full: bool = False, paths: Iterable[str] | None = None) -> BuildReport:
        t0 = time.perf_counter()
        report = BuildReport()
        revision = tree_revision(self.settings.root)  # before the walk: the commit of what is read
        self.store.verify()
        meta = self.store.get_meta()
        fp = fingerprint(self.settings)
        if meta and meta.get("fingerprint") != fp:
            report.rebuilt_reason = "the index was built by another plait version or chunk settings"
            self._reset()
            full, paths = True, None
        elif full:
            self._reset()
        stats = WalkStats()
        manifest = read_manifest(self.store)
        if paths is None and not manifest and self.ahead is not None and not self.ahead.closed:
            # A first build with parse workers: every file is new, so they parse while the tree is walked.
            plan = _Plan([], [], 0)
            self._apply(plan, manifest, report, WalkFeed(Walker(self.settings), stats))
        else:
            plan = plan_changes(self.settings, manifest, full=full, paths=paths, stats=stats)
            report.unchanged = plan.unchanged
            self._apply(plan, manifest, report)
        # Before anything is published: a reader pins the version that holds the index.
        self.store.ensure_scalar_index("symbols", "name_norm", min_rows=symbol_reads.MAX_MEMORY_SYMBOLS)
        report.symbol_seconds = time.perf_counter() - t0
        self.store.set_meta(
            fingerprint=fp,
            last_build={"finished": time.time(), "seconds": report.symbol_seconds, "phase": "symbols"},
        )
        report.skipped = {k: v for k, v in stats.as_dict().items() if k != "files" and v}
        report.errors.extend(stats.errors)
        report.files = self.store.count("files")
        report.chunks_total = self.store.count("chunks")
        if self.embedders is None:
            report.vectors_skipped = True
            self._maybe_compact(report, ())
        else:
            t1 = time.perf_counter()
            self._text_before_vectors(report)
            with self._compacting_parsed(report):
                written = self._vectors(self.embedders).build_tiers(report)
            report.vector_seconds = time.perf_counter() - t1
            self._maybe_compact(report, written)
        report.seconds = time.perf_counter() - t0
        self.store.set_meta(
            last_build={"finished": time.time(), "seconds": report.seconds, "report": report.as_dict()},
            **{REVISION_KEY: revision},
        )
        self._publish()
        return report

    def _publish(self) -> None:
        """Make the tables as they stand now what searches read (they agree with each other here)."""
        names = [n for n in self.store.table_names() if n.startswith("vectors_")]
        publish(self.store, ["files", "symbols", "chunks", *names])

    def _reset(self) -> None:
        """Start afresh: every table but the embedding cache emptied, as a new version of it (see
        :meth:`Store.empty`), so searches in other processes never mistake the new rows for the old."""
        for name in self.store.table_names():
            if not name.startswith("embcache_"):
                self.store.empty(name)
        self._emptied = True

    # -- symbols half ---------------------------------------------------------------------------
    def _apply(
        self, plan: _Plan, manifest: Manifest, report: BuildReport, feed: WalkFeed | None = None
    ) -> None:
        """Read, hash and parse the changed files a batch at a time (in worker processes for large
        trees), committing each batch in turn: memory is bounded by two batches, the one committed and
        the next, which the workers parse meanwhile (they would wait on each commit otherwise).
        ``feed``: a first build's walk, still going; its files are appended to ``plan.changed`` as
        they come (the progress's total is known when it ends)."""
        self.progress.start("parsing", len(plan.changed) if feed is None else 0)
        ahead = self.ahead if self.ahead is not None and not self.ahead.closed else None
        own_pool = None if ahead is not None else parse_pool(self.settings, len(plan.changed))
        pool = own_pool or (ahead.pool if ahead is not None else None)
        # Tables that hold no row yet (a first build, or one that emptied them) have nothing to delete
        # before a batch is added: each file is committed once, so no batch can meet an earlier one's.
        self._replacing = self.store.count("chunks") > 0 or self.store.count("symbols") > 0
        # A delete reads its whole table: with more than a batch of files new to the manifest (a stopped
        # build resumed), one sweep for the rows a stop may have left beats every batch deleting theirs.
        self._swept = self._replacing and sum(1 for f in plan.changed if f.path not in manifest) > FILE_BATCH
        if self._swept:
            self._sweep_orphans(manifest)
        self._rows_in_workers = len(plan.changed) >= ROWS_IN_WORKERS_FILES
        try:
            queued: deque[tuple[list[WorkspaceFile], Iterator[tuple[str, object]]]] = deque()
            for batch in self._batches(plan, feed):
                if batch:
                    jobs = [
                        ParseJob(f.path, f.mtime_ns, f.language, _hash_of(manifest, f.path)) for f in batch
                    ]
                    queued.append((batch, self._outcomes(jobs, pool, ahead)))  # the workers start on it
                if queued and (len(queued) > 1 or not batch):
                    self._take(*queued.popleft(), plan, manifest, report)
        finally:
            if own_pool is not None:
                own_pool.shutdown(wait=True, cancel_futures=True)
            if ahead is not None:
                report.parsed_ahead = ahead.taken
                ahead.close()  # its workers are not needed for the vectors
        if plan.deleted:
            self._delete(plan.deleted)
            report.deleted = len(plan.deleted)

    def _batches(self, plan: _Plan, feed: WalkFeed | None) -> Iterator[list[WorkspaceFile]]:
        """``plan.changed`` a batch at a time, then an empty batch; with a ``feed``, its files as the
        walk finds them, appended to ``plan.changed``, and the progress told the total once it is over."""
        if feed is None:
            for i in range(0, len(plan.changed), FILE_BATCH):
                yield plan.changed[i : i + FILE_BATCH]
            yield []
            return
        told = False
        for batch in feed.batches(FILE_BATCH):
            plan.changed.extend(batch)
            # As a build of that many files would (here, those past the ones parsed ahead).
            self._rows_in_workers = len(plan.changed) >= ROWS_IN_WORKERS_FILES
            if feed.done and not told:
                self.progress.set_total(feed.found)
                told = True
            yield batch
        if not told:
            self.progress.set_total(len(plan.changed))
        yield []

    def _take(
        self,
        batch: list[WorkspaceFile],
        outcomes: Iterator[tuple[str, object]],
        plan: _Plan,
        manifest: Manifest,
        report: BuildReport,
    ) -> None:
        """Commit one batch's outcomes (waiting for those not parsed yet)."""
        parsed: list[Parsed | ParsedRows] = []
        touched: list[FileRecord] = []
        for f, (kind, value) in zip(batch, outcomes, strict=True):
            if kind == "missing" and f.path in manifest:
                plan.deleted.append(f.path)
            elif kind == "error":
                report.errors.append(str(value))
            elif kind == "same" and isinstance(value, FileRecord):
                touched.append(value)
                report.unchanged += 1
            elif kind == "parsed" and isinstance(value, (Parsed, ParsedRows)):
                parsed.append(value)
            self.progress.advance()
        self._commit_batch(parsed, report, manifest)
        if touched:
            self._touch(touched)

    def _outcomes(
        self, jobs: list[ParseJob], pool: Executor | None, ahead: ParseAhead | None
    ) -> Iterator[tuple[str, object]]:
        """Each job's outcome, in order: parsed ``ahead`` where it was, else in ``pool`` (the jobs are
        handed to it now) or in-process (when asked for)."""
        early = [ahead.take(job) if ahead is not None else None for job in jobs]
        rest = [job for job, got in zip(jobs, early, strict=True) if got is None]
        late = self._parse(rest, pool)
        return (got if got is not None else next(late) for got in early)

    def _parse(self, jobs: list[ParseJob], pool: Executor | None) -> Iterator[tuple[str, object]]:
        """The outcomes of ``jobs`` in order, from ``pool``, which is given them at once, while it
        works: when its workers die or cannot start (a caller whose main module spawned processes
        cannot import), the rest, and every later batch, are parsed in this process."""
        if pool is None or not jobs or self._pool_broken:
            return (read_and_parse(job, self.settings) for job in jobs)
        try:
            if self._rows_in_workers:
                groups = [jobs[i : i + TASK_FILES] for i in range(0, len(jobs), TASK_FILES)]
                results = self._outcomes_of(pool.map(parse_group, groups))
            else:
                results = pool.map(read_and_parse, jobs, chunksize=TASK_FILES)
        except (BrokenProcessPool, RuntimeError) as exc:  # broken, or shut down
            log.warning("parse workers stopped (%s); parsing in this process", exc)
            self._pool_broken = True
            return (read_and_parse(job, self.settings) for job in jobs)
        return self._drain(jobs, results)

    @staticmethod
    def _outcomes_of(groups: Iterator[ParsedGroup]) -> Iterator[tuple[str, object]]:
        for group in groups:
            yield from group.outcomes()

    def _drain(
        self, jobs: list[ParseJob], results: Iterator[tuple[str, object]]
    ) -> Iterator[tuple[str, object]]:
        done = 0
        try:
            for outcome in results:
                yield outcome
                done += 1
        except BrokenProcessPool as exc:
            log.warning("parse workers stopped (%s); parsing in this process", exc)
            self._pool_broken = True
        for job in jobs[done:]:
            yield read_and_parse(job, self.settings)

    def _sweep_orphans(self, manifest: Manifest) -> None:
        """Delete the rows of files the manifest does not hold, once, before the batches: a build
        stopped between a batch's rows and its manifest rows left them. After this a file new to the
        manifest has no row, so a batch deletes the rows of the files the manifest holds only: each
        delete reads its whole table, and a build resumed on the Linux tree spent most of its parsing
        phase deleting the rows of new files that had none (BENCHMARKS §9, "Thirty-ninth session").
        A build with fewer new files deletes each batch's as before, and reads no column for them."""
        import pyarrow.compute as pc

        for name in ("symbols", "chunks"):
            if not self.store.has(name):
                continue
            paths = pc.unique(self.store.read(name, ["path"]).column("path")).to_pylist()
            orphans = [p for p in paths if p not in manifest]
            if orphans:
                log.info(
                    "%d files' %s rows were not in the manifest (a stopped build); deleted",
                    len(orphans),
                    name,
                )
                self.store.delete_in(name, "path", orphans)

    def _commit_batch(
        self, parsed: list[Parsed | ParsedRows], report: BuildReport, manifest: Manifest
    ) -> None:
        if not parsed:
            return
        paths = [p.record.path for p in parsed]
        known = [path for path in paths if path in manifest]  # only these have a manifest row to update
        if self._replacing:  # after a sweep only a file the manifest holds has rows
            doomed = known if self._swept else paths
            self.store.delete_in("symbols", "path", doomed)
            self.store.delete_in("chunks", "path", doomed)
        symbols, chunks = batch_tables(parsed)
        self.store.add("symbols", symbols, SYMBOLS_SCHEMA)
        self.store.add("chunks", chunks, CHUNKS_SCHEMA)
        records = files_table([p.record for p in parsed])
        if known:
            self.store.upsert("files", "path", records, FILES_SCHEMA)
        else:  # new files' rows are added, not merged (a merge of each batch's 300 rows into the
            # manifest took 7.2 s of CPU over the Linux tree, adding them 1.3 s)
            self.store.add("files", records, FILES_SCHEMA)
        report.changed += len(parsed)
        report.symbols += symbols.num_rows
        report.chunks += chunks.num_rows

    def _touch(self, records: list[FileRecord]) -> None:
        existing = pa.concat_tables(
            [self.store.read("files", None, in_filter("path", b)) for b in batched([r.path for r in records])]
        )
        counts = {}
        if existing.num_rows:
            for p, s, c in zip(
                existing.column("path").to_pylist(),
                existing.column("symbols").to_pylist(),
                existing.column("chunks").to_pylist(),
                strict=True,
            ):
                counts[p] = (s, c)
        fixed = [
            FileRecord(r.path, r.sha256, r.size, r.mtime_ns, r.language, *counts.get(r.path, (0, 0)))
            for r in records
        ]
        self.store.upsert("files", "path", files_table(fixed), FILES_SCHEMA)

    def _delete(self, paths: Sequence[str]) -> None:
        self.store.delete_in("symbols", "path", paths)
        self.store.delete_in("chunks", "path", paths)
        for name in self.store.table_names():
            if name.startswith("vectors_"):
                self.store.delete_in(name, "path", paths)
        self.store.delete_in("files", "path", paths)

    # -- vectors half ---------------------------------------------------------------------------
    def _vectors(self, embedders: Mapping[str, Callable[[], Embedder]]) -> VectorWriter:
        return VectorWriter(
            self.store, embedders, tier=self.tier, progress=self.progress, publish=self._publish_progress
        )

    def _text_before_vectors(self, report: BuildReport) -> None:
        """Before a long vectors phase (more chunks lack a fast vector than one batch holds), publish
        the chunks and let the index save its text search, before the embedder and the chunk ids
        take their memory."""
        if self.chunks_ready is None:
            return
        entries = tier_entries(self.store.get_meta().get("tiers"))
        table = str(entries.get("fast", {}).get("table", ""))
        have = self.store.count(table) if table and self.store.has(table) else 0
        if report.chunks_total - have > FAST_VECTOR_BATCH:
            self._publish_progress()

    def _publish_progress(self) -> None:
        """Publish between vector batches; the first time, let the index save its text search."""
        self._publish()
        ready, self.chunks_ready = self.chunks_ready, None
        if ready is not None:
            ready()

    @contextlib.contextmanager
    def _compacting_parsed(self, report: BuildReport) -> Iterator[None]:
        """Compact the tables the parsing wrote on a thread while the block runs (the vectors phase,
        which leaves a core partly idle), when many files changed; the compaction at the build's end
        then finds them compacted. A reader of an earlier version (the vectors' scan of the chunks)
        keeps reading it: this compaction deletes no version."""
        if report.changed + report.deleted < COMPACT_FILES:
            yield
            return
        thread = threading.Thread(target=self._compact_parsed, name="plait-compact", daemon=True)
        thread.start()
        try:
            yield
        finally:
            thread.join()

    def _compact_parsed(self) -> None:
        for name in ("files", "symbols", "chunks"):
            try:  # an optimisation: the build's last compaction tries again
                self.store.compact(name)
            except Exception as exc:  # not one traceback on stderr for it
                log.warning("compaction of %s beside the vectors failed: %s", name, exc)

    def upgrade(self, tier: str, limit: int) -> tuple[int, BuildReport]:
        """Embed up to ``limit`` chunks of ``tier`` missing a vector (no walk, no parsing) and publish;
        returns (chunks still missing, report). The daemon's background tier upgrade calls this."""
        report = BuildReport()
        self.store.verify()
        if self.store.get_meta().get("fingerprint") != fingerprint(self.settings):
            return 0, report  # the next build rebuilds the index first
        if self.embedders is None:
            return 0, report
        writer = self._vectors(self.embedders)
        embedders = writer.tier_embedders()
        if tier not in embedders:
            return 0, report
        tables = writer.claim_tables(embedders)
        ids = writer.chunk_ids()
        if self.store.has(tables[tier]):
            writer.drop_orphans(tables[tier], ids)
        remaining = writer.build_vectors(embedders[tier], report, tier=tier, ids=ids, limit=limit)
        report.vectors = writer.name_search_tier(len(ids))
        if report.embedded >= COMPACT_CHUNKS or not remaining:
            self.store.compact(tables[tier])
        self._publish()
        return remaining, report

    def _maybe_compact(self, report: BuildReport, extra: Sequence[str]) -> None:
        """Compact after big builds or every COMPACT_EVERY builds: each commit adds a fragment, but
        compacting on every small daemon batch would double its cost."""
        meta = self.store.get_meta()
        since = int(meta.get("builds_since_compact") or 0) + 1
        big = report.changed + report.deleted >= COMPACT_FILES or report.embedded >= COMPACT_CHUNKS
        if not big and since < COMPACT_EVERY and not self._emptied:
            self.store.set_meta(builds_since_compact=since)
            return
        # After a full build the rows of before are no snapshot's any more: their disk goes back now,
        # as it did when a full build dropped the tables (a reader still pinned to one reads the latest).
        names = ["files", "symbols", "chunks", *extra]
        if self._emptied:
            names += sorted(
                n for n in self.store.table_names() if n.startswith("vectors_") and n not in names
            )
        for name in names:
            self.store.compact(name, keep=META_KEEP if self._emptied else None)
        self.store.set_meta(builds_since_compact=0)
