"""Symbol lookups over a snapshot's ``symbols`` table: in memory when it is small, in LanceDB when not.

Up to :data:`MAX_MEMORY_SYMBOLS` rows, the whole table is read once per published version into a
:class:`~indexer.lookup.SymbolTable` and every lookup runs in memory. Above it, each lookup first
asks LanceDB for the candidate rows (one SQL filter on ``name_norm`` for all the names at once),
then ranks those in memory; both paths return the same matches.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from indexer.filters import path_filter, path_prefix_sql
from indexer.lookup import SYMBOL_COLUMNS, SymbolMatch, SymbolRow, SymbolTable, name_tokens, normalise
from indexer.memo import VersionMemo
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

    def table(self, snap: Snapshot) -> SymbolTable | None:
        """The whole symbol table of ``snap`` in memory (kept per published version), or ``None``
        when it has more than :data:`MAX_MEMORY_SYMBOLS` rows or no published version."""
        version = snap.versions.get("symbols", -1)
        if version < 0:
            return None

        def read(_previous: object) -> SymbolTable | None:
            if snap.count("symbols") > MAX_MEMORY_SYMBOLS:
                return None
            return SymbolTable.from_arrow(snap.read("symbols", SYMBOL_COLUMNS))

        return self._memo.get(version, read)

    @staticmethod
    def in_file(snap: Snapshot, path: str) -> list[SymbolRow]:
        table = snap.read("symbols", SYMBOL_COLUMNS, f"path = {sql_str(path)}")
        return SymbolTable.from_arrow(table).in_file(path)

    @staticmethod
    def _candidates(
        snap: Snapshot, names: Sequence[tuple[str, bool]], language: str | None, path_prefix: str | None
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
            filters.append(path_prefix_sql(path_prefix))
        where = " AND ".join([f"({' OR '.join(ors)})", *filters])
        table = snap.read("symbols", SYMBOL_COLUMNS, where, limit=MAX_SYMBOL_CANDIDATES)
        if table.num_rows == 0 and fuzzy:  # fuzzy fallback: names sharing the first letters
            prefixes = " OR ".join(f"name_norm LIKE '{n[:2]}%'" for n in dict.fromkeys(fuzzy))
            where = " AND ".join([f"({prefixes})", *filters])
            table = snap.read("symbols", SYMBOL_COLUMNS, where, limit=MAX_SYMBOL_CANDIDATES * 4)
        return SymbolTable.from_arrow(table)
