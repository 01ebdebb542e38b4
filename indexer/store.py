"""The LanceDB tables that hold a workspace's whole index, under one location (path or URI).

Tables::

    meta                    key → JSON value (fingerprint, last build)
    files                   the manifest: path, sha256, size, mtime_ns, language, counts
    symbols                 definitions from tree-sitter
    chunks                  spans to embed and return (no vectors)
    vectors_<model>         chunks that have a vector for <model>: their spans and the vector
    embcache_<model>        content_hash → vector for <model> (survives file deletes and branch switches)

Each LanceDB write is an atomic commit of one table; :mod:`indexer.build` orders writes so that a
build killed between two commits leaves tables that the next build repairs (see there). LanceDB
exceptions are translated to :class:`IndexStoreError` here.
"""

from __future__ import annotations

import copy
import hashlib
import json
import logging
import os
import threading
import time
import typing
import warnings
from collections.abc import Iterable, Iterator, Sequence
from datetime import timedelta
from typing import Any, Final, Protocol

import pyarrow as pa

from indexer.errors import IndexCorruptError, IndexStoreError
from indexer.lance_import import import_lancedb
from indexer.types import STORED_SYMBOL_FIELDS, Symbol

log = logging.getLogger(__name__)

LANCE_DEFAULTS = {
    # Opt in to LanceDB's coming default (index statistics without IVF centroids), which also
    # silences the warning it prints on every `index_stats` call.
    "LANCE_INCLUDE_VECTOR_CENTROIDS": "false",
}


def configure_lance() -> None:
    """Set LanceDB's process-wide options (:data:`LANCE_DEFAULTS`) that the user has not set.

    Called by :class:`Store` before its first connection, so importing this module changes
    nothing; idempotent and cheap.
    """
    for name, value in LANCE_DEFAULTS.items():
        os.environ.setdefault(name, value)


PINNED_VERSIONS = 2  # handles kept per table: the published version and the one before it
META_KEEP = timedelta(minutes=10)  # versions of meta kept by compact_meta (readers need only the latest)

FILES_SCHEMA = pa.schema(
    [
        pa.field("path", pa.string(), nullable=False),
        pa.field("sha256", pa.string()),
        pa.field("size", pa.int64()),
        pa.field("mtime_ns", pa.int64()),
        pa.field("language", pa.string()),
        pa.field("symbols", pa.int32()),
        pa.field("chunks", pa.int32()),
    ]
)
_ARROW_TYPES = {str: pa.string(), int: pa.int32()}


def _symbols_schema() -> pa.Schema:
    """The ``symbols`` table: ``path`` first (never null), then the other stored fields of
    :class:`~indexer.types.Symbol` in its order, then ``name_norm`` (lower-case, separators removed:
    lookups filter on it)."""
    hints = typing.get_type_hints(Symbol)
    stored = [pa.field(n, _ARROW_TYPES[hints[n]]) for n in STORED_SYMBOL_FIELDS if n != "path"]
    return pa.schema(
        [pa.field("path", pa.string(), nullable=False), *stored, pa.field("name_norm", pa.string())]
    )


SYMBOLS_SCHEMA = _symbols_schema()
CHUNK_FIELDS = [
    pa.field("chunk_id", pa.string(), nullable=False),
    pa.field("path", pa.string(), nullable=False),
    pa.field("start_line", pa.int32()),
    pa.field("end_line", pa.int32()),
    pa.field("symbol", pa.string()),
    pa.field("kind", pa.string()),
    pa.field("language", pa.string()),
    pa.field("content_hash", pa.string()),
    pa.field("text", pa.string()),
]
CHUNKS_SCHEMA = pa.schema(CHUNK_FIELDS)
META_SCHEMA = pa.schema([pa.field("key", pa.string(), nullable=False), pa.field("value", pa.string())])


class TableReader(Protocol):
    """Reads rows of a named table: a :class:`Store` (latest versions) or a snapshot."""

    def read(
        self,
        name: str,
        columns: Sequence[str] | None = None,
        where: str | None = None,
        limit: int | None = None,
    ) -> pa.Table: ...


