"""Symbol lookups over a snapshot's ``symbols`` table: in memory when it is small, in LanceDB when not.

Up to :data:`MAX_MEMORY_SYMBOLS` rows, the whole table is read once per published version into a
:class:`~indexer.lookup.SymbolTable` and every lookup runs in memory. Above it, each lookup first
asks LanceDB for the candidate rows, then ranks those in memory; both paths return the same matches.
The names matched only exactly (up to case and separators: a sentence's plain words) are asked for
with ``name_norm IN (…)``, which the B-tree index a build keeps on ``name_norm`` of such a table
answers (:meth:`~indexer.store.Store.ensure_scalar_index`: on 2.8M generated rows, 4–9 ms against
230–330 ms for the scan); the other names need substring filters (``LIKE '%…%'``), one scan for all.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import pyarrow as pa

from indexer.errors import IndexCorruptError
from indexer.filters import path_filter, path_prefix_sql
from indexer.lookup import (
    LEGACY_SYMBOL_COLUMNS,
    SYMBOL_COLUMNS,
    SymbolMatch,
    SymbolRow,
    SymbolTable,
    symbol_rows,
)
from indexer.memo import VersionMemo
from indexer.names import QUALIFIER_SPLIT, dotted, name_tokens, normalise
from indexer.snapshot import Snapshot
from indexer.store import sql_str

MAX_SYMBOL_CANDIDATES = 5000
MAX_MEMORY_SYMBOLS = 250_000  # up to this many symbols, lookups use one in-memory table per version
STRICT_MATCHES = frozenset({"exact", "qualified", "case", "normalised"})


def lookup_names(
    table: SymbolTable,
    names: Sequence[tuple[str, bool]],
    *,
    kinds: Iterable[str] | None,
    language: str | None,
    path_ok: Callable[[str], bool] | None,
    limit: int,
) -> list[list[SymbolMatch]]:
    """Matches in ``table`` of each ``(name, strict)``; strict names keep only exact, qualified and
    case/separator-insensitive matches (:data:`STRICT_MATCHES`)."""
    out = []
    for name, strict in names:
        found = table.lookup(
            name,
            kinds=kinds,
            language=language,
            path_ok=path_ok,
            limit=limit,
            fuzzy=not strict,
            strict=strict,
        )
        out.append([m for m in found if not strict or m.match in STRICT_MATCHES])
    return out


class SymbolReader:
    """Definitions by name in a snapshot, with the in-memory table kept per version. Thread-safe."""

    def __init__(self) -> None:
        self._memo: VersionMemo[int, SymbolTable | None] = VersionMemo()

    def forget(self) -> None:
        self._memo.forget()

    def lookup_many(
        self,
        snap: Snapshot,
        names: Sequence[tuple[str, bool]],
        *,
        kinds: Iterable[str] | None,
        language: str | None,
        globs: Sequence[str],
        path_prefix: str | None,
        limit: int,
    ) -> list[list[SymbolMatch]]:
        """Matches of each ``(name, strict)``; strict names keep only exact, qualified and
        case/separator-insensitive matches."""
        table = self.table(snap)
        if table is None:  # too many to hold: fetch the candidates (already under the prefix) from the store
            table = self._candidates(snap, names, language, path_prefix)
            path_ok = path_filter(globs, None)
        else:
            path_ok = path_filter(globs, path_prefix)
        return lookup_names(table, names, kinds=kinds, language=language, path_ok=path_ok, limit=limit)

    def spelled(
        self,
        snap: Snapshot,
        words: frozenset[str],
        *,
        owners: frozenset[str] = frozenset(),
        globs: Sequence[str],
        path_prefix: str | None,
        limit: int,
    ) -> list[SymbolRow]:
        """:meth:`SymbolTable.spelled` over ``snap``'s table; none where the table is too large to hold
        (the store has no index of names' parts to ask)."""
        table = self.table(snap)
        if table is None:
            return []
        return table.spelled(words, owners=owners, path_ok=path_filter(globs, path_prefix), limit=limit)

    def table(self, snap: Snapshot) -> SymbolTable | None:
        """The whole symbol table of ``snap`` in memory (kept per published version), or ``None``
        when it has more than :data:`MAX_MEMORY_SYMBOLS` rows or no published version."""
        version = snap.versions.get("symbols", -1)
        if version < 0:
            return None

        def read(_previous: object) -> SymbolTable | None:
            if snap.count("symbols") > MAX_MEMORY_SYMBOLS:
                return None
            return SymbolTable.from_arrow(_read(snap))

        return self._memo.get(version, read)

    @staticmethod
    def in_file(snap: Snapshot, path: str) -> list[SymbolRow]:
        table = _read(snap, f"path = {sql_str(path)}")
        return SymbolTable.from_arrow(table).in_file(path)

    @staticmethod
    def _candidates(
        snap: Snapshot, names: Sequence[tuple[str, bool]], language: str | None, path_prefix: str | None
    ) -> SymbolTable:
        """Rows that could match any of ``names`` (``(name, strict)``: strict names match only exactly,
        up to case and separators), filtered in LanceDB (no full table in Python): the exact names in
        one query the B-tree answers, the others in one scan."""
        exact: list[str] = []
        ors: list[str] = []
        fuzzy: list[str] = []
        owned: list[str] = []  # a qualified name's rows, asked for apart (see below)
        for name, strict in names:
            last = QUALIFIER_SPLIT.split(name.strip())[-1]
            norm = normalise(last)
            if not norm:
                continue
            if last != name.strip():
                # Linux defines 5,000+ fields named `len`: the cap below would keep the first 5,000 in
                # the table's order, and `sk_buff.len` need not be among them
                kept = dotted(name.strip())
                owned.append(
                    f"(name_norm = {sql_str(norm)} AND (qualified_name = {sql_str(kept)}"
                    f" OR qualified_name LIKE {sql_str('%.' + kept)}))"
                )
            if strict:
                exact.append(norm)
                continue
            ors.append(f"name_norm LIKE '%{norm}%'")
            tokens = [normalise(t) for t in name_tokens(last)]
            if len(tokens) >= 2:
                ors.append("(" + " AND ".join(f"name_norm LIKE '%{t}%'" for t in tokens if t) + ")")
            if len(norm) >= 4:
                fuzzy.append(norm)
        filters = []
        if language:
            filters.append(f"language = {sql_str(language)}")
        if path_prefix:
            filters.append(path_prefix_sql(path_prefix))
        parts: list[pa.Table] = []
        if owned:  # the B-tree on name_norm narrows these too
            where = " AND ".join([f"({' OR '.join(owned)})", *filters])
            parts.append(_read(snap, where, MAX_SYMBOL_CANDIDATES))
        if exact:  # the B-tree on name_norm answers these without a scan
            where = " AND ".join(
                [f"name_norm IN ({', '.join(sql_str(n) for n in dict.fromkeys(exact))})", *filters]
            )
            parts.append(_read(snap, where, MAX_SYMBOL_CANDIDATES))
        if ors:
            where = " AND ".join([f"({' OR '.join(ors)})", *filters])
            found = _read(snap, where, MAX_SYMBOL_CANDIDATES)
            if found.num_rows == 0 and fuzzy:  # fuzzy fallback: names sharing the first letters
                prefixes = " OR ".join(f"name_norm LIKE '{n[:2]}%'" for n in dict.fromkeys(fuzzy))
                where = " AND ".join([f"({prefixes})", *filters])
                found = _read(snap, where, MAX_SYMBOL_CANDIDATES * 4)
            parts.append(found)
        rows = [r for t in parts for r in symbol_rows(t)]
        return SymbolTable(list(dict.fromkeys(rows)))  # a row both queries found counts once


def _read(snap: Snapshot, where: str | None = None, limit: int | None = None) -> pa.Table:
    """The ``symbols`` rows of ``snap`` (:data:`~indexer.lookup.SYMBOL_COLUMNS`). An index built
    before symbols kept ``name_line`` (schema 2) is read without it until the next build, which its
    fingerprint makes a rebuild; one that fails that way too is unreadable, as the error says."""
    try:
        return snap.read("symbols", SYMBOL_COLUMNS, where, limit)
    except IndexCorruptError:
        return snap.read("symbols", LEGACY_SYMBOL_COLUMNS, where, limit)
