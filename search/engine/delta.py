"""A reader's local delta: the files of its checkout that differ from the index, parsed here.

A shared index (CI's snapshot on object storage, say) answers for every file the reader holds as the
writer indexed it. The files that differ (by content: :func:`search.engine.retrievers.listing.differing`)
are the reader's own. ripgrep already reads their text live (:mod:`search.engine.retrievers.live`); the
delta adds what only parsing gives: their **symbols** and their **chunk spans**, from the same
tree-sitter queries and chunker the writer runs (:func:`indexer.build.parse_file`). A search then sees
the index through :class:`Overlaid`, which answers symbol lookups and chunk spans of a changed file
from the delta and of every other file from the snapshot, so a definition that exists only in the
reader's edit is found by symbol search, and one the edit removed is not. The vector leg ranks the
changed files' chunks by their own embeddings, where that is cheap: at most :data:`EMBED_PER_SEARCH`
new chunks are embedded per search (with the tier the snapshot is searched with), and kept by content
hash (:mod:`search.engine.chunk_vectors`), so an edit costs its chunks once.

Parsing is kept per file and redone only when the file's size or mtime changes, so an edited file costs
one parse, not one per query. At most :data:`MAX_FILES` files (and :data:`MAX_BYTES` in all) are parsed:
a checkout further away than that from the snapshot wants its own index, not a delta.
"""

from __future__ import annotations

import logging
import os
import stat
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from indexer import (
    BINARY_SNIFF_BYTES,
    Chunk,
    ChunkSpan,
    Index,
    Parsed,
    Settings,
    SymbolMatch,
    SymbolRow,
    SymbolTable,
    VectorHit,
    detect_language,
    lookup_names,
    parse_file,
    path_filter,
    read_beneath,
)
from models import Embedder
from search.engine.chunk_vectors import ChunkVectors

log = logging.getLogger(__name__)

MAX_FILES = 256
MAX_BYTES = 32 * 1024 * 1024
EMBED_PER_SEARCH = 64  # chunks of changed files embedded by one search at most


@dataclass(frozen=True, slots=True)
class DeltaTables:
    """Symbols and chunk spans of the changed files that were parsed (``paths``)."""

    paths: frozenset[str]
    symbols: SymbolTable
    spans: dict[str, list[ChunkSpan]]
    chunks: tuple[Chunk, ...]

    def __len__(self) -> int:
        return len(self.paths)


