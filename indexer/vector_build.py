"""The vectors half of a build: each tier's ``vectors_<model>`` table brought up to the chunks.

Every chunk without a vector of a tier gets one, from the embedding cache (``embcache_<model>``)
when its content was seen before, else from the model. Fast tier: orphan vectors (chunk ids no
longer in ``chunks``) are deleted after the new ones landed, so a changed chunk is never without
one. Other tiers: orphans are deleted first, so a tier's row count equals the chunk count exactly
when it is complete, which is what lets a search use it (a search ranks with one tier's vectors,
never two). See :mod:`indexer.build` for where this runs in a build and when it publishes.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from indexer.embedding import search_tier_of, tier_entries
from indexer.heap import release_heap
from indexer.parent_watch import usable_cores, watched_pool
from indexer.report import BuildReport, Progress
from indexer.store import CHUNK_FIELDS, Store, batched, cache_schema, in_filter, model_slug, vectors_schema
from indexer.tables import column, vector_array, vector_matrix
from models import Embedder, in_background, one_ahead

# Below this many vectors an exact scan is fast enough (measured in BENCHMARKS.md, `python -m benchmarks ann`).
ANN_MIN_ROWS = 20_000
VECTOR_BATCH = 256
#: The fast tier embeds thousands of chunks a second: bigger batches spare LanceDB commits, and its
#: vectors are not cached (computing one costs less than looking it up).
FAST_VECTOR_BATCH = 4096
#: The fast tier's vectors are added to LanceDB this many rows at a time: each add is a commit, a
#: fragment and a publish, and over the Linux tree's million vectors adds of 4,096 rows took 6.5 s of
#: CPU and left 259 fragments to compact before the ANN index (4.9 s) where adds of 65,536 took 2.3 s
#: (BENCHMARKS §9, "Thirty-second session"). A kill loses at most these (a few seconds' work); the
#: full tier, ~30 chunks a second, adds each batch as it is embedded.
FAST_WRITE_ROWS = 65_536
#: A full-tier table missing at most this many vectors is completed by any build (a few seconds).
FULL_TOPUP = 64
#: A build embedding at least this many chunks spreads the static tier over worker processes (~0.5 s
#: to start them; tokio's ~4,000 chunks embed in less).
SPREAD_MIN_CHUNKS = 16_384
MAX_EMBED_WORKERS = 4
#: Chunks read, sorted by length and embedded together: what bounds a build's memory, whatever the
#: size of the tree (a Linux kernel tree holds about a million chunks).
WINDOW = 16_384


class _Window(NamedTuple):
    """A window's chunk rows, their content hashes, and the vectors known for them (cached, or embedded
    by an earlier batch of the window)."""

    rows: pa.Table
    hashes: list[str]
    known: dict[str, np.ndarray]


class _Batch(NamedTuple):
    """A batch of a window: its rows (``sel``), the content hashes first met in it and not cached, the
    text of each, how many of its rows have no cached vector, and whether it is the window's last."""

    window: _Window
    sel: list[int]
    hashes: list[str]
    texts: list[str]
    needed: int
    last: bool


class _Written:
    """Vector rows embedded and not added to the table yet, added once ``rows`` are held."""

    def __init__(self, rows: int) -> None:
        self.rows = rows
        self.tables: list[pa.Table] = []
        self.held = 0

    def hold(self, table: pa.Table) -> bool:
        """Hold ``table``'s rows; whether it is time to add them."""
        self.tables.append(table)
        self.held += table.num_rows
        return self.held >= self.rows

    def take(self) -> pa.Table:
        """The rows held, in the order they came (held no longer)."""
        table = self.tables[0] if len(self.tables) == 1 else pa.concat_tables(self.tables)
        self.tables, self.held = [], 0
        return table


