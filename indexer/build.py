"""The incremental build: walk → parse → symbols and chunks → stores → vectors.

Order of commits, which is what makes a killed build safe:

1. For each batch of changed files: delete their symbol and chunk rows, add the new ones, then
   upsert their manifest rows. A kill before the manifest upsert leaves the old hash in the
   manifest, so the next build treats those files as changed again and, deleting by path first,
   never duplicates a row.
2. Deleted files: their rows go first, their manifest rows last.
3. Vectors, per tier (:mod:`indexer.embedding`): the fast tier's table (``vectors_<static model>``)
   first, then the full tier's (``vectors_<transformer>``) when asked for, or when only a few of its
   vectors are missing (:data:`FULL_TOPUP`: a daemon batch keeps a complete full tier complete). Every
   chunk without a vector gets one, from the embedding cache when its content was seen before, else
   from the model. Fast tier: orphan vectors (chunk ids no longer in ``chunks``) are deleted after
   the new ones landed, so a changed chunk is never without one. Other tiers: orphans are deleted
   first, so a tier's row count equals the chunk count exactly when it is complete, which is what
   lets a search use it (a search ranks with one tier's vectors, never two).

Readers do not see these commits one by one: they read the table versions last *published*
(:mod:`indexer.snapshot`). A build publishes once at its end, so a small build (one daemon
batch) appears to searches all at once. A build that embeds more than one batch of vectors also
publishes when its symbols half is done and after each vector batch, so a first index is
searchable by text and symbols while embedding goes on, and semantic coverage grows as it lands.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
import pyarrow as pa

from indexer.beneath import read_beneath
from indexer.chunks import CHUNKER_VERSION, chunk_file
from indexer.config import Settings
from indexer.languages import SYMBOL_LANGUAGES
from indexer.lookup import normalise
from indexer.revision import REVISION_KEY, tree_revision
from indexer.snapshot import publish
from indexer.store import (
    CHUNKS_SCHEMA,
    FILES_SCHEMA,
    SCHEMA_VERSION,
    SYMBOLS_SCHEMA,
    Store,
    TableReader,
    batched,
    cache_schema,
    in_filter,
    model_slug,
    vectors_schema,
)
from indexer.types import Chunk, FileRecord, Symbol, sha256_hex
from indexer.workspace import Walker, WalkStats, WorkspaceFile
from models.base import Embedder
from models.errors import PlaitError

log = logging.getLogger(__name__)

FILE_BATCH = 300
#: A build of at least this many changed files reads and parses them in worker processes.
PARALLEL_MIN_FILES = 2000
MAX_PARSE_WORKERS = 8
COMPACT_FILES = 200
COMPACT_CHUNKS = 1000
COMPACT_EVERY = 25
# Below this many vectors an exact scan is fast enough (measured in BENCHMARKS.md, `python -m benchmarks ann`).
ANN_MIN_ROWS = 20_000
VECTOR_BATCH = 256
#: The fast tier embeds thousands of chunks a second: bigger batches spare LanceDB commits, and its
#: vectors are not cached (computing one costs less than looking it up).
FAST_VECTOR_BATCH = 4096
#: A full-tier table missing at most this many vectors is completed by any build (a few seconds).
FULL_TOPUP = 64


class Progress(Protocol):
    def start(self, phase: str, total: int) -> None: ...
    def advance(self, n: int = 1) -> None: ...


class NullProgress:
    def start(self, phase: str, total: int) -> None:
        pass

    def advance(self, n: int = 1) -> None:
        pass


@dataclass
class BuildReport:
    files: int = 0
    changed: int = 0
    deleted: int = 0
    unchanged: int = 0
    symbols: int = 0
    chunks: int = 0
    chunks_total: int = 0
    embedded: int = 0
    from_cache: int = 0
    vectors: int = 0
    seconds: float = 0.0
    symbol_seconds: float = 0.0
    vector_seconds: float = 0.0
    rebuilt_reason: str | None = None
    skipped: dict[str, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    vectors_skipped: bool = False
    ann: str | None = None
    tiers: dict[str, dict[str, Any]] = field(default_factory=dict)

    def as_dict(self) -> dict[str, object]:
        return {
            "files": self.files,
            "changed": self.changed,
            "deleted": self.deleted,
            "unchanged": self.unchanged,
            "symbols": self.symbols,
            "chunks": self.chunks,
            "chunks_total": self.chunks_total,
            "embedded": self.embedded,
            "from_cache": self.from_cache,
            "vectors": self.vectors,
            "seconds": round(self.seconds, 3),
            "symbol_seconds": round(self.symbol_seconds, 3),
            "vector_seconds": round(self.vector_seconds, 3),
            "rebuilt_reason": self.rebuilt_reason,
            "skipped": self.skipped,
            "errors": self.errors[:50],
            "vectors_skipped": self.vectors_skipped,
            "ann": self.ann,
            "tiers": self.tiers,
        }


def fingerprint(settings: Settings) -> dict[str, object]:
    c = settings.chunks
    return {
        "schema": SCHEMA_VERSION,
        "chunker": CHUNKER_VERSION,
        "chunks": [c.max_lines, c.overlap_lines, c.min_lines, c.window_lines, c.max_chars],
    }


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
class _ParseJob:
    path: str
    mtime_ns: int
    language: str | None
    old_hash: str | None  # the manifest's sha256 of the file, if it was indexed


_worker_settings: Settings | None = None


def _init_worker(settings: Settings) -> None:
    global _worker_settings
    _worker_settings = settings


def read_and_parse(job: _ParseJob, settings: Settings | None = None) -> tuple[str, object]:
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


def _hash_of(manifest: dict[str, tuple[str, int, int]], path: str) -> str | None:
    old = manifest.get(path)
    return old[0] if old is not None else None


def _parse_pool(settings: Settings, files: int) -> ProcessPoolExecutor | None:
    """Worker processes for a build of at least PARALLEL_MIN_FILES files on a machine with more than
    one usable core (spawned: the parent holds LanceDB threads, which a fork would copy mid-state)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    if files < PARALLEL_MIN_FILES or cores < 2:
        return None
    return ProcessPoolExecutor(
        max_workers=min(cores, MAX_PARSE_WORKERS),
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_init_worker,
        initargs=(settings,),
    )


