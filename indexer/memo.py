"""``VersionMemo``: one value derived from one published table version, kept until the version changes.

Readers derive in-memory structures from the snapshot they read (the whole symbol table, chunk
spans, the manifest, the BM25 index, the vector rows' ids). Each is valid for exactly one table
version, so it is kept under that version's key and made again when a newer snapshot asks for it.
An :class:`~indexer.index.Index` and its pinned copies share their memos.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class VersionMemo(Generic[K, V]):
    """The value made for the last key asked for (a table version, or a ``(table, version)`` pair).

    Thread-safe: :meth:`get` makes a value under a lock, so concurrent readers of a new version wait
    for one build of it instead of each making their own. ``make`` must not call :meth:`get` of the
    same memo.
    """

    def __init__(self) -> None:
        self._entry: tuple[K | None, V] | None = None  # (key, value); key None: forgotten version
        self._lock = threading.Lock()

    def get(self, key: K, make: Callable[[V | None], V]) -> V:
        """The value kept for ``key``, else ``make(previous)`` kept under ``key``. ``previous`` is the
        value of another key (or one kept by :meth:`forget`), for a ``make`` that reuses parts of it,
        or ``None``. Exceptions from ``make`` propagate and keep nothing."""
        with self._lock:
            entry = self._entry
            if entry is not None and entry[0] == key:
                return entry[1]
            value = make(entry[1] if entry is not None else None)
            self._entry = (key, value)
            return value

    def put(self, key: K, value: V) -> None:
        """Keep ``value`` for ``key`` (replacing whatever was kept)."""
        self._entry = (key, value)

    def kept(self) -> V | None:
        """The value kept now, whatever its key (``None`` when nothing is)."""
        entry = self._entry
        return entry[1] if entry is not None else None

    def forget(self, *, keep_value: bool = False) -> None:
        """No key matches any more; with ``keep_value`` the value stays as the next ``make``'s
        ``previous``, else it is dropped."""
        entry = self._entry
        self._entry = (None, entry[1]) if keep_value and entry is not None else None
