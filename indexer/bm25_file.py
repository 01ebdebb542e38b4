"""The file a BM25 index is saved in: named numpy arrays in one uncompressed file, read memory-mapped.

A million chunks make postings of tens of millions of entries. Loading them from an ``.npz`` (a zip)
copies every array into memory before the first search; here each array lies at a 64-byte aligned
offset of one file and a reader maps the file, so a search touches only the pages of the postings
and rows it reads, and the operating system shares them between processes.

Layout: 8 bytes of magic, the header's length (8 bytes, little-endian), the header (JSON: the
format, free ``meta`` values, and per array its dtype, offset and length), then the arrays. One file,
so that an index on object storage keeps it as one object (:mod:`indexer.shared_lexical`) and a reader
there can load it from the downloaded bytes the same way.
"""

from __future__ import annotations

import json
import mmap
import os
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from models import lazy_module

if TYPE_CHECKING:
    import numpy as np
else:
    np = lazy_module("numpy")

MAGIC = b"PLAITBM\x01"
_ALIGN = 64


def _aligned(offset: int) -> int:
    return -(-offset // _ALIGN) * _ALIGN


def write(path: Path, arrays: Mapping[str, Any], meta: Mapping[str, Any]) -> None:
    """Write ``arrays`` (1-d, little-endian numpy arrays, or objects with ``dtype``, ``len`` and
    ``write_to(fh)`` that copy themselves a block at a time) and ``meta`` (JSON values) to ``path``
    atomically: a temporary file beside it, then a rename."""
    layout: dict[str, list[Any]] = {}
    offset = 0
    for name, array in arrays.items():
        count = len(array)
        layout[name] = [array.dtype.str, offset, count]
        offset = _aligned(offset + count * array.dtype.itemsize)
    header = json.dumps({"meta": dict(meta), "arrays": layout}, separators=(",", ":")).encode()
    start = _aligned(len(MAGIC) + 8 + len(header))
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        with open(tmp, "wb") as fh:
            fh.write(MAGIC + len(header).to_bytes(8, "little") + header)
            for name, array in arrays.items():
                fh.seek(start + layout[name][1])
                if isinstance(array, np.ndarray):
                    fh.write(np.ascontiguousarray(array).data)
                else:
                    array.write_to(fh)
            fh.truncate(start + offset)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


class SavedArrays:
    """The arrays of one saved file, views of its mapping (or of the bytes it was read from)."""

    def __init__(self, buffer: Any, meta: dict[str, Any], layout: dict[str, Any], start: int) -> None:
        self.meta = meta
        self._buffer = buffer
        self._layout = layout
        self._start = start

    def __contains__(self, name: str) -> bool:
        return name in self._layout

    def __getitem__(self, name: str) -> np.ndarray:
        dtype, offset, length = self._layout[name]
        if length == 0:
            return np.zeros(0, np.dtype(dtype))
        return np.frombuffer(self._buffer, np.dtype(dtype), int(length), self._start + int(offset))


def read(source: Path | bytes) -> SavedArrays | None:
    """The arrays saved at ``source`` (a path, mapped read-only, or the file's bytes); ``None`` when
    it is missing, empty, of another format, or cut short."""
    buffer: Any
    if isinstance(source, Path):
        try:
            with open(source, "rb") as fh:
                buffer = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError):  # missing, unreadable, or empty (nothing to map)
            return None
    else:
        buffer = source
    size = len(buffer)
    if size < len(MAGIC) + 8 or bytes(buffer[: len(MAGIC)]) != MAGIC:
        return None
    length = int.from_bytes(buffer[len(MAGIC) : len(MAGIC) + 8], "little")
    start = _aligned(len(MAGIC) + 8 + length)
    try:
        header = json.loads(bytes(buffer[len(MAGIC) + 8 : len(MAGIC) + 8 + length]))
        meta, layout = header["meta"], header["arrays"]
        for dtype, offset, count in layout.values():
            if start + int(offset) + np.dtype(dtype).itemsize * int(count) > size:
                return None
    except (ValueError, TypeError, KeyError):
        return None
    if not isinstance(meta, dict) or not isinstance(layout, dict):
        return None
    return SavedArrays(buffer, meta, layout, start)