def _files_table(records: Sequence[FileRecord]) -> pa.Table:
    return pa.table(
        {
            "path": [r.path for r in records],
            "sha256": [r.sha256 for r in records],
            "size": [r.size for r in records],
            "mtime_ns": [r.mtime_ns for r in records],
            "language": [r.language for r in records],
            "symbols": [r.symbols for r in records],
            "chunks": [r.chunks for r in records],
        },
        schema=FILES_SCHEMA,
    )


def _symbols_table(symbols: Sequence[Symbol]) -> pa.Table:
    return pa.table(
        {
            "path": [s.path for s in symbols],
            "name": [s.name for s in symbols],
            "qualified_name": [s.qualified_name for s in symbols],
            "kind": [s.kind for s in symbols],
            "language": [s.language for s in symbols],
            "start_line": [s.start_line for s in symbols],
            "end_line": [s.end_line for s in symbols],
            "signature": [s.signature for s in symbols],
            "name_norm": [normalise(s.name) for s in symbols],
        },
        schema=SYMBOLS_SCHEMA,
    )


def _chunks_columns(chunks: Sequence[Chunk]) -> dict[str, list[object]]:
    return {
        "chunk_id": [c.chunk_id for c in chunks],
        "path": [c.path for c in chunks],
        "start_line": [c.start_line for c in chunks],
        "end_line": [c.end_line for c in chunks],
        "symbol": [c.symbol for c in chunks],
        "kind": [c.kind for c in chunks],
        "language": [c.language for c in chunks],
        "content_hash": [c.content_hash for c in chunks],
        "text": [c.text for c in chunks],
    }


