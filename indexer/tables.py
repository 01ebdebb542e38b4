"""Arrow tables to and from the index's rows: files, symbols, chunks, vectors, and the manifest.

Each table builder here takes the typed values of :mod:`indexer.types` and returns a table with the
schema of :mod:`indexer.store`; each reader turns columns back into Python values.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa

from indexer.names import normalise
from indexer.store import CHUNKS_SCHEMA, FILES_SCHEMA, SYMBOLS_SCHEMA, TableReader
from indexer.types import STORED_SYMBOL_FIELDS, Chunk, FileRecord, Symbol

Manifest = dict[str, tuple[str, int, int]]  # path → (sha256, size, mtime_ns)


def files_table(records: Sequence[FileRecord]) -> pa.Table:
    return pa.table(
        {f.name: [getattr(r, f.name) for r in records] for f in FILES_SCHEMA}, schema=FILES_SCHEMA
    )


def symbols_table(symbols: Sequence[Symbol]) -> pa.Table:
    columns: dict[str, list[object]] = {
        name: [getattr(s, name) for s in symbols] for name in STORED_SYMBOL_FIELDS
    }
    columns["name_norm"] = [normalise(s.name) for s in symbols]
    return pa.table(columns, schema=SYMBOLS_SCHEMA)


def chunks_table(chunks: Sequence[Chunk]) -> pa.Table:
    return pa.table(
        {f.name: [getattr(c, f.name) for c in chunks] for f in CHUNKS_SCHEMA}, schema=CHUNKS_SCHEMA
    )


def read_manifest(store: TableReader, where: str | None = None) -> Manifest:
    """path → (sha256, size, mtime_ns) of the manifest rows matching ``where`` (all rows by default)."""
    table = store.read("files", ["path", "sha256", "size", "mtime_ns"], where)
    if table.num_rows == 0:
        return {}
    cols = [table.column(n).to_pylist() for n in ("path", "sha256", "size", "mtime_ns")]
    return {p: (h, s, m) for p, h, s, m in zip(*cols, strict=True)}


def column(table: pa.Table, name: str) -> list[str]:
    """The values of one column (``[]`` for an empty table, which may lack it)."""
    return table.column(name).to_pylist() if table.num_rows else []


def vector_matrix(column: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """A fixed-size-list vector column as an (n, dim) float32 matrix, without a per-row loop."""
    arr = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    if len(arr) == 0:
        return np.zeros((0, 0), dtype=np.float32)
    dim = arr.type.list_size
    return np.asarray(arr.flatten().to_numpy(zero_copy_only=False), dtype=np.float32).reshape(-1, dim)


def vector_array(matrix: np.ndarray, dim: int) -> pa.FixedSizeListArray:
    flat = pa.array(np.ascontiguousarray(matrix, dtype=np.float32).reshape(-1), type=pa.float32())
    return pa.FixedSizeListArray.from_arrays(flat, dim)
