"""``Index``: the library API of one workspace's index (build, status, lookups, nearest chunks).

The CLI, the MCP server, the daemon and the benchmarks all go through this class. Heavy objects
(the LanceDB connection, the embedder, the in-memory symbol table) are created lazily and reused,
so a long-lived process keeps them warm. Readers never take the writer lock.
"""

from __future__ import annotations

import contextlib
import copy
import logging
import os
import re
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

import pathspec
import pyarrow as pa

from indexer import ownership
from indexer.beneath import read_beneath
from indexer.build import (
    Builder,
    BuildReport,
    Progress,
    fingerprint,
    read_manifest,
    search_tier_of,
    tier_entries,
)
from indexer.config import Settings
from indexer.embedding import TIERS, make_embedder, tier_config
from indexer.errors import IndexCorruptError, IndexStoreError
from indexer.lexical import COLUMNS as LEXICAL_COLUMNS
from indexer.lexical import LexicalIndex
from indexer.lock import writer_active, writer_lock
from indexer.lookup import SymbolMatch, SymbolRow, SymbolTable, name_tokens, normalise
from indexer.revision import REVISION_KEY, tree_revision
from indexer.snapshot import Snapshot, current
from indexer.store import Store, batched, in_filter, model_slug, sql_str
from indexer.types import sha256_hex
from indexer.workspace import Walker, WalkStats
from models.base import Embedder

SYMBOL_COLUMNS = ["name", "qualified_name", "kind", "path", "language", "start_line", "end_line", "signature"]
CHUNK_SPAN_COLUMNS = ["path", "start_line", "end_line", "symbol", "kind", "language"]
log = logging.getLogger(__name__)
MAX_SYMBOL_CANDIDATES = 5000
MAX_MEMORY_SYMBOLS = 250_000  # up to this many symbols, lookups use one in-memory table per version
MAX_MEMORY_CHUNK_SPANS = 300_000  # up to this many chunks, all spans are read at once per version
STRICT_MATCHES = frozenset({"exact", "qualified", "case", "normalised"})
# ANN search settings: a wider HNSW beam and re-ranking with the full vectors keep recall near exact.
ANN_EF = 100
ANN_REFINE = 4


def ann_ef(k: int) -> int:
    """The HNSW beam for ``k`` results: LanceDB refuses a beam narrower than the candidates it must
    return (``k`` × refine factor)."""
    return max(ANN_EF, k * ANN_REFINE)


def _path_prefix_sql(prefix: str) -> str:
    prefix = prefix.rstrip("/")
    like = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"(path = {sql_str(prefix)} OR path LIKE {sql_str(like + '/%')} ESCAPE '\\')"


INTERRUPTED_DETAIL = (
    "interrupted build: run plait index again (searches use the last published snapshot meanwhile)"
)


class IndexState(StrEnum):
    MISSING = "missing"
    CORRUPT = "corrupt"
    SCHEMA_MISMATCH = "schema_mismatch"
    INTERRUPTED = "interrupted"  # a build was killed; searches read the last published snapshot
    STALE = "stale"
    FRESH = "fresh"


@dataclass(frozen=True, slots=True)
class ChunkSpan:
    start_line: int
    end_line: int
    symbol: str | None
    kind: str | None
    language: str | None


@dataclass(frozen=True, slots=True)
class VectorHit:
    path: str
    start_line: int
    end_line: int
    symbol: str | None
    kind: str | None
    language: str | None
    distance: float