def read_manifest(store: TableReader, where: str | None = None) -> dict[str, tuple[str, int, int]]:
    """path → (sha256, size, mtime_ns) of the manifest rows matching ``where`` (all rows by default)."""
    table = store.read("files", ["path", "sha256", "size", "mtime_ns"], where)
    if table.num_rows == 0:
        return {}
    cols = [table.column(n).to_pylist() for n in ("path", "sha256", "size", "mtime_ns")]
    return {p: (h, s, m) for p, h, s, m in zip(*cols, strict=True)}


@dataclass
class _Plan:
    changed: list[WorkspaceFile]
    deleted: list[str]
    unchanged: int


def plan_changes(
    settings: Settings,
    manifest: dict[str, tuple[str, int, int]],
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
    ) -> None:
        """``embedders``: tier name → embedder factory (``fast`` and ``full``); None skips vectors.
        ``tier``: ``fast`` embeds the fast tier (and tops up an almost complete full tier), ``full``
        both."""
        self.settings = settings
        self.store = store
        self.embedders = embedders
        self.tier = tier
        self.progress = progress or NullProgress()

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
        plan = plan_changes(self.settings, manifest, full=full, paths=paths, stats=stats)
        report.unchanged = plan.unchanged
        self._apply(plan, manifest, report)
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
            self.build_tiers(report)
            report.vector_seconds = time.perf_counter() - t1
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
        for name in self.store.table_names():
            if not name.startswith("embcache_"):
                self.store.drop(name)

    # -- symbols half ---------------------------------------------------------------------------
    def _apply(self, plan: _Plan, manifest: dict[str, tuple[str, int, int]], report: BuildReport) -> None:
        """Read, hash and parse the changed files a batch at a time (in worker processes for large
        trees), committing each batch before the next is read: memory is bounded by the batch."""
        self.progress.start("parsing", len(plan.changed))
        pool = _parse_pool(self.settings, len(plan.changed))
        try:
            for i in range(0, len(plan.changed), FILE_BATCH):
                batch = plan.changed[i : i + FILE_BATCH]
                jobs = [_ParseJob(f.path, f.mtime_ns, f.language, _hash_of(manifest, f.path)) for f in batch]
                if pool is None:
                    outcomes: Iterable[tuple[str, object]] = (
                        read_and_parse(job, self.settings) for job in jobs
                    )
                else:
                    outcomes = pool.map(read_and_parse, jobs, chunksize=8)
                parsed: list[Parsed] = []
                touched: list[FileRecord] = []
                for f, (kind, value) in zip(batch, outcomes, strict=True):
                    if kind == "missing" and f.path in manifest:
                        plan.deleted.append(f.path)
                    elif kind == "error":
                        report.errors.append(str(value))
                    elif kind == "same" and isinstance(value, FileRecord):
                        touched.append(value)
                        report.unchanged += 1
                    elif kind == "parsed" and isinstance(value, Parsed):
                        parsed.append(value)
                    self.progress.advance()
                self._commit_batch(parsed, report)
                if touched:
                    self._touch(touched)
        finally:
            if pool is not None:
                pool.shutdown(wait=True, cancel_futures=True)
        if plan.deleted:
            self._delete(plan.deleted)
            report.deleted = len(plan.deleted)

    def _commit_batch(self, parsed: list[Parsed], report: BuildReport) -> None:
        if not parsed:
            return
        paths = [p.record.path for p in parsed]
        self.store.delete_in("symbols", "path", paths)
        self.store.delete_in("chunks", "path", paths)
        symbols = [s for p in parsed for s in p.symbols]
        chunks = [c for p in parsed for c in p.chunks]
        self.store.add("symbols", _symbols_table(symbols), SYMBOLS_SCHEMA)
        self.store.add("chunks", pa.table(_chunks_columns(chunks), schema=CHUNKS_SCHEMA), CHUNKS_SCHEMA)
        self.store.upsert("files", "path", _files_table([p.record for p in parsed]), FILES_SCHEMA)
        report.changed += len(parsed)
        report.symbols += len(symbols)
        report.chunks += len(chunks)

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
        self.store.upsert("files", "path", _files_table(fixed), FILES_SCHEMA)

    def _delete(self, paths: Sequence[str]) -> None:
        self.store.delete_in("symbols", "path", paths)
        self.store.delete_in("chunks", "path", paths)
        for name in self.store.table_names():
            if name.startswith("vectors_"):
                self.store.delete_in(name, "path", paths)
        self.store.delete_in("files", "path", paths)

    # -- vectors half ---------------------------------------------------------------------------
    def tier_embedders(self) -> dict[str, Embedder]:
        """The embedder of each tier; a tier whose model is the fast tier's is left out (one table)."""
        assert self.embedders is not None
        kept = tier_entries(self.store.get_meta().get("tiers"))
        # A tier is built when asked for, or kept up to date where it exists: a full build of an index
        # without a fast tier never makes the static model (distilled on first use, minutes).
        wanted = {
            t
            for t in self.embedders
            if t == self.tier or self.store.has(str(kept.get(t, {}).get("table", "")))
        }
        found = {tier: make() for tier, make in self.embedders.items() if tier in wanted}
        fast = found.get("fast")
        return {t: e for t, e in found.items() if t == "fast" or fast is None or e.model_id != fast.model_id}

    def build_tiers(self, report: BuildReport) -> None:
        """Vectors of the fast tier, then of the full tier when asked for or almost complete."""
        embedders = self.tier_embedders()
        tables = self._claim_tables(embedders)
        ids = _column(self.store.read("chunks", ["chunk_id"]), "chunk_id")
        for tier in embedders:
            if tier != "fast" and self.store.has(tables[tier]):
                self._drop_orphans(tables[tier], ids)
        for tier, embedder in embedders.items():
            if tier not in ("fast", self.tier):  # a tier not asked for: completed only when almost complete
                have = self.store.count(tables[tier]) if self.store.has(tables[tier]) else None
                if have is None or len(ids) - have > FULL_TOPUP:
                    continue
            self.build_vectors(embedder, report, tier=tier, ids=ids)
        report.vectors = self._name_search_tier(len(ids))
        caches = tuple("embcache_" + t.removeprefix("vectors_") for t in tables.values())
        self._maybe_compact(report, (*tables.values(), *caches))

    def _rows(self, name: str) -> int:
        return self.store.count(name) if self.store.has(name) else 0

    def _name_search_tier(self, chunks: int) -> int:
        """Record the tier searches now rank with as ``meta.model``; returns its vector count."""
        entries = tier_entries(self.store.get_meta().get("tiers"))
        best = search_tier_of(entries, self._rows, chunks)
        if best is None:
            return 0
        self.store.set_meta(model=entries[best])
        return self._rows(str(entries[best]["table"]))

    def _claim_tables(self, embedders: Mapping[str, Embedder]) -> dict[str, str]:
        """Record each tier's model and table in ``meta``; drop vector tables of models no tier uses."""
        tables = {tier: f"vectors_{model_slug(e.model_id)}" for tier, e in embedders.items()}
        for name in self.store.table_names():
            if name.startswith("vectors_") and name not in tables.values():
                self.store.drop(name)  # vectors of a model no longer configured: never mixed in
        entries = {
            tier: {"id": e.model_id, "dimension": e.dimension, "table": tables[tier]}
            for tier, e in embedders.items()
        }
        self.store.set_meta(tiers=entries)
        return tables

    def _drop_orphans(self, vec_name: str, ids: Sequence[str]) -> None:
        have = set(_column(self.store.read(vec_name, ["chunk_id"]), "chunk_id"))
        orphans = have - set(ids)
        if orphans:
            self.store.delete_in(vec_name, "chunk_id", sorted(orphans))

    def build_vectors(
        self,
        embedder: Embedder,
        report: BuildReport,
        *,
        tier: str = "full",
        ids: Sequence[str] | None = None,
        limit: int | None = None,
    ) -> int:
        """Embed up to ``limit`` chunks of ``tier`` that have no vector yet; returns how many remain."""
        t0 = time.perf_counter()
        slug = model_slug(embedder.model_id)
        vec_name, cache_name = f"vectors_{slug}", f"embcache_{slug}"
        dim = embedder.dimension
        self.store.table(vec_name, vectors_schema(dim))
        if ids is None:
            ids = _column(self.store.read("chunks", ["chunk_id"]), "chunk_id")
        have = set(_column(self.store.read(vec_name, ["chunk_id"]), "chunk_id"))
        orphans = have - set(ids)
        missing = [cid for cid in ids if cid not in have]
        remaining = 0
        if limit is not None and len(missing) > limit:
            missing, remaining = missing[:limit], len(missing) - limit
        progressive = len(missing) > _batch_of(tier)  # long enough to show searches what is ready
        if progressive:
            self._publish()
        embedded, cached = report.embedded, report.from_cache
        if missing:
            self._embed_missing(embedder, missing, vec_name, cache_name, report, progressive, tier)
        if orphans:  # after the new vectors landed, so a changed chunk is never without one
            self.store.delete_in(vec_name, "chunk_id", sorted(orphans))
        count = self.store.count(vec_name)
        if missing or orphans:
            report.ann = self.store.ensure_ann(vec_name, min_rows=ANN_MIN_ROWS)
        report.tiers[tier] = {
            "model": embedder.model_id,
            "vectors": count,
            "chunks": len(ids),
            "embedded": report.embedded - embedded,
            "from_cache": report.from_cache - cached,
            "seconds": round(time.perf_counter() - t0, 3),
        }
        return remaining

    def upgrade(self, tier: str, limit: int) -> tuple[int, BuildReport]:
        """Embed up to ``limit`` chunks of ``tier`` missing a vector (no walk, no parsing) and publish;
        returns (chunks still missing, report). The daemon's background tier upgrade calls this."""
        report = BuildReport()
        self.store.verify()
        if self.store.get_meta().get("fingerprint") != fingerprint(self.settings):
            return 0, report  # the next build rebuilds the index first
        embedders = self.tier_embedders()
        if tier not in embedders:
            return 0, report
        tables = self._claim_tables(embedders)
        ids = _column(self.store.read("chunks", ["chunk_id"]), "chunk_id")
        if self.store.has(tables[tier]):
            self._drop_orphans(tables[tier], ids)
        remaining = self.build_vectors(embedders[tier], report, tier=tier, ids=ids, limit=limit)
        report.vectors = self._name_search_tier(len(ids))
        if report.embedded >= COMPACT_CHUNKS or not remaining:
            self.store.compact(tables[tier])
        self._publish()
        return remaining, report

    def _embed_missing(
        self,
        embedder: Embedder,
        missing: list[str],
        vec_name: str,
        cache_name: str,
        report: BuildReport,
        progressive: bool,
        tier: str = "full",
    ) -> None:
        dim = embedder.dimension
        vschema, cschema = vectors_schema(dim), cache_schema(dim)
        if len(missing) == self.store.count("chunks"):  # all of them: one read, no filter
            todo = self.store.read("chunks")
        else:
            todo = pa.concat_tables(
                [self.store.read("chunks", None, in_filter("chunk_id", batch)) for batch in batched(missing)]
            )
        hashes = todo.column("content_hash").to_pylist()
        use_cache = tier != "fast"
        cached = self._cached_vectors(cache_name, sorted(set(hashes))) if use_cache else {}
        texts = todo.column("text").to_pylist()
        self.progress.start(f"{tier} vectors", len(texts))
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))  # similar lengths batch well
        size = _batch_of(tier)
        for start in range(0, len(order), size):
            sel = order[start : start + size]
            need = [i for i in sel if hashes[i] not in cached]
            uniq = list(dict.fromkeys(hashes[i] for i in need))
            if uniq:
                first = {hashes[i]: i for i in reversed(need)}
                vecs = embedder.embed_documents([texts[first[h]] for h in uniq])
                new = dict(zip(uniq, vecs, strict=True))
                cached.update(new)
                if use_cache:
                    matrix = _vector_array(np.stack([new[h] for h in uniq]), dim)
                    table = pa.table({"content_hash": uniq, "vector": matrix}, schema=cschema)
                    self.store.add(cache_name, table, cschema)
                report.embedded += len(uniq)
            report.from_cache += len(sel) - len(need)
            rows = todo.take(pa.array(sel, pa.int64()))
            matrix = np.stack([cached[hashes[i]] for i in sel]).astype(np.float32)
            self.store.add(vec_name, rows.append_column("vector", _vector_array(matrix, dim)), vschema)
            if progressive:
                self._publish()
            self.progress.advance(len(sel))

    def _maybe_compact(self, report: BuildReport, extra: Sequence[str]) -> None:
        """Compact after big builds or every COMPACT_EVERY builds: each commit adds a fragment, but
        compacting on every small daemon batch would double its cost."""
        meta = self.store.get_meta()
        since = int(meta.get("builds_since_compact") or 0) + 1
        big = report.changed + report.deleted >= COMPACT_FILES or report.embedded >= COMPACT_CHUNKS
        if not big and since < COMPACT_EVERY:
            self.store.set_meta(builds_since_compact=since)
            return
        for name in ("files", "symbols", "chunks", *extra):
            self.store.compact(name)
        self.store.set_meta(builds_since_compact=0)

    def _cached_vectors(self, cache_name: str, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        if not hashes or not self.store.has(cache_name):
            return {}
        out: dict[str, np.ndarray] = {}
        for batch in batched(hashes):
            table = self.store.read(cache_name, None, in_filter("content_hash", batch))
            if table.num_rows:
                matrix = vector_matrix(table.column("vector"))
                out.update(zip(table.column("content_hash").to_pylist(), matrix, strict=True))
        return out


def _batch_of(tier: str) -> int:
    return FAST_VECTOR_BATCH if tier == "fast" else VECTOR_BATCH


def _column(table: pa.Table, name: str) -> list[str]:
    return table.column(name).to_pylist() if table.num_rows else []


def vector_matrix(column: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """A fixed-size-list vector column as an (n, dim) float32 matrix, without a per-row loop."""
    arr = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    if len(arr) == 0:
        return np.zeros((0, 0), dtype=np.float32)
    dim = arr.type.list_size
    return np.asarray(arr.flatten().to_numpy(zero_copy_only=False), dtype=np.float32).reshape(-1, dim)


def _vector_array(matrix: np.ndarray, dim: int) -> pa.FixedSizeListArray:
    flat = pa.array(np.ascontiguousarray(matrix, dtype=np.float32).reshape(-1), type=pa.float32())
    return pa.FixedSizeListArray.from_arrays(flat, dim)


def tier_entries(raw: object) -> dict[str, dict[str, object]]:
    """The ``tiers`` entry of ``meta`` as tier → {id, dimension, table} (empty when absent or malformed)."""
    if not isinstance(raw, dict):
        return {}
    return {str(t): e for t, e in raw.items() if isinstance(e, dict) and isinstance(e.get("table"), str)}


def search_tier_of(raw: object, count: Callable[[str], int], chunks: int) -> str | None:
    """The tier a search ranks with: ``full`` once it covers every chunk, else ``fast`` (if it has
    vectors), else whichever has any; None when no tier has a vector. ``count`` counts a table's rows."""
    entries = tier_entries(raw)
    counts = {t: count(str(e["table"])) for t, e in entries.items()}
    if chunks and counts.get("full", 0) >= chunks:
        return "full"
    if counts.get("fast", 0):
        return "fast"
    return next((t for t, n in counts.items() if n), None)
