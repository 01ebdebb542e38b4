"""Symbol lookup: exact, qualified, prefix, case/underscore/camel-insensitive and fuzzy name matches.

Definitions are ranked by how well the name matches (tiers below), then by kind (types and
functions above variables), then by shorter name and path. Pure in-memory structure built from
the ``symbols`` table; rebuilt when the table's version changes.
"""

from __future__ import annotations

import bisect
import difflib
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import pyarrow as pa

from indexer.lexical import stem_words, typed_name_words
from indexer.names import QUALIFIER_SPLIT, dotted, name_tokens, normalise
from indexer.types import DATA_KINDS, FUNCTION_KINDS, STORED_SYMBOL_FIELDS, Symbol

TIER_EXACT = 1.0
TIER_QUALIFIED = 0.97
TIER_PART_QUALIFIED = 0.955  # the name, and a qualifier of the query among its own
TIER_CASE = 0.94
TIER_NORMALISED = 0.9
TIER_PREFIX = 0.75
TIER_NORM_PREFIX = 0.7
TIER_SUBSTRING = 0.55
TIER_TOKENS = 0.5
TIER_FUZZY = 0.35

# A field spelled as asked goes before a function or method matched only with other separators:
# ``_getitem = __getitem__`` is what ``_getitem`` names, not ``__getitem__`` (0.895 against the
# normalised tier's 0.9 × 0.99 and × 0.98); a class of that name in another case still goes first.
KIND_WEIGHT = {
    "class": 1.0, "interface": 1.0, "struct": 1.0, "trait": 1.0, "enum": 1.0, "type": 0.98,
    "function": 0.99, "method": 0.98, "constructor": 0.97, "module": 0.96, "macro": 0.96,
    "constant": 0.94, "variable": 0.9, "variant": 0.9, "field": 0.895,
    "reexport": 0.85,  # a public name for a definition elsewhere (Rust `pub use`, `export const f = mod.f`)
}  # fmt: skip

SymbolRow = Symbol  # a symbol read back from the index; the name of earlier releases
SYMBOL_COLUMNS: list[str] = list(STORED_SYMBOL_FIELDS)  # the columns of ``symbols`` a lookup reads
# …of which an index built before schema 3 lacks ``name_line`` (read as 0 until a build replaces it)
LEGACY_SYMBOL_COLUMNS: list[str] = [c for c in SYMBOL_COLUMNS if c != "name_line"]


@lru_cache(maxsize=1 << 12)
def _parts_and_stems(name: str) -> tuple[frozenset[str], frozenset[str]]:
    """A bare name's parts (:func:`indexer.lexical.typed_name_words`: a numeric type it writes is a
    part of its own) and their stems."""
    parts = typed_name_words(name)
    return frozenset(parts), frozenset(stem_words(parts))


@dataclass(frozen=True, slots=True)
class SymbolMatch:
    symbol: SymbolRow
    score: float
    match: str  # exact | qualified | case | normalised | prefix | substring | tokens | fuzzy


def symbol_rows(table: pa.Table) -> list[SymbolRow]:
    """The rows of a table of :data:`SYMBOL_COLUMNS` (``name_line`` 0 where it has no such column)."""
    if table.num_rows == 0:
        return []
    have = set(table.column_names)
    cols = [table.column(c).to_pylist() if c in have else [0] * table.num_rows for c in SYMBOL_COLUMNS]
    return [SymbolRow(*vals) for vals in zip(*cols, strict=True)]


