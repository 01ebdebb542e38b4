"""``Index``: the library API of one workspace's index: build, status, pinned snapshots, and reads.

The CLI, the MCP server, the daemon and the benchmarks all go through this class. It is a facade:
the reads are done by one component per job, each keeping what it derives from a published table
version in a :class:`~indexer.memo.VersionMemo`:

* :class:`~indexer.symbol_reads.SymbolReader`: definitions by name (:meth:`Index.lookup_many`);
* :class:`~indexer.spans.ChunkSpans`: chunk spans by path (:meth:`Index.chunk_spans`);
* :class:`~indexer.bm25_store.Bm25Store`: the BM25 index of the chunks (:meth:`Index.lexical`);
* :class:`~indexer.nearest.VectorSearch`: nearest chunks by vector (:meth:`Index.nearest`);
* :func:`~indexer.status.read_status`: state and counts (:meth:`Index.status`).

Contract:

* **Readers** never take a lock and never see a half-written batch: every read goes through a
  :class:`~indexer.snapshot.Snapshot`, the table versions the writer last published. A plain
  ``Index`` reads the latest published snapshot at each call; :meth:`Index.pinned` gives a copy
  whose every read uses one snapshot (one search, several retrievers, one view).
* **Writers** (:meth:`Index.build`, :meth:`Index.upgrade`) hold the writer lock
  (:mod:`indexer.lock`) for the whole write; a second writer waits ``wait`` seconds, then gets
  :class:`~indexer.errors.IndexLockedError`. Readers in other processes see the new snapshot at
  their next call; this object forgets its memos after its own writes.
* **Threads**: one ``Index`` (and its pinned copies) may serve concurrent reads from many threads;
  heavy objects (the LanceDB connection, embedders, in-memory tables) are made lazily, once, and
  shared. Writes from two threads of one process exclude each other through the writer lock too.
* **Errors**: unreadable or foreign index data raise :class:`~indexer.errors.IndexStoreError`
  (:class:`~indexer.errors.IndexCorruptError` when LanceDB fails on a read); a bad tier or model
  raises :class:`~models.errors.ConfigError` or :class:`~models.errors.ModelError`. ``status()``
  never raises for an unreadable index: it reports it as corrupt.
"""

from __future__ import annotations

import contextlib
import copy
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from indexer import bm25_store, ownership, textview
from indexer.beneath import read_beneath
from indexer.bm25_store import Bm25Store
from indexer.build import Builder, BuildReport, Progress, read_manifest
from indexer.chunks import chunk_text, split_lines
from indexer.config import Settings
from indexer.embedding import TIERS, make_embedder, tier_config
from indexer.errors import IndexCorruptError, IndexStoreError
from indexer.filters import glob_matcher
from indexer.lexical import LexicalIndex
from indexer.lock import writer_lock
from indexer.lookup import SymbolMatch, SymbolRow
from indexer.memo import VersionMemo
from indexer.nearest import ANN_NPROBES, ANN_REFINE, VectorHit, VectorSearch, ann_ef, search_tier
from indexer.parse_ahead import ParseAhead
from indexer.parse_jobs import decode
from indexer.snapshot import Snapshot, current
from indexer.spans import ChunkSpan, ChunkSpans
from indexer.status import IndexState, IndexStatus, read_status, snapshot_record
from indexer.store import ANN_INDEX_TYPE, Store, batched, in_filter, model_slug
from indexer.symbol_reads import SymbolReader
from models import Embedder, PlaitError

# Names that moved to the modules above, importable from here as before.
__all__ = [
    "ANN_INDEX_TYPE",
    "ANN_NPROBES",
    "ANN_REFINE",
    "ChunkSpan",
    "Index",
    "IndexState",
    "IndexStatus",
    "VectorHit",
    "ann_ef",
    "glob_matcher",
]

log = logging.getLogger(__name__)

#: An embedding cache above this many rows is not filtered at search time (a scan: 3–6 ms at 12k rows).
MAX_SEARCHED_CACHE = 300_000
Manifest = dict[str, tuple[str, int, int]]  # path → (sha256, size, mtime_ns)


