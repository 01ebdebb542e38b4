"""Exact vector search in memory, for an index whose vectors table has no ANN index.

Measured against moto's S3 server on 127.0.0.1 (``benchmarks/object_storage.py``): once a table's
data is cached, a LanceDB query of a dataset on object storage makes no request, yet takes about
10 ms more than the same query on local disk (14 ms against 4.7 ms for a flat search of 397 vectors,
9 ms against 3.5 ms for a 10-row scan). Below the ANN threshold a search is an exact scan anyway, so
:class:`~indexer.nearest.VectorSearch` keeps the published version's vectors (and their span columns)
here, read once per table version, and ranks them with numpy: the same cosine distance LanceDB's flat
search computes (``1 - a·b / (|a| |b|)``, float32), the same filters (path prefix, language, paths).
Equal distances keep the table's row order.

At most :data:`MAX_KEPT_FLOATS` vector components are kept (64 MiB of float32); a larger table is
searched in LanceDB as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa

from indexer.blas import one_blas_thread
from indexer.spans import CHUNK_SPAN_COLUMNS
from indexer.tables import vector_matrix

MAX_KEPT_FLOATS = 16 << 20  # rows × dimension: 64 MiB of float32


class KeptVectors:
    """One table version's vectors (unit length) and span columns, searched exactly."""

    def __init__(self, table: pa.Table) -> None:
        matrix = vector_matrix(table.column("vector")) if table.num_rows else np.zeros((0, 0), np.float32)
        norms = np.linalg.norm(matrix, axis=1) if matrix.size else np.zeros(0, np.float32)
        self._unit = matrix / np.where(norms > 0, norms, 1.0)[:, None]
        self._zero = norms == 0  # no direction, no cosine distance: never returned
        cols = [table.column(c).to_pylist() if table.num_rows else [] for c in CHUNK_SPAN_COLUMNS]
        self.spans: list[tuple[Any, ...]] = list(zip(*cols, strict=True))
        self._paths = cols[0]
        self._languages = cols[CHUNK_SPAN_COLUMNS.index("language")]

    def __len__(self) -> int:
        return len(self.spans)

    def nearest(
        self,
        vector: Sequence[float] | np.ndarray,
        limit: int,
        *,
        path_prefix: str | None = None,
        language: str | None = None,
        paths: Sequence[str] | None = None,
    ) -> list[tuple[Any, ...]]:
        """The ``limit`` rows nearest to ``vector``: each row's span columns and its cosine distance,
        nearest first, among the rows whose path is ``path_prefix`` or under it, whose language is
        ``language`` and whose path is in ``paths`` (each filter when given)."""
        if not self.spans or limit <= 0:
            return []
        query = np.asarray(vector, dtype=np.float32)
        norm = float(np.linalg.norm(query))
        if norm == 0 or query.shape[0] != self._unit.shape[1]:
            return []
        with one_blas_thread():  # a matrix-vector product: threads only take cores from the search
            distances = 1.0 - self._unit @ (query / norm)
        allowed = ~self._zero
        if path_prefix or language or paths is not None:
            allowed &= self._mask(path_prefix, language, paths)
        candidates = np.flatnonzero(allowed)
        if candidates.size > limit:
            near = np.argpartition(distances[candidates], limit - 1)[:limit]
            candidates = candidates[near]
        order = candidates[np.lexsort((candidates, distances[candidates]))]
        return [(*self.spans[i], float(distances[i])) for i in order]

    def _mask(self, path_prefix: str | None, language: str | None, paths: Sequence[str] | None) -> np.ndarray:
        prefix = path_prefix.rstrip("/") if path_prefix else None
        under = prefix + "/" if prefix else None
        wanted = set(paths) if paths is not None else None
        return np.fromiter(
            (
                (prefix is None or p == prefix or p.startswith(under))
                and (not language or lang == language)
                and (wanted is None or p in wanted)
                for p, lang in zip(self._paths, self._languages, strict=True)
            ),
            dtype=bool,
            count=len(self._paths),
        )
