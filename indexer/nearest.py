"""Vector search: the chunks nearest to a query in the vectors of the tier searches rank with.

One search reads one tier's table only (never two models' vectors in one list). The IVF index,
when the build made one, is searched in :data:`ANN_NPROBES` partitions and the candidates re-ranked
with the full vectors (:data:`ANN_REFINE`; :data:`ANN_EF` is the beam of an older index's HNSW
graphs), which keeps recall near an exact scan. Up to
:data:`MAX_MEMORY_VECTOR_ROWS` rows, the span columns of every row are read once per table version
and a search then fetches only row ids and distances. A table without an ANN index (an exact scan
anyway) is kept whole in memory per version and searched exactly there (:mod:`indexer.kept_vectors`):
a LanceDB flat search of 1,759 vectors took 12 ms a query where numpy takes under 3, with the same
results (`cpython-lib`, 80 queries, top 60 identical); on object storage a LanceDB query costs ~10 ms
more again, even with its data cached.
LanceDB errors are translated here into :class:`~indexer.errors.IndexCorruptError`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from indexer.embedding import search_tier_of, snapshot_tiers
from indexer.errors import IndexCorruptError, IndexStoreError
from indexer.filters import glob_matcher, path_prefix_sql
from indexer.kept_vectors import MAX_KEPT_FLOATS, KeptVectors
from indexer.memo import VersionMemo
from indexer.snapshot import Snapshot
from indexer.spans import CHUNK_SPAN_COLUMNS
from indexer.store import in_filter, model_slug, sql_str
from models import Embedder

# ANN search settings: a wider HNSW beam and re-ranking with the full vectors keep recall near exact.
ANN_EF = 100
ANN_REFINE = 4
#: IVF partitions an ANN search reads (of up to 256: a table of 1M rows has 256). Over the Linux
#: kernel's 1,056,739 fast vectors (IVF_SQ), recall@10 against an exact scan on 24 queries was 0.929
#: with LanceDB's default 20, 0.958 with 40, 0.971 with 64 (median 35 ms); the refine factor (4 or 10)
#: changed nothing (BENCHMARKS §9).
ANN_NPROBES = 64
MAX_MEMORY_VECTOR_ROWS = 300_000  # up to this many vectors, their span columns are kept by row id
MAX_PATHS_FILTER = 5000  # a ``paths`` filter longer than this is cut (the SQL would be too long)


def ann_ef(k: int) -> int:
    """The HNSW beam for ``k`` results: LanceDB refuses a beam narrower than the candidates it must
    return (``k`` × refine factor)."""
    return max(ANN_EF, k * ANN_REFINE)


@dataclass(frozen=True, slots=True)
class VectorHit:
    path: str
    start_line: int
    end_line: int
    symbol: str | None
    kind: str | None
    language: str | None
    distance: float


def search_tier(snap: Snapshot) -> tuple[str, dict[str, Any]] | None:
    """The tier a search of ``snap`` ranks with and its ``meta`` entry (id, dimension, table):
    ``full`` once it covers every chunk, else ``fast``; None when nothing is embedded."""
    entries = snapshot_tiers(snap.meta)
    tier = search_tier_of(entries, snap.count, snap.count("chunks"))
    return None if tier is None else (tier, entries[tier])


class VectorSearch:
    """Nearest-chunk search over one index location (named in errors), with its row-id memo.

    Thread-safe; shared by an :class:`~indexer.index.Index` and its pinned copies.
    """

    def __init__(self, location: str, root: Path) -> None:
        self.location = location
        self.root = root
        self.rows: VersionMemo[tuple[str, int], dict[int, tuple[Any, ...]] | None] = VersionMemo()
        # A vectors table without an ANN index, kept whole per version (None: always ask LanceDB).
        self.kept: VersionMemo[tuple[str, int], KeptVectors | None] | None = VersionMemo()

    def forget(self) -> None:
        """A writer published a new snapshot: nothing kept matches a version any more."""
        self.rows.forget()
        if self.kept is not None:
            self.kept.forget()

    def nearest(
        self,
        snap: Snapshot,
        query: str,
        embedder_for: Callable[[str], Embedder],
        *,
        limit: int,
        path_prefix: str | None,
        paths: Sequence[str] | None,
        globs: Sequence[str],
        language: str | None,
    ) -> list[VectorHit]:
        """Chunks of ``snap`` nearest to ``query`` (cosine distance), filtered by path prefix, paths,
        globs and language. ``embedder_for(tier)`` gives the tier's embedder (loaded only when some
        vector exists). Raises IndexStoreError when the vectors were built by another model,
        IndexCorruptError when LanceDB fails."""
        found = search_tier(snap)
        if found is None:
            return []  # nothing embedded yet: do not load the model for nothing
        tier, meta_model = found  # one tier's vectors and model only: never two models in one list
        embedder = embedder_for(tier)
        name = f"vectors_{model_slug(embedder.model_id)}"
        if name != meta_model.get("table"):
            raise IndexStoreError(
                f"the vectors at {self.location} were built by {meta_model.get('id')}, not "
                f"{embedder.model_id}; run `plait index {self.root}` to embed with the configured model."
            )
        vec = embedder.embed_query(query)
        clauses = []
        if path_prefix:
            clauses.append(path_prefix_sql(path_prefix))
        if language:
            clauses.append(f"language = {sql_str(language)}")
        if paths is not None:
            if not paths:
                return []
            clauses.append(in_filter("path", list(paths)[:MAX_PATHS_FILTER]))
        glob_ok = glob_matcher(globs)
        fetch = limit * 4 if glob_ok else limit
        kept = self._kept(snap, name, len(vec))
        if kept is not None:
            if paths is not None:
                paths = list(paths)[:MAX_PATHS_FILTER]
            near = kept.nearest(vec, fetch, path_prefix=path_prefix, language=language, paths=paths)
            return [VectorHit(*r) for r in near if glob_ok is None or glob_ok(r[0])][:limit]
        known = self._rows(snap, name)
        try:
            q = snap.table(name).search(vec.tolist()).metric("cosine").limit(fetch)
            if snap.has_ann(name):
                q = q.ef(ann_ef(fetch)).refine_factor(ANN_REFINE).nprobes(ANN_NPROBES)
            if clauses:
                q = q.where(" AND ".join(clauses), prefilter=True)
            if known is not None:
                got = q.select(["_distance"]).with_row_id(True).to_arrow()
                ids, distances = got.column("_rowid").to_pylist(), got.column("_distance").to_pylist()
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

    def _kept(self, snap: Snapshot, name: str, dimension: int) -> KeptVectors | None:
        """The vectors table ``name`` of ``snap`` in memory, read once per version, when this index is
        when the table is exactly scanned anyway (no ANN index) and small enough
        (:data:`~indexer.kept_vectors.MAX_KEPT_FLOATS`); else ``None``: LanceDB searches it."""
        version = snap.versions.get(name)
        if self.kept is None or version is None or snap.has_ann(name):
            return None

        def read(_previous: object) -> KeptVectors | None:
            if snap.count(name) * dimension > MAX_KEPT_FLOATS:
                return None
            return KeptVectors(snap.read(name, [*CHUNK_SPAN_COLUMNS, "vector"]))

        return self.kept.get((name, version), read)

    def _rows(self, snap: Snapshot, name: str) -> dict[int, tuple[Any, ...]] | None:
        """Row id → span columns of every row of the vectors table ``name`` in ``snap``, read once per
        version; ``None`` when its version is unknown or it holds too many rows to keep."""
        version = snap.versions.get(name)
        if version is None:
            return None

        def read(_previous: object) -> dict[int, tuple[Any, ...]] | None:
            if snap.count(name) > MAX_MEMORY_VECTOR_ROWS:
                return None
            try:
                table = snap.table(name).search().select(CHUNK_SPAN_COLUMNS).with_row_id(True).to_arrow()
            except Exception as exc:
                raise IndexCorruptError(self.location, f"reading {name}: {exc}") from exc
            cols = [table.column(c).to_pylist() for c in CHUNK_SPAN_COLUMNS]
            return dict(zip(table.column("_rowid").to_pylist(), zip(*cols, strict=True), strict=True))

        return self.rows.get((name, version), read)