class _Readers:
    """The read components (and their memos) shared by an :class:`Index` and its pinned copies."""

    def __init__(self, settings: Settings) -> None:
        local = settings.index_is_local
        self.symbols = SymbolReader()
        self.spans = ChunkSpans()
        self.bm25 = Bm25Store(
            Path(settings.index_dir) if local else None, remote=None if local else settings.index_dir
        )
        self.vectors = VectorSearch(settings.index_dir, settings.root)
        self.manifest: VersionMemo[int, Manifest] = VersionMemo()

    def forget(self) -> None:
        """A writer published a new snapshot: nothing kept matches a version any more."""
        self.symbols.forget()
        self.spans.forget()
        self.bm25.forget()
        self.vectors.forget()
        self.manifest.forget()


class Index:
    """One workspace's index at ``settings.index_dir`` (see the module docstring for the contract)."""

    def __init__(self, settings: Settings, *, embedder: Embedder | None = None) -> None:
        self.settings = settings
        self._embedder = embedder
        self._tier_embedders: dict[str, Embedder] = {}
        self._store: Store | None = None
        self._exists = False
        self._readers = _Readers(settings)
        self._pin: Snapshot | None = None

    # -- plumbing -------------------------------------------------------------------------------
    @property
    def location(self) -> str:
        return self.settings.index_dir

    @property
    def store(self) -> Store:
        if self._store is None:
            if self.settings.index_is_local:
                Path(self.location).mkdir(parents=True, exist_ok=True)
            self._store = Store(self.location, recheck=self.settings.recheck)
        return self._store

    def snapshot(self) -> Snapshot:
        """The pinned snapshot, or the one the writer published last."""
        return self._pin if self._pin is not None else current(self.store)

    def pinned(self) -> Index:
        """A copy of this index (same store, embedder and memos) that reads one snapshot throughout."""
        twin = copy.copy(self)
        twin._pin = current(self.store)
        return twin

    def embedder(self) -> Embedder:
        """The full tier's embedder (the configured model)."""
        if self._embedder is None:
            self._embedder = make_embedder(self.settings.model)
        return self._embedder

    def tier_embedder(self, tier: str) -> Embedder:
        """The embedder of ``tier`` (``fast``: the static model made from the configured one)."""
        if tier == "full":
            return self.embedder()
        found = self._tier_embedders.get(tier)
        if found is None:
            found = self._tier_embedders[tier] = make_embedder(tier_config(self.settings.model, tier))
        return found

    def _embedder_factories(self) -> dict[str, Callable[[], Embedder]]:
        return {tier: (lambda t=tier: self.tier_embedder(t)) for tier in TIERS}  # type: ignore[misc]

    def exists(self) -> bool:
        if self._exists:
            return True  # an index does not disappear under a reader (a rebuild keeps its tables)
        if self.settings.index_is_local and not ownership.has_tables(Path(self.location)):
            return False  # decided without opening LanceDB, which takes seconds to import
        try:
            self._exists = self.store.has("files")
        except IndexStoreError:
            return True  # something is there, but unreadable: status reports it as corrupt
        return self._exists

    # -- writing --------------------------------------------------------------------------------
    def build(
        self,
        *,
        full: bool = False,
        vectors: bool = True,
        paths: Iterable[str] | None = None,
        progress: Progress | None = None,
        wait: float = 0.0,
        tier: str = "full",
    ) -> BuildReport:
        """Bring the index up to date (incrementally unless ``full``); ``paths`` limits the check.

        ``tier``: ``fast`` embeds the fast tier (and completes a full tier missing only a few
        vectors), ``full`` the transformer's vectors too (see :mod:`indexer.embedding`), ``auto``
        the one :meth:`default_tier` names (what ``plait index`` builds when no tier is named).
        Takes the writer lock (waiting up to ``wait`` seconds, then IndexLockedError). A corrupt
        index is rebuilt from scratch; the embedding cache is kept whenever it is readable.

        Large builds (and a process's first build of 100+ files) parse in *spawned* worker processes,
        which import the calling program's main module as any spawn-based multiprocessing does: a
        script that calls this must keep its top-level work under ``if __name__ == "__main__":``, or
        each worker runs it again (plait's own commands do; a worker that cannot start leaves the
        build to parse in-process).
        """
        tier = self.default_tier() if tier == "auto" else tier
        tier_config(self.settings.model, tier)  # a bad tier fails before any work
        root = self.settings.root.resolve()
        if self.settings.index_is_local:  # before the lock file: a foreign folder gets nothing of ours
            ownership.claim(Path(self.location), root)
        with writer_lock(self.location, wait=wait), contextlib.ExitStack() as stack:
            # A first build parses in worker processes while this one opens the index (imports lancedb).
            local = Path(self.location) if self.settings.index_is_local else None
            ahead = ParseAhead.start(self.settings, local)
            if ahead is not None:
                stack.callback(ahead.close)
            self._check_meta_owner(root)
            factories = self._embedder_factories() if vectors else None

            def builder() -> Builder:
                return Builder(
                    self.settings, self.store, embedders=factories, tier=tier, progress=progress,
                    chunks_ready=self._save_text_index, ahead=ahead,
                )  # fmt: skip

            with contextlib.suppress(IndexStoreError):  # unreadable meta: the build's verify says so
                if "fingerprint" in self.store.get_meta():  # a first build says so by having none yet
                    self.store.set_meta(owner=ownership.owner_record(root), build={"state": "running"})
            try:
                report = builder().run(full=full, paths=paths)
            except IndexCorruptError as exc:
                self._wipe()
                report = builder().run(full=True)
                report.rebuilt_reason = f"the index was unreadable ({exc}); rebuilt from scratch"
            self.store.set_meta(owner=ownership.owner_record(root), build={"state": "done"})
            self.store.compact_meta()  # before the text search view records meta's version
        self._readers.forget()
        self._prepare_text_search()
        return report

    def default_tier(self) -> str:
        """The tier a build embeds when none is named: ``full`` when the index's full tier is complete
        (a full index stays full: a few changed chunks take the transformer seconds), else ``fast``:
        searchable in seconds, the full tier filled in behind it by ``plait watch`` and ``plait serve``
        (or at once by ``plait index --tier full``). The fast tier is within 0.01 NDCG@10 of the full
        one on the peer suite (BENCHMARKS §9). Searches rank with the full tier exactly when it is
        complete (:meth:`search_tier`), so that is the one test."""
        try:
            found = self.search_tier() if self.exists() else None
        except PlaitError:  # unreadable: the build rebuilds it, as a first build
            return "fast"
        return "full" if found is not None and found[0] == "full" else "fast"

    def _save_text_index(self) -> None:
        """Save the BM25 index of the chunks just published, before the vectors (a long phase, which
        may be stopped): built a window at a time and not kept, so the vectors have the memory."""
        try:
            snap = self.snapshot()
            if self.settings.index_is_local and snap.count("chunks") >= bm25_store.CHILD_MIN_CHUNKS:
                bm25_store.save_in_child(self.location)
            else:
                self._readers.bm25.prepare(snap, keep=False)
        except Exception as exc:  # best effort: the text search is saved after the vectors instead
            log.warning("BM25 index not saved before the vectors: %s", exc)

    def _prepare_text_search(self) -> None:
        """Build and save the published chunks' BM25 index unless it is saved already, then save what a
        text search reads beside it (:mod:`indexer.textview`), so that the next search, maybe in another
        process, needs neither a rebuild nor LanceDB and pyarrow."""
        location = Path(self.location) if self.settings.index_is_local else None
        meta = textview.meta_version(location) if location is not None else None  # before the snapshot
        try:
            snap = self.snapshot()
            version = snap.versions.get("chunks", -1)
            self._readers.bm25.prepare(snap)
            saved = self._readers.bm25.saved_file(version)
            if location is not None and meta is not None and saved is not None and saved.exists():
                textview.write_view(location, meta, version, read_manifest(snap), snapshot_record(snap))
        except IndexStoreError as exc:
            log.debug("BM25 index not prepared after the build: %s", exc)
        except OSError as exc:  # a read-only or full disk: text searches read the tables instead
            log.debug("text search view not saved at %s: %s", self.location, exc)

    def upgrade(self, tier: str = "full", *, limit: int = 512, wait: float = 0.0) -> int:
        """Embed up to ``limit`` chunks that ``tier`` lacks, under the writer lock, and publish them;
        returns how many it still lacks (0: complete). Searches switch to the tier once it is
        complete. Raises IndexLockedError when another writer holds the lock past ``wait``."""
        tier_config(self.settings.model, tier)
        if not self.exists():
            return 0
        with writer_lock(self.location, wait=wait):
            self._check_meta_owner(self.settings.root.resolve())
            builder = Builder(self.settings, self.store, embedders=self._embedder_factories(), tier=tier)
            remaining, _report = builder.upgrade(tier, limit)
            self.store.compact_meta()
        self._readers.forget()
        self._prepare_text_search()  # the tiers changed in meta: a new text search view
        return remaining

    def _check_meta_owner(self, root: Path) -> None:
        """Refuse a location whose ``meta`` names another root (object storage has no marker file)."""
        try:
            meta = self.store.get_meta()
        except IndexStoreError:
            if not self.settings.index_is_local:  # nothing else says whose it is: never wipe it
                raise
            return  # a local location was checked by its marker; the build rebuilds what is unreadable
        ownership.check_meta(self.location, meta, root)

    def _wipe(self) -> None:
        """Delete an unreadable index's data: locally only the entries plait makes (never a foreign
        file, never the marker or locks); in object storage its tables."""
        if self.settings.index_is_local:
            removed = ownership.wipe_entries(Path(self.location))
            log.warning("the index at %s was unreadable; removed %s", self.location, ", ".join(removed))
        else:
            self.store.drop_all()
        self._store = None
        self._exists = False

    # -- reading --------------------------------------------------------------------------------
    def lookup_symbols(
        self,
        name: str,
        *,
        kinds: Iterable[str] | None = None,
        language: str | None = None,
        globs: Sequence[str] = (),
        path_prefix: str | None = None,
        limit: int = 50,
    ) -> list[SymbolMatch]:
        """Definitions by exact name, qualified name, prefix, case/underscore-insensitive or fuzzy match."""
        return self.lookup_many([(name, False)], kinds=kinds, language=language, globs=globs,
                                path_prefix=path_prefix, limit=limit)[0]  # fmt: skip

    def lookup_many(
        self,
        names: Sequence[tuple[str, bool]],
        *,
        kinds: Iterable[str] | None = None,
        language: str | None = None,
        globs: Sequence[str] = (),
        path_prefix: str | None = None,
        limit: int = 50,
    ) -> list[list[SymbolMatch]]:
        """:meth:`lookup_symbols` for several ``(name, strict)`` at once, with one query to the store;
        strict names keep only exact, qualified and case/separator-insensitive matches."""
        if not names or not self.exists():
            return [[] for _ in names]
        return self._readers.symbols.lookup_many(
            self.snapshot(), names, kinds=kinds, language=language, globs=globs,
            path_prefix=path_prefix, limit=limit,
        )  # fmt: skip

    def spelled_definitions(
        self,
        words: frozenset[str],
        *,
        owners: frozenset[str] = frozenset(),
        globs: Sequence[str] = (),
        path_prefix: str | None = None,
        limit: int = 5,
    ) -> list[SymbolRow]:
        """The functions whose names' parts are all among ``words`` (see
        :meth:`indexer.lookup.SymbolTable.spelled`), the longest names first; first of all, the
        methods of ``owners`` (classes' names, normalised) so named."""
        if not words or not self.exists():
            return []
        return self._readers.symbols.spelled(
            self.snapshot(), words, owners=owners, globs=globs, path_prefix=path_prefix, limit=limit
        )

    def symbols_in_file(self, path: str) -> list[SymbolRow]:
        return SymbolReader.in_file(self.snapshot(), path)

    def functions_within(self) -> Callable[[str, int, int], list[str]] | None:
        """A lookup of the functions and methods defined on lines ``start``–``end`` of ``path``
        (qualified names, in line order) in this snapshot's symbol table, or ``None`` where the table
        is not held in memory (no index, or more than ``MAX_MEMORY_SYMBOLS`` rows: a query to the
        store per file would cost more than a search may)."""
        if not self.exists():
            return None
        table = self._readers.symbols.table(self.snapshot())
        return table.functions_within if table is not None else None

    def chunk_spans(self, paths: Iterable[str]) -> dict[str, list[ChunkSpan]]:
        """Chunk spans of ``paths``, sorted by start line (maps hits to chunk-sized spans)."""
        return self._readers.spans.of(self.snapshot(), paths)

    def stored_vectors(self, tier: str, hashes: Sequence[str]) -> dict[str, Any]:
        """The vectors that ``tier``'s builds have made of these contents, by content hash: its embedding
        cache, read at its latest version (a vector kept by content is right whatever the snapshot), so
        a search sees what a build running beside it has embedded so far. Empty when the tier keeps no
        cache (the fast one), the cache is too large to filter while a user waits, or it is in object
        storage (a scan there was not measured against embedding the few texts at hand)."""
        from indexer.vector_build import cache_table, cached_vectors  # numpy, pyarrow: a vector search's

        if not hashes or not self.settings.index_is_local:
            return {}
        name = cache_table(self.tier_embedder(tier).model_id)
        store = self.store
        if not store.has(name) or store.count(name) > MAX_SEARCHED_CACHE:
            return {}
        return cached_vectors(store, name, hashes)

    def chunk_texts(self, spans: Iterable[tuple[str, int, int]]) -> dict[tuple[str, int, int], str]:
        """What the chunks at ``spans`` (path, first line, last line) hold, made as the chunker makes
        them (:func:`indexer.chunks.chunk_text`: header, scope and lines) from their files as they read
        now: the texts the transformer embeds. Each file is read once, beneath the root (no symlink
        followed, no special file opened); the spans of a file that cannot be read are left out."""
        by_path: dict[str, list[tuple[int, int]]] = {}
        for path, start, end in spans:
            by_path.setdefault(path, []).append((start, end))
        scopes = self.chunk_spans(by_path)
        out: dict[tuple[str, int, int], str] = {}
        for path, wanted in by_path.items():
            try:
                data = read_beneath(self.settings.root, path, self.settings.max_file_bytes)
            except (OSError, PlaitError):
                continue
            lines = split_lines(decode(data))
            known = {(c.start_line, c.end_line): c.symbol for c in scopes.get(path, ())}
            for start, end in wanted:
                scope = known.get((start, end))
                out[(path, start, end)] = chunk_text(
                    path, lines, start, end, scope, self.settings.chunks.max_chars
                )
        return out

    def lexical(self) -> LexicalIndex:
        """The BM25 index of the snapshot's chunks, built on first use and kept per published version."""
        return self._readers.bm25.get(self.snapshot())

    def manifest_for(self, paths: Iterable[str]) -> Manifest:
        """Manifest rows (sha256, size, mtime_ns) of just ``paths``."""
        wanted = list(dict.fromkeys(paths))
        whole = self.whole_manifest()
        if whole is not None:
            return {p: whole[p] for p in wanted if p in whole}
        snap = self.snapshot()
        out: Manifest = {}
        for batch in batched(wanted):
            out.update(read_manifest(snap, in_filter("path", batch)))
        return out

    def whole_manifest(self) -> Mapping[str, tuple[str, int, int]] | None:
        """Every manifest row of the published snapshot, read once per version and shared (do not
        modify it); ``None`` before anything was published."""
        snap = self.snapshot()
        version = snap.versions.get("files", -1)
        if version < 0:
            return None
        return self._readers.manifest.get(version, lambda _previous: read_manifest(snap))

    def manifest(self) -> Manifest:
        return read_manifest(self.snapshot()) if self.exists() else {}

    def vector_table_name(self) -> str:
        return f"vectors_{model_slug(self.embedder().model_id)}"

    def search_tier(self, snap: Snapshot | None = None) -> tuple[str, dict[str, Any]] | None:
        """The tier a search of ``snap`` ranks with and its ``meta`` entry (id, dimension, table):
        ``full`` once it covers every chunk, else ``fast``; None when nothing is embedded."""
        return search_tier(snap or self.snapshot())

    def unembedded(self) -> bool:
        """Whether the index has no vectors of any tier yet (missing, or built without them): a first
        build then embeds the fast tier first. False for an unreadable index (its build says why)."""
        try:
            return not self.exists() or self.search_tier() is None
        except PlaitError:
            return False

    def coverage(self) -> tuple[int, int]:
        """(chunks with a vector of the tier searches rank with, all chunks)."""
        snap = self.snapshot()
        found = search_tier(snap)
        embedded = snap.count(str(found[1]["table"])) if found is not None else 0
        return embedded, snap.count("chunks")

    def nearest(
        self,
        query: str,
        *,
        limit: int = 20,
        path_prefix: str | None = None,
        paths: Sequence[str] | None = None,
        globs: Sequence[str] = (),
        language: str | None = None,
    ) -> list[VectorHit]:
        """Chunks nearest to ``query`` (cosine distance), filtered by path prefix/paths/globs/language."""
        return self._readers.vectors.nearest(
            self.snapshot(), query, self.tier_embedder, limit=limit, path_prefix=path_prefix,
            paths=paths, globs=globs, language=language,
        )  # fmt: skip

    # -- status ---------------------------------------------------------------------------------
    def status(self, *, check_files: bool = True) -> IndexStatus:
        """State, counts, coverage and (with ``check_files``) which files changed since the last build."""
        return read_status(self, check_files=check_files)

    def is_stale(self, path: str, manifest: Mapping[str, tuple[str, int, int]]) -> bool:
        """Whether the live file differs from what was indexed (cheap: size and mtime first)."""
        return textview.file_is_stale(self.settings.root, path, manifest)