class SymbolTable:
    """An in-memory index over symbol rows."""

    def __init__(self, rows: Sequence[SymbolRow]) -> None:
        self.rows = list(rows)
        self.by_name: dict[str, list[int]] = defaultdict(list)
        self.by_lower: dict[str, list[int]] = defaultdict(list)
        self.by_norm: dict[str, list[int]] = defaultdict(list)
        norms: dict[str, str] = {}  # names repeat (methods of many classes): normalise each once
        for i, r in enumerate(self.rows):
            self.by_name[r.name].append(i)
            if r.kind in DATA_KINDS:
                # a field, variant or variable is found by its name as written or qualified only: the
                # scans of other cases, prefixes and substrings below stay the size of the workspace's
                # other definitions
                continue
            self.by_lower[r.name.lower()].append(i)
            norm = norms.get(r.name)
            if norm is None:
                norm = norms[r.name] = normalise(r.name)
            self.by_norm[norm].append(i)
        self.sorted_lower = sorted(self.by_lower)
        self.sorted_norm = sorted(self.by_norm)
        self._tokens: dict[str, set[str]] | None = None
        self._holding: dict[str, set[str]] | None = None
        self._joined: tuple[str, list[int]] | None = None
        self._functions: dict[str, tuple[list[int], list[str]]] | None = None
        self._spelled: dict[str, list[int]] | None = None
        self._by_owner: dict[str, list[int]] | None = None

    @property
    def tokens(self) -> dict[str, set[str]]:
        """Name tokens per lower-cased name, made on first use (only multi-word lookups need them)."""
        if self._tokens is None:
            self._tokens = {n: set(name_tokens(self.rows[ids[0]].name)) for n, ids in self.by_lower.items()}
        return self._tokens

    def names_with_tokens(self, tokens: set[str]) -> set[str]:
        """The lower-cased names whose tokens include all of ``tokens`` (an inverted index, made on
        first use)."""
        if self._holding is None:
            holding: dict[str, set[str]] = defaultdict(set)
            for n, toks in self.tokens.items():
                for t in toks:
                    holding[t].add(n)
            self._holding = dict(holding)
        sets = sorted((self._holding.get(t, set()) for t in tokens), key=len)
        return set.intersection(*sets) if sets else set()

    def norms_containing(self, part: str) -> list[str]:
        """The normalised names that contain ``part``, in sorted order: one C-level search of them all,
        joined, instead of a Python loop over each."""
        if self._joined is None:
            starts, pos = [], 0
            for n in self.sorted_norm:
                starts.append(pos)
                pos += len(n) + 1
            self._joined = ("\0".join(self.sorted_norm), starts)
        joined, starts = self._joined
        found: list[str] = []
        at = joined.find(part)
        while at != -1:
            i = bisect.bisect_right(starts, at) - 1
            found.append(self.sorted_norm[i])
            at = joined.find(part, starts[i + 1] if i + 1 < len(starts) else len(joined))
        return found

    @classmethod
    def from_arrow(cls, table: pa.Table) -> SymbolTable:
        return cls(symbol_rows(table))

    def __len__(self) -> int:
        return len(self.rows)

    def lookup(
        self,
        query: str,
        *,
        kinds: Iterable[str] | None = None,
        language: str | None = None,
        path_ok: object = None,
        limit: int = 50,
        fuzzy: bool = True,
        strict: bool = False,
    ) -> list[SymbolMatch]:
        """Definitions matching ``query`` best first; ``path_ok`` is an optional ``Callable[[str], bool]``.
        ``strict`` keeps only exact, qualified and case/separator-insensitive matches (no scans)."""
        query = query.strip()
        if not query:
            return []
        kind_set = set(kinds) if kinds else None
        best: dict[int, tuple[float, str]] = {}

        def offer(ids: Iterable[int], tier: float, how: str) -> None:
            for i in ids:
                if i not in best or best[i][0] < tier:
                    best[i] = (tier, how)

        last = QUALIFIER_SPLIT.split(query)[-1]
        qualified = last != query
        offer(self.by_name.get(last, ()), TIER_EXACT if not qualified else TIER_CASE, "exact")
        if qualified:
            # ``Axios.prototype.request`` is defined as the method ``Axios.request``
            as_kept = dotted(query)
            qualifiers = {q.lower() for q in as_kept.split(".")[:-1]}
            for i in self.by_name.get(last, ()):
                qn = self.rows[i].qualified_name
                if qn == as_kept or qn.endswith("." + as_kept):
                    best[i] = (TIER_EXACT, "qualified")
                elif qualifiers & {q.lower() for q in qn.split(".")[:-1]}:
                    # ``self.console.print``: of the ``print``s, the one of a ``Console``
                    best[i] = (TIER_PART_QUALIFIED, "exact")
        low, norm = last.lower(), normalise(last)
        offer(self.by_lower.get(low, ()), TIER_CASE, "case")
        if norm:
            offer(self.by_norm.get(norm, ()), TIER_NORMALISED, "normalised")
        if norm and not strict:
            self._prefix(self.sorted_lower, self.by_lower, low, TIER_PREFIX, offer, "prefix")
            self._prefix(self.sorted_norm, self.by_norm, norm, TIER_NORM_PREFIX, offer, "prefix")
            if len(norm) >= 3 and len(best) < limit:
                for n in self.norms_containing(norm):
                    if n != norm:
                        offer(self.by_norm[n], TIER_SUBSTRING * len(norm) / len(n) + 0.1, "substring")
            qtokens = set(name_tokens(last))
            if len(qtokens) >= 2:
                for n in self.names_with_tokens(qtokens):
                    toks = self.tokens[n]
                    offer(self.by_lower[n], TIER_TOKENS * len(qtokens) / len(toks) + 0.05, "tokens")
            if fuzzy and not best and len(norm) >= 4:
                names = self.sorted_norm  # those sharing the first letter lie together
                lo = bisect.bisect_left(names, norm[0])
                hi = bisect.bisect_left(names, chr(ord(norm[0]) + 1), lo)
                close = [n for n in names[lo:hi] if abs(len(n) - len(norm)) <= 3]
                for n in difflib.get_close_matches(norm, close, n=limit, cutoff=0.8):
                    ratio = difflib.SequenceMatcher(None, norm, n).ratio()
                    offer(self.by_norm[n], TIER_FUZZY * ratio, "fuzzy")
        matches: list[SymbolMatch] = []
        for i, (tier, how) in best.items():
            row = self.rows[i]
            if kind_set is not None and row.kind not in kind_set:
                continue
            if language is not None and row.language != language:
                continue
            if path_ok is not None and callable(path_ok) and not path_ok(row.path):
                continue
            score = tier * KIND_WEIGHT.get(row.kind, 0.9)
            matches.append(SymbolMatch(row, score, how))
        # Equally good definitions: the shorter qualified name, then the shallower path (the canonical
        # Http/Request.php before Http/Client/Request.php), then the path's order.
        matches.sort(
            key=lambda m: (
                -m.score,
                len(m.symbol.qualified_name),
                m.symbol.path.count("/"),
                m.symbol.path,
                m.symbol.start_line,
            )
        )
        return matches[:limit]

    @staticmethod
    def _prefix(
        keys: list[str], table: dict[str, list[int]], prefix: str, tier: float, offer: object, how: str
    ) -> None:
        assert callable(offer)
        i = bisect.bisect_left(keys, prefix)
        count = 0
        while i < len(keys) and keys[i].startswith(prefix) and count < 500:
            if keys[i] != prefix:
                offer(table[keys[i]], tier * (0.8 + 0.2 * len(prefix) / len(keys[i])), how)
            i += 1
            count += 1

    def functions_within(self, path: str, start_line: int, end_line: int) -> list[str]:
        """The qualified names of the functions and methods whose definitions start on lines
        ``start_line``–``end_line`` of ``path``, in line order (a per-file index, made on first use)."""
        if self._functions is None:
            per: dict[str, list[tuple[int, str]]] = defaultdict(list)
            for r in self.rows:
                if r.kind in FUNCTION_KINDS:
                    per[r.path].append((r.start_line, r.qualified_name))
            self._functions = {}
            for p, defined in per.items():
                defined.sort()
                self._functions[p] = ([line for line, _ in defined], [name for _, name in defined])
        held = self._functions.get(path)
        if held is None:
            return []
        lines, names = held
        return names[bisect.bisect_left(lines, start_line) : bisect.bisect_right(lines, end_line)]

    def spelled(
        self,
        words: frozenset[str],
        *,
        owners: frozenset[str] = frozenset(),
        path_ok: Callable[[str], bool] | None = None,
        limit: int,
    ) -> list[SymbolRow]:
        """The functions and methods named in two parts or more whose every part, as written or as its
        stem, is one of ``words`` (a sentence's words, their stems, the short forms code writes for
        them and the numeric types it names by their widths): ``jinja_env`` for "The Jinja environment
        used to load templates.", ``interleave_evenly`` for "Interleave multiple iterables so that
        their elements are evenly distributed …", ``get_u32`` for "Gets an unsigned 32 bit integer …"
        (a numeric type a name writes is a part of its own, :func:`indexer.lexical.typed_name_words`).
        The longest names first, then by path and line; an inverted index of the parts, made on first
        use. Before them, the methods of ``owners`` (classes' names, normalised: the object a sentence
        calls "this" or closes on) whose names, of one part or more, are so spelled: "Returns the
        length of this match." documents ``Match.len``, which the class's name and the words name
        together."""

        def spelled_rows(candidates: set[int]) -> list[int]:
            found = []
            for i in candidates:
                row = self.rows[i]
                whole, stems = _parts_and_stems(row.name)
                if (whole <= words or stems <= words) and (path_ok is None or path_ok(row.path)):
                    found.append((-len(whole), row.path, row.start_line, i))
            return [i for *_, i in sorted(found)]

        if self._spelled is None:
            self._spelled = self._spelled_index()
        first = []
        if owners:
            if self._by_owner is None:
                self._by_owner = self._owner_index()
            first = spelled_rows({i for o in owners for i in self._by_owner.get(o, ())})
        taken = set(first)
        rest = spelled_rows({i for w in words for i in self._spelled.get(w, ())})
        return [self.rows[i] for i in [*first, *(i for i in rest if i not in taken)][:limit]]

    def _owner_index(self) -> dict[str, list[int]]:
        """Each method under its class's name, normalised (``Match.len`` under ``match``)."""
        by_owner: dict[str, list[int]] = defaultdict(list)
        for i, r in enumerate(self.rows):
            if r.kind in FUNCTION_KINDS and "." in r.qualified_name:
                by_owner[normalise(r.qualified_name.rsplit(".", 2)[-2])].append(i)
        return dict(by_owner)

    def _spelled_index(self) -> dict[str, list[int]]:
        """Each function of two parts or more under its rarest part as written and its rarest stem:
        a name is spelled only where all its parts are, so one part of each says where to look (a
        sentence's "get" or "to" does not visit every getter), and the index holds one or two row
        numbers a name (a name's parts are read again for the few it offers)."""
        named = [(i, typed_name_words(r.name)) for i, r in enumerate(self.rows) if r.kind in FUNCTION_KINDS]
        named = [(i, parts) for i, parts in named if len(parts) >= 2]
        unique = sorted({p for _, parts in named for p in parts})
        stem_of = dict(zip(unique, stem_words(unique), strict=True))  # one call to the stemmer
        count: dict[str, int] = defaultdict(int)
        for _, parts in named:
            for part in {*parts, *(stem_of[p] for p in parts)}:
                count[part] += 1
        by_part: dict[str, list[int]] = defaultdict(list)
        for i, parts in named:
            rarest_part = min(parts, key=lambda p: (count[p], p))
            rarest_stem = min((stem_of[p] for p in parts), key=lambda p: (count[p], p))
            by_part[rarest_part].append(i)
            if rarest_stem != rarest_part:
                by_part[rarest_stem].append(i)
        return dict(by_part)

    def in_file(self, path: str) -> list[SymbolRow]:
        return sorted((r for r in self.rows if r.path == path), key=lambda r: (r.start_line, -r.end_line))
