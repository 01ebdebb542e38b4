"""Snapshot reads: every read of one search sees the tables as the last writer published them.

A LanceDB commit is atomic for one table, but one batch of a build touches several (symbols and
chunks are deleted then re-added, the manifest is upserted, vectors follow). A reader that opened
each table at its latest version could see a changed file's symbols deleted and its chunks not yet,
or its new chunks beside the old manifest row. So the writer *publishes* a set of table versions
into ``meta`` (key ``snapshot``) only at points where the tables agree (see :mod:`indexer.build`),
and readers open each table checked out at its published version.

Checked-out handles never change, so :class:`~indexer.store.Store` caches them per
``(table, version)`` and shares them between concurrent searches, together with their row counts
and whether they carry a vector index. An index written before snapshots existed has no
``snapshot`` key: its tables are read at their latest versions, as before.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

import pyarrow as pa

from indexer.errors import IndexCorruptError
from indexer.store import Store

SNAPSHOT_KEY = "snapshot"
T = TypeVar("T")


class Snapshot:
    """A read-only view of one index at the table versions the writer published."""

    def __init__(self, store: Store, meta: Mapping[str, Any]) -> None:
        self.store = store
        self.meta = dict(meta)
        published = meta.get(SNAPSHOT_KEY)
        self.versions: dict[str, int] = (
            {str(k): int(v) for k, v in published.items()} if isinstance(published, dict) else {}
        )
        self._names = set(self.versions) if self.versions else None

    def has(self, name: str) -> bool:
        if self._names is None:
            self._names = self.store.table_names()
        return name in self._names

    def table(self, name: str) -> Any:
        version = self.versions.get(name)
        return self.store.table(name) if version is None else self.store.at_version(name, version)

    def read(
        self,
        name: str,
        columns: Sequence[str] | None = None,
        where: str | None = None,
        limit: int | None = None,
    ) -> pa.Table:
        if not self.has(name):
            return pa.table({})
        return self.store.read_from(self.table(name), name, columns, where, limit)

    def scan(self, name: str, columns: Sequence[str], *, batch_size: int) -> Iterator[pa.RecordBatch]:
        """The rows of ``name`` in this snapshot (its ``columns``), streamed in batches of at most
        ``batch_size``."""
        if self.has(name):
            yield from self.store.scan_from(self.table(name), name, columns, batch_size=batch_size)

    def count(self, name: str) -> int:
        """Rows of ``name`` in this snapshot (remembered per pinned version)."""
        if not self.has(name):
            return 0

        def rows() -> int:
            try:
                return int(self.table(name).count_rows())
            except Exception as exc:
                raise IndexCorruptError(self.store.location, f"counting {name}: {exc}") from exc

        return self._remembered(self.store.pinned_counts, name, rows)

    def has_ann(self, name: str) -> bool:
        """Whether ``name`` has a vector index in this snapshot (remembered per pinned version)."""

        def indexed() -> bool:
            try:
                return any(
                    "vector" in list(getattr(i, "columns", [])) for i in self.table(name).list_indices()
                )
            except Exception:
                return False

        return self._remembered(self.store.pinned_ann, name, indexed)

    def _remembered(self, cache: dict[tuple[str, int], T], name: str, compute: Callable[[], T]) -> T:
        """``compute()`` for ``name``, kept in ``cache`` when the table is pinned (its version never changes)."""
        version = self.versions.get(name)
        if version is None:
            return compute()
        key = (name, version)
        if key not in cache:
            cache[key] = compute()
        return cache[key]


def current(store: Store) -> Snapshot:
    """The snapshot the last writer published (one read of ``meta``, or none within the store's
    re-check interval: :meth:`~indexer.store.Store.published_meta`)."""
    return Snapshot(store, store.published_meta())


def publish(store: Store, names: Sequence[str]) -> dict[str, int]:
    """Record the writer's current versions of ``names`` as what readers see from now on.

    Call only where those tables agree with each other: between batches, never inside one.
    """
    versions = {name: int(store.table(name).version) for name in names if store.has(name)}
    store.set_meta(**{SNAPSHOT_KEY: versions})
    return versions