@dataclass
class IndexStatus:
    state: IndexState
    root: str
    location: str
    files: int = 0
    symbols: int = 0
    chunks: int = 0
    vectors: int = 0
    model: str | None = None
    stale_files: list[str] = field(default_factory=list)
    new_files: list[str] = field(default_factory=list)
    deleted_files: list[str] = field(default_factory=list)
    last_build: dict[str, Any] | None = None
    size_bytes: int | None = None
    detail: str | None = None
    watcher: dict[str, Any] | None = None
    search_tier: str | None = None  # the tier searches rank with (``model`` and ``vectors`` are its)
    tiers: dict[str, dict[str, Any]] = field(default_factory=dict)  # tier → {model, vectors, complete}
    revision: dict[str, Any] | None = None  # the git commit (and dirty flag) of the tree last indexed
    checkout: dict[str, Any] | None = None  # the same of the tree under the root now (with check_files)

    @property
    def coverage(self) -> str:
        return f"{self.vectors:,} of {self.chunks:,} chunks embedded"

    def tier_line(self) -> str:
        """``fast 4,151/4,151 (searched), full 1,024/4,151``: each tier's coverage in one line."""
        parts = []
        for tier in TIERS:
            entry = self.tiers.get(tier)
            if entry is not None:
                mark = " (searched)" if tier == self.search_tier else ""
                parts.append(f"{tier} {entry['vectors']:,}/{self.chunks:,}{mark}")
        return ", ".join(parts) or "no vectors"

    def as_dict(self) -> dict[str, Any]:
        return {
            "state": self.state.value,
            "root": self.root,
            "location": self.location,
            "files": self.files,
            "symbols": self.symbols,
            "chunks": self.chunks,
            "vectors": self.vectors,
            "vector_coverage": self.coverage,
            "model": self.model,
            "stale_files": self.stale_files[:200],
            "new_files": self.new_files[:200],
            "deleted_files": self.deleted_files[:200],
            "changed_count": len(self.stale_files) + len(self.new_files) + len(self.deleted_files),
            "last_build": self.last_build,
            "size_bytes": self.size_bytes,
            "detail": self.detail,
            "watcher": self.watcher,
            "search_tier": self.search_tier,
            "tiers": self.tiers,
            "revision": self.revision,
            "checkout": self.checkout,
        }


def glob_matcher(globs: Sequence[str]) -> Callable[[str], bool] | None:
    """A predicate for workspace-relative paths; ``!pattern`` excludes (ripgrep's ``--glob`` style)."""
    if not globs:
        return None
    includes = [g for g in globs if not g.startswith("!")]
    excludes = [g[1:] for g in globs if g.startswith("!")]
    inc = pathspec.GitIgnoreSpec.from_lines(includes) if includes else None
    exc = pathspec.GitIgnoreSpec.from_lines(excludes) if excludes else None

    def ok(path: str) -> bool:
        if exc is not None and exc.match_file(path):
            return False
        return inc is None or inc.match_file(path)

    return ok


@dataclass
class _Caches:
    """State shared by an :class:`Index` and its pinned copies."""

    chunks: tuple[int, dict[str, list[ChunkSpan]]] | None = None
    manifest: tuple[int, dict[str, tuple[str, int, int]]] | None = None  # (files version, whole manifest)
    lexical: tuple[int, LexicalIndex] | None = None  # (chunks version, BM25 index of its chunks)
    symbols: tuple[int, SymbolTable] | None = None  # (symbols version, the whole table)
    # ((vectors table, version), row id → span columns): a vector search then fetches ids, not strings
    vector_rows: tuple[tuple[str, int], dict[int, tuple[Any, ...]]] | None = None
    lexical_lock: threading.Lock = field(default_factory=threading.Lock)


