"""Chunk spans by path: where each indexed file's chunks start and end (search maps hits onto them).

Up to :data:`MAX_MEMORY_CHUNK_SPANS` chunks, every span of a published chunks version is read at
once and kept; above it, the spans of the asked paths are read and kept as they are asked for (at
most :data:`MAX_KEPT_PATHS` paths, then started afresh).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import pyarrow as pa

from indexer.memo import VersionMemo
from indexer.snapshot import Snapshot
from indexer.store import batched, in_filter

CHUNK_SPAN_COLUMNS = ["path", "start_line", "end_line", "symbol", "kind", "language"]
MAX_MEMORY_CHUNK_SPANS = 300_000  # up to this many chunks, all spans are read at once per version
MAX_KEPT_PATHS = 50_000  # paths whose spans are kept when they are read path by path
_COMPLETE = ""  # a key no path has: marks a version's spans as complete (a path not in it has none)


@dataclass(frozen=True, slots=True)
class ChunkSpan:
    start_line: int
    end_line: int
    symbol: str | None
    kind: str | None
    language: str | None


class ChunkSpans:
    """Chunk spans of a snapshot's files, kept per chunks version. Thread-safe."""

    def __init__(self) -> None:
        self._memo: VersionMemo[int, dict[str, list[ChunkSpan]]] = VersionMemo()

    def forget(self) -> None:
        self._memo.forget()

    def of(self, snap: Snapshot, paths: Iterable[str]) -> dict[str, list[ChunkSpan]]:
        """Chunk spans of ``paths`` in ``snap``, sorted by start line (``[]`` for a path without any)."""
        paths = list(paths)
        version = snap.versions.get("chunks", -1)
        if version < 0:  # no published version to key them by: read, keep nothing
            cache: dict[str, list[ChunkSpan]] = {}
        else:
            cache = self._memo.get(version, lambda _previous: self._read_all(snap))
        if _COMPLETE in cache:
            return {p: cache.get(p, []) for p in paths}
        wanted = [p for p in dict.fromkeys(paths) if p not in cache]
        for batch in batched(wanted):
            found: dict[str, list[ChunkSpan]] = {p: [] for p in batch}
            found.update(_spans_by_path(snap.read("chunks", CHUNK_SPAN_COLUMNS, in_filter("path", batch))))
            cache.update(found)
        out = {p: cache.get(p, []) for p in paths}
        if version >= 0 and len(cache) > MAX_KEPT_PATHS:
            self._memo.put(version, {})
        return out

    @staticmethod
    def _read_all(snap: Snapshot) -> dict[str, list[ChunkSpan]]:
        """Every span of the version when it is small enough to keep, else an empty dict to fill."""
        if snap.count("chunks") > MAX_MEMORY_CHUNK_SPANS:
            return {}
        spans = _spans_by_path(snap.read("chunks", CHUNK_SPAN_COLUMNS))  # every file at once
        spans[_COMPLETE] = []
        return spans


def _spans_by_path(table: pa.Table) -> dict[str, list[ChunkSpan]]:
    found: dict[str, list[ChunkSpan]] = {}
    if table.num_rows == 0:
        return found
    cols = [table.column(c).to_pylist() for c in CHUNK_SPAN_COLUMNS]
    for p, s, e, sym, kind, lang in zip(*cols, strict=True):
        found.setdefault(p, []).append(ChunkSpan(s, e, sym, kind, lang))
    for spans in found.values():
        spans.sort(key=lambda c: (c.start_line, c.end_line))
    return found