def vectors_schema(dimension: int) -> pa.Schema:
    """A vectors table: each chunk's fields but its text (read from ``chunks`` where it is wanted;
    over the Linux tree the text was half of the table's 2.2 GB, written and compacted for nothing),
    and its vector. A table made before holds the text too, and is written with it until a full build
    empties it (:meth:`Store.empty`)."""
    fields = [f for f in CHUNK_FIELDS if f.name != "text"]
    return pa.schema([*fields, pa.field("vector", pa.list_(pa.float32(), dimension))])


_RESET_SCHEMAS = {
    "files": FILES_SCHEMA,
    "symbols": SYMBOLS_SCHEMA,
    "chunks": CHUNKS_SCHEMA,
    "meta": META_SCHEMA,
}


def cache_schema(dimension: int) -> pa.Schema:
    return pa.schema(
        [
            pa.field("content_hash", pa.string(), nullable=False),
            pa.field("vector", pa.list_(pa.float32(), dimension)),
        ]
    )


def model_slug(model_id: str) -> str:
    return hashlib.sha256(model_id.encode()).hexdigest()[:12]


def sql_str(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def in_filter(column: str, values: Sequence[str]) -> str:
    return f"{column} IN ({', '.join(sql_str(v) for v in values)})"


def batched(values: Sequence[str], size: int = 400) -> Iterator[Sequence[str]]:
    for i in range(0, len(values), size):
        yield values[i : i + size]


#: The vector index a large table gets. IVF_HNSW_SQ (before) built a graph per partition: over the
#: Linux kernel's million chunks it had not finished after 32 minutes, at 2.28 GB (BENCHMARKS §9).
ANN_INDEX_TYPE: Final = "IVF_SQ"
#: Vectors per partition that train the ANN index's k-means (LanceDB's default 256). Over the Linux
#: tree's 1,104,037 fast vectors (256 partitions) the index took 18.0 s with 256 and 11.1 s with 64,
#: recall@10 against an exact scan (150 queries, 64 partitions probed) 0.986 and 0.984 (BENCHMARKS §9,
#: "Thirty-eighth session").
ANN_SAMPLE_RATE: Final = 64


class Store:
    """Typed access to one index location. Opening is cheap; tables open lazily.

    ``recheck``: how long (seconds) :meth:`published_meta` may answer from the ``meta`` it read last
    before asking the table for its latest version again (0: at every call). Writers' reads
    (:meth:`get_meta`) always ask.
    """

    def __init__(self, location: str, *, recheck: float = 0.0) -> None:
        self.location = location
        self.recheck = recheck
        configure_lance()
        lancedb = import_lancedb()  # 1-3 s: only when an index is opened, never for `plait --help`

        try:
            # Strong consistency: a long-lived reader (the server) sees each commit of another
            # process (the daemon, `plait index`) at its next read.
            self.db = lancedb.connect(location, read_consistency_interval=timedelta(0))
        except Exception as exc:  # LanceDB raises bare Exceptions/ValueErrors/OSErrors
            raise self._remote(exc) or IndexStoreError(f"cannot open the index at {location}: {exc}") from exc
        self._tables: dict[str, Any] = {}
        # Read-only handles checked out at one version (snapshot reads), and what is known of them.
        self._lock = threading.Lock()
        self._pinned: dict[tuple[str, int], Any] = {}
        self.pinned_counts: dict[tuple[str, int], int] = {}
        self.pinned_ann: dict[tuple[str, int], bool] = {}
        # (version, decoded rows, when that version was last confirmed latest): meta as read last
        self._meta: tuple[int, dict[str, Any], float] | None = None

    # -- tables ---------------------------------------------------------------------------------
    def table_names(self) -> set[str]:
        try:
            result = self.db.list_tables()
            names = getattr(result, "tables", result)
            return set(names)
        except Exception as exc:
            raise self._remote(exc) or IndexCorruptError(self.location, str(exc)) from exc

    def _remote(self, exc: Exception) -> IndexStoreError | None:
        """An object store's missing bucket, refused credentials or unreachable endpoint, said
        plainly (instead of "corrupt"); ``None`` for anything else."""
        if "://" not in self.location:
            return None
        from indexer.lease import remote_hint

        hint = remote_hint(self.location, exc)
        return IndexStoreError(hint + ".") if hint else None

    def has(self, name: str) -> bool:
        return name in self._tables or name in self.table_names()

    def table(self, name: str, schema: pa.Schema | None = None) -> Any:
        """Open ``name``; create it empty with ``schema`` when missing (if a schema is given)."""
        if name in self._tables:
            return self._tables[name]
        try:
            if name in self.table_names():
                tbl = self.db.open_table(name)
            elif schema is not None:
                tbl = self.db.create_table(name, schema=schema, exist_ok=True)
            else:
                raise IndexStoreError(f"the index at {self.location} has no table {name!r}")
        except IndexStoreError:
            raise
        except Exception as exc:
            raise self._remote(exc) or IndexCorruptError(self.location, f"table {name}: {exc}") from exc
        self._tables[name] = tbl
        return tbl

    def at_version(self, name: str, version: int) -> Any:
        """A read-only handle of ``name`` checked out at ``version``, cached (handles of one version
        never change); the latest handle when that version is gone (cleaned up, table recreated)."""
        key = (name, version)
        with self._lock:
            handle = self._pinned.get(key)
            if handle is not None:
                return handle
            try:
                handle = self.db.open_table(name)
                handle.checkout(version)
            except Exception as exc:
                log.debug("cannot check out %s@%d (%s); reading its latest version", name, version, exc)
                return self.table(name)
            self._pinned[key] = handle
            for old in sorted(v for n, v in self._pinned if n == name)[:-PINNED_VERSIONS]:
                for cache in (self._pinned, self.pinned_counts, self.pinned_ann):
                    cache.pop((name, old), None)
            return handle

    def drop_all(self) -> None:
        for name in self.table_names():
            try:
                self.db.drop_table(name)
            except Exception as exc:
                raise IndexStoreError(f"cannot drop table {name} at {self.location}: {exc}") from exc
        self._tables.clear()
        self._forget()

    def empty(self, name: str) -> None:
        """Make ``name`` empty as a new version of it, with this plait's schema for it (a vector
        table keeps its dimension). Not a drop: a table made again starts its versions over, and what
        readers keep per version (their memos, the saved BM25 file, the text view) would then answer
        for the old rows. A table whose schema plait does not know is dropped."""
        if name not in self.table_names():
            return
        schema = _RESET_SCHEMAS.get(name)
        if schema is None and name.startswith("vectors_"):
            vector = self.table(name).schema.field("vector").type
            schema = vectors_schema(vector.list_size) if pa.types.is_fixed_size_list(vector) else None
        if schema is None:
            self.drop(name)
            return
        try:
            self._tables[name] = self.db.create_table(name, schema=schema, mode="overwrite")
        except Exception as exc:
            raise IndexStoreError(f"cannot empty table {name} at {self.location}: {exc}") from exc
        self._forget(name)

    def drop(self, name: str) -> None:
        if name in self.table_names():
            self.db.drop_table(name)
        self._tables.pop(name, None)
        self._forget(name)

    def _forget(self, name: str | None = None) -> None:
        """Drop what was remembered per version of ``name`` (every table when ``None``): a table made
        again starts its versions over, so an old handle would answer for the wrong data."""
        with self._lock:
            for cache in (self._pinned, self.pinned_counts, self.pinned_ann):
                for key in [k for k in cache if name is None or k[0] == name]:
                    cache.pop(key, None)
        if name is None or name == "meta":
            self._meta = None

    # -- generic operations (translated errors) --------------------------------------------------
    def read(
        self,
        name: str,
        columns: Sequence[str] | None = None,
        where: str | None = None,
        limit: int | None = None,
    ) -> pa.Table:
        if not self.has(name):
            return pa.table({})
        return self.read_from(self.table(name), name, columns, where, limit)

    def read_from(
        self,
        tbl: Any,
        name: str,
        columns: Sequence[str] | None = None,
        where: str | None = None,
        limit: int | None = None,
    ) -> pa.Table:
        """:meth:`read` on an open handle (the latest one or one checked out at a version)."""
        try:
            if where is None and columns is None and limit is None:
                return tbl.to_arrow()
            query = tbl.search()
            if where is not None:
                query = query.where(where)
            if columns is not None:
                query = query.select(list(columns))
            return query.limit(limit).to_arrow()
        except Exception as exc:
            raise IndexCorruptError(self.location, f"reading {name}: {exc}") from exc

    def scan(self, name: str, columns: Sequence[str], *, batch_size: int) -> Iterator[pa.RecordBatch]:
        """The rows of ``name`` (its ``columns``) streamed in batches of at most ``batch_size``, for
        reading a table too large to hold at once."""
        if self.has(name):
            yield from self.scan_from(self.table(name), name, columns, batch_size=batch_size)

    def scan_from(
        self, tbl: Any, name: str, columns: Sequence[str], *, batch_size: int
    ) -> Iterator[pa.RecordBatch]:
        """:meth:`scan` on an open handle (the latest one or one checked out at a version). Read a
        page of ``batch_size`` rows per query: LanceDB's streamed scan reads far ahead (~800 MB held
        while scanning the texts of the Linux kernel's million chunks; pages held ~150 MB)."""
        try:
            total = int(tbl.count_rows())
            for start in range(0, total, batch_size):
                page = tbl.search().select(list(columns)).offset(start).limit(batch_size).to_arrow()
                yield from page.select(list(columns)).combine_chunks().to_batches()
        except Exception as exc:
            raise IndexCorruptError(self.location, f"reading {name}: {exc}") from exc

    def count(self, name: str, where: str | None = None) -> int:
        if not self.has(name):
            return 0
        try:
            return int(self.table(name).count_rows(where))
        except Exception as exc:
            raise IndexCorruptError(self.location, f"counting {name}: {exc}") from exc

    def add(self, name: str, rows: pa.Table, schema: pa.Schema) -> None:
        if rows.num_rows == 0:
            return
        try:
            self.table(name, schema).add(rows)
        except Exception as exc:
            raise IndexStoreError(f"cannot write {name} at {self.location}: {exc}") from exc

    def delete_in(self, name: str, column: str, values: Iterable[str]) -> None:
        values = sorted(set(values))
        if not values or not self.has(name):
            return
        tbl = self.table(name)
        try:
            for batch in batched(values):
                tbl.delete(in_filter(column, batch))
        except Exception as exc:
            raise IndexStoreError(f"cannot delete from {name} at {self.location}: {exc}") from exc

    def upsert(self, name: str, key: str, rows: pa.Table, schema: pa.Schema) -> None:
        if rows.num_rows == 0:
            return
        tbl = self.table(name, schema)
        try:
            (tbl.merge_insert(key).when_matched_update_all().when_not_matched_insert_all().execute(rows))
        except Exception as exc:
            raise IndexStoreError(f"cannot write {name} at {self.location}: {exc}") from exc

    def compact(self, name: str, *, keep: timedelta | None = None) -> None:
        """Compact ``name``'s fragments; with ``keep``, also delete its versions older than that
        (LanceDB's default keeps 7 days)."""
        if not self.has(name):
            return
        try:
            self.table(name).optimize(cleanup_older_than=keep)
        except Exception as exc:  # compaction is an optimisation: never fail a build for it
            log.warning("compaction of %s failed: %s", name, exc)

    def compact_meta(self) -> None:
        """Compact ``meta`` into one fragment and drop its versions older than :data:`META_KEEP`.

        Every write to ``meta`` (8 in a one-file build) adds a version and a data file, and nothing
        else compacts it: after a thousand builds a reader's first read of ``meta`` would fetch
        thousands of small files, and each check for a new snapshot would list thousands of versions
        (on object storage, pages of 1,000). Readers read a ``meta`` version right after listing it and
        keep it decoded, so versions older than :data:`META_KEEP` are never read again; the snapshot's
        other tables are not touched (their versions are what snapshots pin).
        """
        self.compact("meta", keep=META_KEEP)
        self._meta = None

    def verify(self, names: Sequence[str] = ("meta", "files", "symbols", "chunks")) -> None:
        """Open and count each existing table; raise IndexCorruptError if one is unreadable."""
        for name in names:
            self.count(name)

    # -- vector index ----------------------------------------------------------------------------
    def ensure_ann(self, name: str, *, min_rows: int, compact_first: bool = False) -> str | None:
        """Build an :data:`ANN_INDEX_TYPE` index on ``name`` once it has ``min_rows`` rows, and rebuild
        it when over a fifth of the rows arrived after it was built. Below ``min_rows`` searches stay
        exact. Returns what was done (for the build report), or None. ``compact_first``: compact the
        table before building an index (after a large write): an index is built faster over a few
        fragments than over hundreds, and a compaction after it would have to remap it (over a million
        vectors: 51 s against 61 s for both, BENCHMARKS §9, "Thirtieth session")."""
        rows = self.count(name)
        if rows < min_rows:
            return None
        tbl = self.table(name)
        try:
            if _index_covers(tbl, "vector", rows):
                return None
            if compact_first:
                self.compact(name)
            partitions = max(1, min(256, rows // 4096))
            tbl.create_index(
                metric="cosine",
                index_type=ANN_INDEX_TYPE,
                num_partitions=partitions,
                vector_column_name="vector",
                replace=True,
                sample_rate=ANN_SAMPLE_RATE,
            )
        except Exception as exc:  # an index is an optimisation: exact search still answers
            log.warning("building the vector index of %s failed: %s", name, exc)
            return None
        return f"{ANN_INDEX_TYPE} over {rows:,} vectors, {partitions} partitions"

    def ensure_scalar_index(self, name: str, column: str, *, min_rows: int) -> str | None:
        """Build a B-tree index on ``name``'s ``column`` once the table has ``min_rows`` rows, and
        rebuild it when over a fifth of the rows arrived after it was built (rows added since are
        still found, by a scan of those alone). Returns what was done (for the build report), or None."""
        rows = self.count(name)
        if rows < min_rows:
            return None
        tbl = self.table(name)
        try:
            if _index_covers(tbl, column, rows):
                return None
            with warnings.catch_warnings():  # create_index(config=BTree()) is for vector columns here
                warnings.simplefilter("ignore")
                tbl.create_scalar_index(column, index_type="BTREE", replace=True)
        except Exception as exc:  # an index is an optimisation: the scan still answers
            log.warning("building the index of %s.%s failed: %s", name, column, exc)
            return None
        return f"BTREE on {name}.{column} over {rows:,} rows"

    # -- meta -----------------------------------------------------------------------------------
    def get_meta(self) -> dict[str, Any]:
        """All of ``meta`` at its latest version, decoded (a writer's read: always asks the table).
        Asking for the latest version is ~5× cheaper than scanning the table, so the rows are read
        and decoded again only when that version changed."""
        if not self.has("meta"):
            return {}
        checked = time.monotonic()
        try:
            version = int(self.table("meta").version)
        except Exception as exc:
            raise self._remote(exc) or IndexCorruptError(self.location, f"reading meta: {exc}") from exc
        cached = self._meta
        if cached is None or cached[0] != version:
            rows = _decoded(self.read_from(self.at_version("meta", version), "meta"))
        else:
            rows = cached[1]
        self._meta = (version, rows, checked)
        return copy.deepcopy(rows)  # a caller may change what it got; the cache stays as read

    def published_meta(self) -> dict[str, Any]:
        """``meta`` as a reader sees it: :meth:`get_meta`, or the ``meta`` read last when that was
        less than :attr:`recheck` seconds ago. On object storage asking for the latest version is a
        request (a listing of ``meta``'s versions); within the interval a search makes none for it,
        and a publish by another process is seen at most ``recheck`` seconds late. This process's
        own writes to ``meta`` are seen at once."""
        cached = self._meta
        if cached is not None and time.monotonic() - cached[2] < self.recheck:
            return copy.deepcopy(cached[1])
        return self.get_meta()

    def set_meta(self, **values: Any) -> None:
        rows = pa.table(
            {"key": list(values), "value": [json.dumps(v) for v in values.values()]}, schema=META_SCHEMA
        )
        self.upsert("meta", "key", rows, META_SCHEMA)
        self._meta = None  # this process's own publish is seen by its next read


def _index_covers(tbl: Any, column: str, rows: int) -> bool:
    """Whether ``tbl`` (of ``rows`` rows) has an index on ``column`` that at most a fifth of its rows
    arrived after: one worth keeping (rows added since are still found, by a scan of those alone)."""
    index = next((i for i in tbl.list_indices() if column in list(getattr(i, "columns", []))), None)
    if index is None:
        return False
    stats = tbl.index_stats(index.name)
    return int(getattr(stats, "num_unindexed_rows", 0) or 0) <= rows // 5


def _decoded(table: pa.Table) -> dict[str, Any]:
    """``meta``'s rows as key → decoded JSON value (``None`` for a value that is not JSON)."""
    out: dict[str, Any] = {}
    for key, value in zip(table.column("key").to_pylist(), table.column("value").to_pylist(), strict=True):
        try:
            out[key] = json.loads(value)
        except (TypeError, json.JSONDecodeError):
            out[key] = None
    return out