class Index:
    """One workspace's index at ``settings.index_dir``.

    Reads go through a :class:`~indexer.snapshot.Snapshot`: each call reads the snapshot the writer
    last published, and :meth:`pinned` gives a copy whose every read uses one snapshot (a search
    uses one, so its retrievers never see a half-applied batch, or two different ones).
    """

    def __init__(self, settings: Settings, *, embedder: Embedder | None = None) -> None:
        self.settings = settings
        self._embedder = embedder
        self._tier_embedders: dict[str, Embedder] = {}
        self._store: Store | None = None
        self._exists = False
        self._caches = _Caches()
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
            self._store = Store(self.location)
        return self._store

    def snapshot(self) -> Snapshot:
        """The pinned snapshot, or the one the writer published last."""
        return self._pin if self._pin is not None else current(self.store)

    def pinned(self) -> Index:
        """A copy of this index (same store, embedder and caches) that reads one snapshot throughout."""
        twin = copy.copy(self)
        twin._pin = current(self.store)
        return twin

    def embedder(self) -> Embedder:
        """The full tier's embedder (the configured model)."""
        if self._embedder is None:
            self._embedder = make_embedder(self.settings.model)
        return self._embedder

    def tier_embedder(self, tier: str) -> Embedder:
        """The embedder of ``tier`` (``fast``: the static model distilled from the configured one)."""
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
        if self.settings.index_is_local and not _has_tables(Path(self.location)):
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
        vectors), ``full`` the transformer's vectors too (see :mod:`indexer.embedding`).
        Takes the writer lock (waiting up to ``wait`` seconds, then IndexLockedError). A corrupt
        index is rebuilt from scratch; the embedding cache is kept whenever it is readable.
        """
        tier_config(self.settings.model, tier)  # a bad tier fails before any work
        root = self.settings.root.resolve()
        if self.settings.index_is_local:  # before the lock file: a foreign folder gets nothing of ours
            ownership.claim(Path(self.location), root)
        with writer_lock(self.location, wait=wait):
            self._check_meta_owner(root)
            factories = self._embedder_factories() if vectors else None

            def builder() -> Builder:
                return Builder(self.settings, self.store, embedders=factories, tier=tier, progress=progress)

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
        self._forget_versions()
        self._prepare_lexical()
        return report

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
        self._forget_versions()
        return remaining

    def _forget_versions(self) -> None:
        self._caches.chunks = self._caches.manifest = self._caches.symbols = self._caches.vector_rows = None
        if self._caches.lexical is not None:  # keep its tokens for the next version, never its version
            self._caches.lexical = (-1, self._caches.lexical[1])

    def _prepare_lexical(self) -> None:
        """Build and save the BM25 index of the published chunks unless it is saved already, so the next
        search, maybe in another process, finds it ready."""
        try:
            saved = self._lexical_file(self.snapshot().versions.get("chunks", -1))
            if saved is not None and not saved.exists():
                self.lexical()
        except IndexStoreError as exc:
            log.debug("BM25 index not prepared after the build: %s", exc)

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
    def _symbol_candidates(
        self, names: Sequence[tuple[str, bool]], language: str | None, path_prefix: str | None
    ) -> SymbolTable:
        """Rows that could match any of ``names`` (``(name, strict)``: strict names match only exactly,
        up to case and separators), filtered in LanceDB in one query (no full table in Python)."""
        ors: list[str] = []
        fuzzy: list[str] = []
        for name, strict in names:
            last = re.split(r"\.|::|#|->|/", name.strip())[-1]
            norm = normalise(last)
            if not norm:
                continue
            if strict:
                ors.append(f"name_norm = '{norm}'")
                continue
            ors.append(f"name_norm LIKE '%{norm}%'")
            tokens = [normalise(t) for t in name_tokens(last)]
            if len(tokens) >= 2:
                ors.append("(" + " AND ".join(f"name_norm LIKE '%{t}%'" for t in tokens if t) + ")")
            if len(norm) >= 4:
                fuzzy.append(norm)
        if not ors:
            return SymbolTable([])
        filters = []
        if language:
            filters.append(f"language = {sql_str(language)}")
        if path_prefix:
            filters.append(_path_prefix_sql(path_prefix))
        where = " AND ".join([f"({' OR '.join(ors)})", *filters])
        snap = self.snapshot()
        table = snap.read("symbols", SYMBOL_COLUMNS, where, limit=MAX_SYMBOL_CANDIDATES)
        if table.num_rows == 0 and fuzzy:  # fuzzy fallback: names sharing the first letters
            prefixes = " OR ".join(f"name_norm LIKE '{n[:2]}%'" for n in dict.fromkeys(fuzzy))
            where = " AND ".join([f"({prefixes})", *filters])
            table = snap.read("symbols", SYMBOL_COLUMNS, where, limit=MAX_SYMBOL_CANDIDATES * 4)
        return SymbolTable.from_arrow(table)

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
        glob_ok = glob_matcher(globs)
        table = self._symbol_table()
        if table is None:  # too many to hold: fetch the candidates from the store
            table = self._symbol_candidates(names, language, path_prefix)
        elif path_prefix:
            prefix = path_prefix.rstrip("/")
            glob_ok = _and(glob_ok, lambda p: p == prefix or p.startswith(prefix + "/"))
        out = []
        for name, strict in names:
            found = table.lookup(
                name,
                kinds=kinds,
                language=language,
                path_ok=glob_ok,
                limit=limit,
                fuzzy=not strict,
                strict=strict,
            )
            out.append([m for m in found if not strict or m.match in STRICT_MATCHES])
        return out

    def _symbol_table(self) -> SymbolTable | None:
        """The whole symbol table of the snapshot in memory (kept per published version), or ``None``
        when it has more than :data:`MAX_MEMORY_SYMBOLS` rows."""
        snap = self.snapshot()
        version = snap.versions.get("symbols", -1)
        cached = self._caches.symbols
        if cached is not None and cached[0] == version and version >= 0:
            return cached[1]
        if version < 0 or snap.count("symbols") > MAX_MEMORY_SYMBOLS:
            return None
        table = SymbolTable.from_arrow(snap.read("symbols", SYMBOL_COLUMNS))
        self._caches.symbols = (version, table)
        return table

    def symbols_in_file(self, path: str) -> list[SymbolRow]:
        table = self.snapshot().read("symbols", SYMBOL_COLUMNS, f"path = {sql_str(path)}")
        return SymbolTable.from_arrow(table).in_file(path)

    def chunk_spans(self, paths: Iterable[str]) -> dict[str, list[ChunkSpan]]:
        """Chunk spans of ``paths``, sorted by start line (maps hits to chunk-sized spans)."""
        snap = self.snapshot()
        version = snap.versions.get("chunks", -1)
        cached = self._caches.chunks
        if cached is None or cached[0] != version or version < 0:
            cached = self._caches.chunks = (version, {})
        cache = cached[1]
        if not cache and version >= 0 and snap.count("chunks") <= MAX_MEMORY_CHUNK_SPANS:
            cache = _spans_by_path(snap.read("chunks", CHUNK_SPAN_COLUMNS))  # every file at once
            cache[""] = []  # marks the cache as complete: a path not in it has no chunks
            self._caches.chunks = (version, cache)
        if "" in cache:
            return {p: cache.get(p, []) for p in paths}
        wanted = [p for p in dict.fromkeys(paths) if p not in cache]
        for batch in batched(wanted):
            table = snap.read("chunks", CHUNK_SPAN_COLUMNS, in_filter("path", batch))
            found: dict[str, list[ChunkSpan]] = {p: [] for p in batch}
            if table.num_rows:
                cols = [table.column(c).to_pylist() for c in CHUNK_SPAN_COLUMNS]
                for p, s, e, sym, kind, lang in zip(*cols, strict=True):
                    found[p].append(ChunkSpan(s, e, sym, kind, lang))
            for p, spans in found.items():
                spans.sort(key=lambda c: (c.start_line, c.end_line))
                cache[p] = spans
        if len(cache) > 50_000:
            self._caches.chunks = (version, {})
        return {p: cache.get(p, []) for p in paths}

    def manifest_for(self, paths: Iterable[str]) -> dict[str, tuple[str, int, int]]:
        """Manifest rows (sha256, size, mtime_ns) of just ``paths``."""
        wanted = list(dict.fromkeys(paths))
        whole = self.whole_manifest()
        if whole is not None:
            return {p: whole[p] for p in wanted if p in whole}
        snap = self.snapshot()
        out: dict[str, tuple[str, int, int]] = {}
        for batch in batched(wanted):
            out.update(read_manifest(snap, in_filter("path", batch)))
        return out

    def lexical(self) -> LexicalIndex:
        """The BM25 index of the snapshot's chunks, built on first use and kept per published version."""
        snap = self.snapshot()
        version = snap.versions.get("chunks", -1)
        with self._caches.lexical_lock:  # one build at a time; concurrent searches wait for it
            cached = self._caches.lexical
            if cached is not None and cached[0] == version and version >= 0:
                return cached[1]
            previous = cached[1] if cached is not None else None  # its tokens serve unchanged chunks
            saved = self._lexical_file(version)
            built = None
            if saved is not None and previous is None:  # a fresh process: load what another one saved
                built = LexicalIndex.load(
                    saved, snap.read("chunks", [c for c in LEXICAL_COLUMNS if c != "text"])
                )
            if built is None:
                if previous is None and saved is not None:  # another version's saved tokens will do
                    previous = _latest_saved_tokens(saved)
                built = LexicalIndex(snap.read("chunks", LEXICAL_COLUMNS), previous)
                if saved is not None:
                    _save_quietly(built, saved)
            if version >= 0:
                self._caches.lexical = (version, built)
            return built

    def _lexical_file(self, version: int) -> Path | None:
        """Where the BM25 index of a chunks version is kept on disk (local indexes only)."""
        if version < 0 or not self.settings.index_is_local:
            return None
        return Path(self.location) / "lexical" / f"chunks-v{version}.npz"

    def whole_manifest(self) -> Mapping[str, tuple[str, int, int]] | None:
        """Every manifest row of the published snapshot, read once per version and shared (do not
        modify it); ``None`` before anything was published."""
        snap = self.snapshot()
        version = snap.versions.get("files", -1)
        if version < 0:
            return None
        cached = self._caches.manifest
        if cached is None or cached[0] != version:
            cached = self._caches.manifest = (version, read_manifest(snap))
        return cached[1]

    def manifest(self) -> dict[str, tuple[str, int, int]]:
        return read_manifest(self.snapshot()) if self.exists() else {}

    def vector_table_name(self) -> str:
        return f"vectors_{model_slug(self.embedder().model_id)}"

    def search_tier(self, snap: Snapshot | None = None) -> tuple[str, dict[str, Any]] | None:
        """The tier a search of ``snap`` ranks with and its ``meta`` entry (id, dimension, table):
        ``full`` once it covers every chunk, else ``fast``; None when nothing is embedded."""
        snap = snap or self.snapshot()
        entries = _snapshot_tiers(snap.meta)
        tier = search_tier_of(entries, snap.count, snap.count("chunks"))
        return None if tier is None else (tier, entries[tier])

    def coverage(self) -> tuple[int, int]:
        """(chunks with a vector of the tier searches rank with, all chunks)."""
        snap = self.snapshot()
        found = self.search_tier(snap)
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
        snap = self.snapshot()
        found = self.search_tier(snap)
        if found is None:
            return []  # nothing embedded yet: do not load the model for nothing
        tier, meta_model = found  # one tier's vectors and model only: never two models in one list
        embedder = self.tier_embedder(tier)
        name = f"vectors_{model_slug(embedder.model_id)}"
        if name != meta_model.get("table"):
            raise IndexStoreError(
                f"the vectors at {self.location} were built by {meta_model.get('id')}, not "
                f"{embedder.model_id}; run `plait index {self.settings.root}` to embed with the configured model."
            )
        vec = embedder.embed_query(query)
        clauses = []
        if path_prefix:
            clauses.append(_path_prefix_sql(path_prefix))
        if language:
            clauses.append(f"language = {sql_str(language)}")
        if paths is not None:
            if not paths:
                return []
            clauses.append(in_filter("path", list(paths)[:5000]))
        glob_ok = glob_matcher(globs)
        fetch = limit * 4 if glob_ok else limit
        known = self._vector_rows(snap, name)
        try:
            q = snap.table(name).search(vec.tolist()).metric("cosine").limit(fetch)
            if snap.has_ann(name):
                q = q.ef(ann_ef(fetch)).refine_factor(ANN_REFINE)
            if clauses:
                q = q.where(" AND ".join(clauses), prefilter=True)
            if known is not None:
                found = q.select(["_distance"]).with_row_id(True).to_arrow()
                ids, distances = found.column("_rowid").to_pylist(), found.column("_distance").to_pylist()
                rows = [(*known[i], d) for i, d in zip(ids, distances, strict=True) if i in known]
                if len(rows) < len(ids):  # not the rows it was read from: fetch the columns instead
                    known = None
            if known is None:
                columns = [*CHUNK_SPAN_COLUMNS, "_distance"]
                table = q.select(columns).with_row_id(False).to_arrow()
                rows = list(zip(*(table.column(c).to_pylist() for c in columns), strict=True))
        except Exception as exc:  # translate LanceDB errors at the boundary
            raise IndexCorruptError(self.location, f"vector search: {exc}") from exc
        hits = [VectorHit(*r) for r in rows if glob_ok is None or glob_ok(r[0])]
        return hits[:limit]

    def _vector_rows(self, snap: Snapshot, name: str) -> dict[int, tuple[Any, ...]] | None:
        """Row id → span columns of every row of the vectors table ``name`` in ``snap``, read once per
        version; ``None`` when its version is unknown or it holds too many rows to keep."""
        version = snap.versions.get(name)
        cached = self._caches.vector_rows
        if version is None:
            return None
        if cached is not None and cached[0] == (name, version):
            return cached[1]
        if snap.count(name) > MAX_MEMORY_CHUNK_SPANS:
            return None
        try:
            table = snap.table(name).search().select(CHUNK_SPAN_COLUMNS).with_row_id(True).to_arrow()
        except Exception as exc:
            raise IndexCorruptError(self.location, f"reading {name}: {exc}") from exc
        cols = [table.column(c).to_pylist() for c in CHUNK_SPAN_COLUMNS]
        rows = dict(zip(table.column("_rowid").to_pylist(), zip(*cols, strict=True), strict=True))
        self._caches.vector_rows = ((name, version), rows)
        return rows

    # -- status ---------------------------------------------------------------------------------
    def status(self, *, check_files: bool = True) -> IndexStatus:
        """State, counts, coverage and (with ``check_files``) which files changed since the last build."""
        root = str(self.settings.root)
        if not self.exists():
            if self._interrupted_first_build():
                return IndexStatus(IndexState.INTERRUPTED, root, self.location, detail=INTERRUPTED_DETAIL)
            return IndexStatus(IndexState.MISSING, root, self.location, detail=f"run `plait index {root}`")
        try:
            meta = self.store.get_meta()
            st = IndexStatus(IndexState.FRESH, root, self.location)
            st.files = self.store.count("files")
            st.symbols = self.store.count("symbols")
            st.chunks = self.store.count("chunks")
            entries = _snapshot_tiers(meta)
            counts = {t: self.store.count(str(e["table"])) if self.store.has(str(e["table"])) else 0
                      for t, e in entries.items()}  # fmt: skip
            st.tiers = {
                t: {
                    "model": e.get("id"),
                    "vectors": counts[t],
                    "complete": bool(st.chunks) and counts[t] >= st.chunks,
                }
                for t, e in entries.items()
            }
            by_table = {str(e["table"]): counts[t] for t, e in entries.items()}
            st.search_tier = search_tier_of(entries, by_table.__getitem__, st.chunks)
            if st.search_tier is not None:
                st.model = str(entries[st.search_tier].get("id"))
                st.vectors = counts[st.search_tier]
            st.last_build = meta.get("last_build")
            st.revision = meta.get(REVISION_KEY)
            if self._interrupted(meta):
                st.state = IndexState.INTERRUPTED
                st.detail = INTERRUPTED_DETAIL
                return st
            if meta.get("fingerprint") != fingerprint(self.settings):
                st.state = IndexState.SCHEMA_MISMATCH
                st.detail = (
                    "built by another plait version or chunk settings; the next `plait index` rebuilds it"
                )
                return st
            if check_files:
                self._compare_files(st)
                st.checkout = tree_revision(self.settings.root)
        except IndexStoreError as exc:
            return IndexStatus(IndexState.CORRUPT, root, self.location, detail=str(exc))
        if self.settings.index_is_local:
            st.size_bytes = _dir_size(Path(self.location))
        return st

    def _interrupted(self, meta: Mapping[str, Any]) -> bool:
        """A build started and did not finish, and no writer holds the lock now (it was killed)."""
        build = meta.get("build")
        running = isinstance(build, dict) and build.get("state") == "running"
        return (running or "fingerprint" not in meta) and not writer_active(self.location)

    def _interrupted_first_build(self) -> bool:
        """A first build was killed before it made the files table: plait's tables are there, and no
        writer is at work."""
        if not self.settings.index_is_local:
            return False
        location = Path(self.location)
        try:
            started = ownership.read_marker(location) is not None and any(
                e.name.endswith(".lance") for e in os.scandir(location)
            )
        except OSError:
            return False
        return started and not writer_active(self.location)

    def _compare_files(self, st: IndexStatus) -> None:
        manifest = read_manifest(self.store)
        seen = set()
        for f in Walker(self.settings).walk(WalkStats()):
            seen.add(f.path)
            old = manifest.get(f.path)
            if old is None:
                st.new_files.append(f.path)
            elif old[1] != f.size or old[2] != f.mtime_ns:
                try:
                    if sha256_hex(read_beneath(self.settings.root, f.path, 1 << 30)) != old[0]:
                        st.stale_files.append(f.path)
                except OSError:
                    st.stale_files.append(f.path)
        st.deleted_files = sorted(set(manifest) - seen)
        if st.stale_files or st.new_files or st.deleted_files:
            st.state = IndexState.STALE

    def is_stale(self, path: str, manifest: dict[str, tuple[str, int, int]]) -> bool:
        """Whether the live file differs from what was indexed (cheap: size and mtime first)."""
        old = manifest.get(path)
        if old is None:
            return True
        try:
            st = os.stat(self.settings.root / path)
        except OSError:
            return True
        if st.st_size == old[1] and st.st_mtime_ns == old[2]:
            return False
        try:
            return (
                sha256_hex(read_beneath(self.settings.root, path, 1 << 30)) != old[0]
            )  # no symlink, no FIFO
        except OSError:
            return True