class LocalDelta:
    """The parsed changed files of one root, kept per (size, mtime). Thread-safe."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._parsed: dict[str, tuple[int, int, Parsed | None]] = {}
        self._lock = threading.Lock()
        self._last: tuple[tuple[tuple[str, int, int], ...], DeltaTables] | None = None
        self._vectors = ChunkVectors()

    def vectors(self, embedder: Embedder, chunks: Sequence[Chunk]) -> list[tuple[Chunk, np.ndarray]]:
        """Unit vectors of ``chunks`` by ``embedder``: those kept, and up to :data:`EMBED_PER_SEARCH`
        more embedded now (the rest on later searches)."""
        found = self._vectors.of(
            embedder, [(c.content_hash, c.text) for c in chunks], budget=EMBED_PER_SEARCH
        )
        return [(c, found[c.content_hash]) for c in chunks if c.content_hash in found]

    def tables(self, changed: Sequence[str]) -> DeltaTables | None:
        """The delta of the ``changed`` files (``None`` when there are none). Files past the caps,
        unreadable or vanished are left to the snapshot (and to ripgrep)."""
        if not changed:
            return None
        root = self.settings.root
        stamps: list[tuple[str, int, int]] = []
        total = 0
        for path in sorted(changed)[:MAX_FILES]:
            try:
                st = os.lstat(root / path)  # a symlink or special file is not parsed (nor read below)
            except OSError:
                continue
            if not stat.S_ISREG(st.st_mode):
                continue
            if st.st_size > self.settings.max_file_bytes or total + st.st_size > MAX_BYTES:
                continue
            total += st.st_size
            stamps.append((path, st.st_size, st.st_mtime_ns))
        if len(changed) > MAX_FILES:
            log.info("%s: %d files differ from the index; the delta parses %d", root, len(changed), MAX_FILES)
        key = tuple(stamps)
        with self._lock:
            if self._last is not None and self._last[0] == key:
                return self._last[1]
            parsed = [p for p in (self._parse(*s) for s in stamps) if p is not None]
            kept = {s[0] for s in stamps}
            for gone in set(self._parsed) - kept:
                del self._parsed[gone]
            tables = _tables(parsed)
            self._last = (key, tables)
            return tables

    def _parse(self, path: str, size: int, mtime_ns: int) -> Parsed | None:
        known = self._parsed.get(path)
        if known is not None and known[:2] == (size, mtime_ns):
            return known[2]
        try:
            data = read_beneath(self.settings.root, path, self.settings.max_file_bytes)  # no symlink, no FIFO
        except OSError:
            return None
        found = parse_file(
            path, data, detect_language(path, data[:BINARY_SNIFF_BYTES]), self.settings, mtime_ns
        )
        self._parsed[path] = (size, mtime_ns, found)
        return found


def _tables(parsed: Iterable[Parsed]) -> DeltaTables:
    rows: list[SymbolRow] = []
    spans: dict[str, list[ChunkSpan]] = {}
    paths = set()
    chunks: list[Chunk] = []
    for p in parsed:
        paths.add(p.record.path)
        chunks += p.chunks
        rows += p.symbols
        spans[p.record.path] = sorted(
            (ChunkSpan(c.start_line, c.end_line, c.symbol, c.kind, c.language) for c in p.chunks),
            key=lambda c: (c.start_line, c.end_line),
        )
    return DeltaTables(frozenset(paths), SymbolTable(rows), spans, tuple(chunks))


class Overlaid(Index):
    """A pinned index seen through a reader's delta: symbol lookups, chunk spans and nearest chunks of
    the delta's files come from the delta, those of every other file from the snapshot. BM25 and the
    counts are the snapshot's; the text of a changed file is read live by ripgrep."""

    def __init__(self, base: Index, delta: DeltaTables, local: LocalDelta) -> None:
        self.__dict__.update(base.__dict__)  # the same store, caches and pinned snapshot
        self.delta = delta
        self.local = local

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
        extra = min(len(self.delta.chunks), 50)  # room for the snapshot's copies of changed files, dropped
        shared = super().nearest(
            query, limit=limit + extra, path_prefix=path_prefix, paths=paths, globs=globs, language=language
        )
        kept = [h for h in shared if h.path not in self.delta.paths]
        tier = self.search_tier()
        if tier is None or not self.delta.chunks:
            return kept[:limit]
        path_ok = path_filter(globs, path_prefix)
        wanted = set(paths) if paths is not None else None
        chunks = [
            c
            for c in self.delta.chunks
            if (wanted is None or c.path in wanted)
            and (language is None or c.language == language)
            and (path_ok is None or path_ok(c.path))
        ]
        embedder = self.tier_embedder(tier[0])
        pairs = self.local.vectors(embedder, chunks)
        if not pairs:
            return kept[:limit]
        q = np.asarray(embedder.embed_query(query), dtype=np.float32)
        q = q / (float(np.linalg.norm(q)) or 1.0)
        sims = np.stack([v for _, v in pairs]) @ q
        local = [
            VectorHit(c.path, c.start_line, c.end_line, c.symbol, c.kind, c.language, 1.0 - float(sim))
            for (c, _), sim in zip(pairs, sims, strict=True)
        ]
        return sorted(kept + local, key=lambda h: h.distance)[:limit]

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
        kinds = list(kinds) if kinds is not None else None
        shared = super().lookup_many(
            names, kinds=kinds, language=language, globs=globs, path_prefix=path_prefix, limit=limit
        )
        path_ok = path_filter(globs, path_prefix)
        local_found = lookup_names(
            self.delta.symbols, names, kinds=kinds, language=language, path_ok=path_ok, limit=limit
        )
        out = []
        for found, local in zip(shared, local_found, strict=True):
            kept = [m for m in found if m.symbol.path not in self.delta.paths]
            out.append(sorted(kept + local, key=lambda m: -m.score)[:limit])
        return out

    def functions_within(self) -> Callable[[str, int, int], list[str]] | None:
        shared = super().functions_within()
        local, changed = self.delta.symbols.functions_within, self.delta.paths

        def within(path: str, start_line: int, end_line: int) -> list[str]:
            if path in changed:
                return local(path, start_line, end_line)
            return shared(path, start_line, end_line) if shared is not None else []

        return within

    def symbols_in_file(self, path: str) -> list[SymbolRow]:
        if path in self.delta.paths:
            return self.delta.symbols.in_file(path)
        return super().symbols_in_file(path)

    def chunk_spans(self, paths: Iterable[str]) -> dict[str, list[ChunkSpan]]:
        wanted = list(paths)
        out = super().chunk_spans([p for p in wanted if p not in self.delta.paths])
        out.update({p: self.delta.spans.get(p, []) for p in wanted if p in self.delta.paths})
        return out