class VectorWriter:
    """Writes the vectors of one build (the caller holds the writer lock).

    ``embedders``: tier name → embedder factory (``fast`` and ``full``). ``tier``: the tier asked
    for (``fast`` also tops up an almost complete full tier). ``publish``: makes the tables as they
    stand what searches read; called between vector batches of a long embedding run.
    """

    def __init__(
        self,
        store: Store,
        embedders: Mapping[str, Callable[[], Embedder]],
        *,
        tier: str,
        progress: Progress,
        publish: Callable[[], None],
    ) -> None:
        self.store = store
        self.embedders = embedders
        self.tier = tier
        self.progress = progress
        self.publish = publish
        # Tables filled from empty in adds of FAST_WRITE_ROWS rows: fragments that size need no compaction
        self.filled_whole: set[str] = set()

    def tier_embedders(self) -> dict[str, Embedder]:
        """The embedder of each tier; a tier whose model is the fast tier's is left out (one table)."""
        kept = tier_entries(self.store.get_meta().get("tiers"))
        # A tier is built when asked for, or kept up to date where it exists: a full build of an index
        # without a fast tier never makes the static model (distilled on first use, about a minute, for
        # a model plait ships no table for).
        wanted = {
            t
            for t in self.embedders
            if t == self.tier or self.store.has(str(kept.get(t, {}).get("table", "")))
        }
        found = {tier: make() for tier, make in self.embedders.items() if tier in wanted}
        fast = found.get("fast")
        return {t: e for t, e in found.items() if t == "fast" or fast is None or e.model_id != fast.model_id}

    def build_tiers(self, report: BuildReport) -> tuple[str, ...]:
        """Vectors of the fast tier, then of the full tier when asked for or almost complete; returns
        the tables it wrote (vectors and caches), for compaction."""
        embedders = self.tier_embedders()
        tables = self.claim_tables(embedders)
        # The chunk ids (a million strings, ~180 MB, in a large tree) are read only where a table
        # holds vectors already: an empty one is filled from a stream of every chunk.
        ids = self.chunk_ids() if any(self._rows(t) for t in tables.values()) else None
        chunks = len(ids) if ids is not None else self.store.count("chunks")
        for tier in embedders:
            if tier != "fast" and ids is not None and self.store.has(tables[tier]):
                self.drop_orphans(tables[tier], ids)
        for tier, embedder in embedders.items():
            if tier not in ("fast", self.tier):  # a tier not asked for: completed only when almost complete
                have = self.store.count(tables[tier]) if self.store.has(tables[tier]) else None
                if have is None or chunks - have > FULL_TOPUP:
                    continue
            self.build_vectors(embedder, report, tier=tier, ids=ids)
        report.vectors = self.name_search_tier(chunks)
        caches = tuple("embcache_" + t.removeprefix("vectors_") for t in tables.values())
        return (*(t for t in tables.values() if t not in self.filled_whole), *caches)

    def chunk_ids(self) -> list[str]:
        return column(self.store.read("chunks", ["chunk_id"]), "chunk_id")

    def _rows(self, name: str) -> int:
        return self.store.count(name) if self.store.has(name) else 0

    def name_search_tier(self, chunks: int) -> int:
        """Record the tier searches now rank with as ``meta.model``; returns its vector count."""
        entries = tier_entries(self.store.get_meta().get("tiers"))
        best = search_tier_of(entries, self._rows, chunks)
        if best is None:
            return 0
        self.store.set_meta(model=entries[best])
        return self._rows(str(entries[best]["table"]))

    def claim_tables(self, embedders: Mapping[str, Embedder]) -> dict[str, str]:
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

    def drop_orphans(self, vec_name: str, ids: Sequence[str]) -> None:
        have = set(column(self.store.read(vec_name, ["chunk_id"]), "chunk_id"))
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
        vec_name, cache_name = f"vectors_{model_slug(embedder.model_id)}", cache_table(embedder.model_id)
        dim = embedder.dimension
        self.store.table(vec_name, vectors_schema(dim))
        chunks = len(ids) if ids is not None else self.store.count("chunks")
        missing: list[str] | None = None  # None: every chunk, streamed (an empty table, no limit)
        orphans: set[str] = set()
        if self.store.count(vec_name) or (limit is not None and chunks > limit):
            if ids is None:
                ids = self.chunk_ids()
            have = set(column(self.store.read(vec_name, ["chunk_id"]), "chunk_id"))
            orphans = have - set(ids)
            missing = [cid for cid in ids if cid not in have]
        wanted = chunks if missing is None else len(missing)
        remaining = 0
        if missing is not None and limit is not None and len(missing) > limit:
            missing, remaining = missing[:limit], len(missing) - limit
            wanted = limit
        progressive = wanted > _batch_of(tier)  # long enough to show searches what is ready
        if progressive:
            self.publish()
        embedded, cached = report.embedded, report.from_cache
        if wanted:
            self._embed_missing(embedder, missing, wanted, vec_name, cache_name, report, progressive, tier)
        if orphans:  # after the new vectors landed, so a changed chunk is never without one
            self.store.delete_in(vec_name, "chunk_id", sorted(orphans))
        count = self.store.count(vec_name)
        # An empty fast table filled from the stream of every chunk holds fragments of FAST_WRITE_ROWS
        # rows (17 for the Linux tree's 1.1 million): compacting them into fewer, before the ANN index
        # and again at the build's end, cost that build ~7 s for no faster search (BENCHMARKS §9,
        # "Thirty-eighth session"); the build that next compacts the index's tables merges them.
        whole = tier == "fast" and missing is None and wanted > 0
        if whole:
            self.filled_whole.add(vec_name)
        # Asked after every build, not only one that wrote vectors: a build killed after its last
        # vectors and before their index (a minute of the Linux tree's end) left a table that a
        # resumed build found complete, and every search then scanned a million vectors.
        report.ann = self.store.ensure_ann(
            vec_name, min_rows=ANN_MIN_ROWS, compact_first=wanted >= ANN_MIN_ROWS and not whole
        )
        report.tiers[tier] = {
            "model": embedder.model_id,
            "vectors": count,
            "chunks": chunks,
            "embedded": report.embedded - embedded,
            "from_cache": report.from_cache - cached,
            "seconds": round(time.perf_counter() - t0, 3),
        }
        return remaining

    def _embed_missing(
        self,
        embedder: Embedder,
        missing: list[str] | None,
        wanted: int,
        vec_name: str,
        cache_name: str,
        report: BuildReport,
        progressive: bool,
        tier: str = "full",
    ) -> None:
        """Embed ``missing`` (``None``: every chunk; ``wanted`` chunks in all) window by window
        (:data:`WINDOW` chunks read, sorted by length and embedded together), so that a build's
        memory is bounded by the window, not by the tree. The heap freed by each window is given back
        (:func:`~indexer.heap.release_heap`): glibc kept ~150 MB of it over the Linux tree."""
        self.progress.start(f"{tier} vectors", wanted)
        dim = embedder.dimension
        vschema, cschema = self.store.table(vec_name, vectors_schema(dim)).schema, cache_schema(dim)
        fields = [n for n in vschema.names if n != "vector"]  # an older table holds the text too
        use_cache = tier != "fast"
        written = _Written(FAST_WRITE_ROWS if tier == "fast" else 1)

        def embed(batch: _Batch) -> tuple[_Batch, np.ndarray | None]:
            return batch, (embedder.embed_documents(batch.texts) if batch.hashes else None)

        # The next batch is embedded on a thread while this one is written, and the next window read and
        # sorted meanwhile too (the same rows and counts as one window after the other).
        with _spread(embedder, wanted) as spread:
            batches = self._batches(missing, cache_name, tier)
            # Worker processes are fed two batches at once: none waits at the end of one for the next.
            for (window, sel, uniq, _texts, needed, last), vecs in one_ahead(
                embed, batches, ahead=1 + spread
            ):
                hashes, known = window.hashes, window.known
                if vecs is not None:
                    new = dict(zip(uniq, vecs, strict=True))
                    known.update(new)
                    if use_cache:
                        matrix = vector_array(np.stack([new[h] for h in uniq]), dim)
                        table = pa.table({"content_hash": uniq, "vector": matrix}, schema=cschema)
                        self.store.add(cache_name, table, cschema)
                    report.embedded += len(uniq)
                report.from_cache += len(sel) - needed
                rows = window.rows.select(fields).take(pa.array(sel, pa.int64()))
                matrix = np.stack([known[hashes[i]] for i in sel]).astype(np.float32)
                if written.hold(rows.append_column("vector", vector_array(matrix, dim))):
                    self._write(vec_name, written.take(), vschema, progressive)
                self.progress.advance(len(sel))
                if last and wanted > WINDOW:
                    del window, rows
                    release_heap(collect=False)  # what the window's rows and texts held: no cycles
        if written.held:
            self._write(vec_name, written.take(), vschema, progressive)

    def _write(self, vec_name: str, rows: pa.Table, vschema: pa.Schema, progressive: bool) -> None:
        self.store.add(vec_name, rows, vschema)
        if progressive:
            self.publish()

    def _windows(self, missing: list[str] | None) -> Iterator[pa.Table]:
        """The chunk rows of ``missing`` (``None``: every chunk), :data:`WINDOW` at a time. Up to a
        window's worth are read by id; more (a first build, a resumed one, a large change) in one
        streamed scan of the table, keeping the rows asked for: a read by id filters the whole table
        each time, so reading a million ids 400 at a time would scan it thousands of times."""
        columns = [f.name for f in CHUNK_FIELDS]
        if missing is not None and len(missing) <= WINDOW:
            if missing:
                reads = [
                    self.store.read("chunks", columns, in_filter("chunk_id", b)) for b in batched(missing)
                ]
                yield pa.concat_tables(reads)
            return
        every = missing is None or len(missing) == self.store.count("chunks")
        wanted = None if every else pa.array(missing, pa.string())  # the ids kept from each batch
        pending: list[pa.RecordBatch] = []
        held = 0
        for batch in self.store.scan("chunks", columns, batch_size=WINDOW):
            if wanted is not None:
                batch = batch.filter(pc.is_in(batch.column("chunk_id"), value_set=wanted))
            if not batch.num_rows:
                continue
            pending.append(batch)
            held += batch.num_rows
            if held >= WINDOW:
                yield pa.Table.from_batches(pending)
                pending, held = [], 0
        if pending:
            yield pa.Table.from_batches(pending)

    def _batches(self, missing: list[str] | None, cache_name: str, tier: str) -> Iterator[_Batch]:
        """The batches of each window in turn: its rows sorted by text length (similar lengths batch
        well), each batch's new texts (a content hash first met in it, not cached) fixed before any is
        embedded."""
        use_cache = tier != "fast"
        size = _batch_of(tier)
        for todo in self._windows(missing):
            hashes = todo.column("content_hash").to_pylist()
            window = _Window(
                todo, hashes, self._cached_vectors(cache_name, sorted(set(hashes))) if use_cache else {}
            )
            texts = todo.column("text").to_pylist()
            order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
            known = set(window.known)
            for start in range(0, len(order), size):
                sel = order[start : start + size]
                need = [i for i in sel if hashes[i] not in known]
                first = {hashes[i]: i for i in reversed(need)}
                uniq = list(dict.fromkeys(hashes[i] for i in need))
                known.update(uniq)
                last = start + size >= len(order)
                yield _Batch(window, sel, uniq, [texts[first[h]] for h in uniq], len(need), last)

    def _cached_vectors(self, cache_name: str, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        return cached_vectors(self.store, cache_name, hashes)


@contextlib.contextmanager
def _spread(embedder: Embedder, wanted: int) -> Iterator[bool]:
    """A foreground build of :data:`SPREAD_MIN_CHUNKS` or more chunks on a machine of several cores
    embeds the static tier's batches in worker processes (its tokenizer runs Python: BENCHMARKS §9,
    "Thirty-first session"); a server's or ``plait watch``'s background build keeps to its own
    lowered threads (:mod:`models.priority`), and a model of another backend to its own threads. Yields
    whether it spreads them."""
    spread_over = getattr(embedder, "spread_over", None)
    cores = usable_cores()
    static = getattr(embedder, "backend", "") == "static"
    if spread_over is None or not static or wanted < SPREAD_MIN_CHUNKS or cores < 2 or in_background():
        yield False
        return
    with watched_pool(min(cores, MAX_EMBED_WORKERS)) as pool, spread_over(pool):
        yield True


def cache_table(model_id: str) -> str:
    """The embedding cache of ``model_id``: content hash → vector, kept across builds."""
    return f"embcache_{model_slug(model_id)}"


def cached_vectors(store: Store, cache_name: str, hashes: Sequence[str]) -> dict[str, np.ndarray]:
    """The vectors ``cache_name`` holds for ``hashes`` (at its latest version), by content hash."""
    if not hashes or not store.has(cache_name):
        return {}
    out: dict[str, np.ndarray] = {}
    for batch in batched(hashes):
        table = store.read(cache_name, None, in_filter("content_hash", batch))
        if table.num_rows:
            matrix = vector_matrix(table.column("vector"))
            out.update(zip(table.column("content_hash").to_pylist(), matrix, strict=True))
    return out


def _batch_of(tier: str) -> int:
    return FAST_VECTOR_BATCH if tier == "fast" else VECTOR_BATCH