def _snapshot_tiers(meta: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Each tier's {id, dimension, table} from ``meta``; an index built before tiers has one model,
    read as the full tier."""
    entries = tier_entries(meta.get("tiers"))
    if not entries:
        entries = tier_entries({"full": meta.get("model")})
    return entries


def _latest_saved_tokens(path: Path) -> LexicalIndex | None:
    """The tokens of the newest BM25 index saved beside ``path`` (another chunks version), if any."""

    def version(p: Path) -> int:
        digits = p.stem.removeprefix("chunks-v")
        return int(digits) if digits.isdigit() else -1

    for other in sorted(path.parent.glob("chunks-v*.npz"), key=version, reverse=True):
        if other != path and (tokens := LexicalIndex.load_tokens(other)) is not None:
            return tokens
    return None


def _save_quietly(index: LexicalIndex, path: Path) -> None:
    """Save the BM25 index for the next process and drop those of other versions; a read-only or full
    disk only costs that process a rebuild."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        index.save(path)
        for other in path.parent.glob("chunks-v*.npz"):
            if other != path:
                other.unlink(missing_ok=True)
    except OSError as exc:
        log.debug("could not save the BM25 index at %s: %s", path, exc)


def _and(a: Callable[[str], bool] | None, b: Callable[[str], bool]) -> Callable[[str], bool]:
    return b if a is None else (lambda p: a(p) and b(p))


def _spans_by_path(table: pa.Table) -> dict[str, list[ChunkSpan]]:
    found: dict[str, list[ChunkSpan]] = {}
    cols = [table.column(c).to_pylist() for c in CHUNK_SPAN_COLUMNS]
    for p, s, e, sym, kind, lang in zip(*cols, strict=True):
        found.setdefault(p, []).append(ChunkSpan(s, e, sym, kind, lang))
    for spans in found.values():
        spans.sort(key=lambda c: (c.start_line, c.end_line))
    return found


def _dir_size(path: Path) -> int:
    total = 0
    for dirpath, _dirs, files in os.walk(path):
        for name in files:
            try:
                total += os.stat(os.path.join(dirpath, name)).st_size
            except OSError:
                pass
    return total


def _has_tables(location: Path) -> bool:
    """Whether a local index directory holds any LanceDB table (``NAME.lance``) yet."""
    try:
        return any(entry.name.endswith(".lance") for entry in os.scandir(location))
    except OSError:
        return False
