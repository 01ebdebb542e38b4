"""What the index cannot know: which files changed since it was built, and how to weave ripgrep's
view of them into the BM25 ranking of the indexed chunks."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import zip_longest
from typing import TYPE_CHECKING

from indexer import Settings, glob_matcher
from search.engine.retrievers import ResolvedScope
from search.engine.retrievers.listing import Listing, kept_files, live_files
from search.types import LOCATED, Hit, Span

if TYPE_CHECKING:
    import numpy as np

    from indexer import Index, LexicalIndex

_NOTHING: dict[str, tuple[str, int, int]] = {}  # the manifest before anything was indexed


@dataclass(frozen=True, slots=True)
class LiveChanges:
    changed: list[str]  # files in scope that are new or differ (size or mtime) from the indexed copy
    present: frozenset[str]  # every file in scope that a search would read


def live_changes(
    settings: Settings, index: Index, scope: ResolvedScope, *, timeout: float
) -> LiveChanges | None:
    """The files of ``scope`` and those that differ from the index (see :mod:`search.engine.retrievers.listing`);
    ``None`` when ripgrep could not list them."""
    found = live_files(settings, scope, index.whole_manifest() or _NOTHING, timeout=timeout)
    return _changes(found)


def kept_changes(settings: Settings, index: Index, scope: ResolvedScope) -> LiveChanges | None:
    """:func:`live_changes` from a listing kept since an earlier search, when it still holds;
    ``None`` when ripgrep must list again (then ask :func:`live_changes`)."""
    return _changes(kept_files(settings, scope, index.whole_manifest() or _NOTHING))


def _changes(found: tuple[Listing, list[str] | None] | None) -> LiveChanges | None:
    if found is None:
        return None
    listing, changed = found
    return LiveChanges(changed or [], listing.present)


def scope_mask(lexical: LexicalIndex, scope: ResolvedScope) -> np.ndarray | None:
    """Which indexed chunks lie in ``scope`` (``None``: all of them)."""
    if scope.kind == "ws" and not scope.globs and not scope.language:
        return None
    return lexical.file_mask(in_scope(scope))


def in_scope(scope: ResolvedScope) -> Callable[[str, str | None], bool]:
    """Whether an indexed file, by its path and language, lies in ``scope``: its path, its globs and its
    language (:meth:`ResolvedScope.allows` is the path alone)."""
    glob_ok = glob_matcher(scope.globs)

    def keep(path: str, language: str | None) -> bool:
        if scope.language and language != scope.language:
            return False
        return scope.allows(path) and (glob_ok is None or glob_ok(path))

    return keep


def bm25_hits(
    lexical: LexicalIndex,
    tokens: tuple[str, ...],
    allow: np.ndarray | None,
    limit: int,
    short: Mapping[str, Sequence[str]] | None = None,
) -> list[Hit]:
    """BM25 of the query's ``tokens`` (each with its ``short`` forms as one term) over the indexed
    chunks that ``allow`` lets through (see :mod:`indexer.lexical`)."""
    return [
        Hit(
            Span(h.path, h.start_line, h.end_line), h.score, h.symbol, h.kind, h.language, coverage=h.coverage
        )
        for h in lexical.search(tokens, limit, allow=allow, short=short)
    ]


def merge_live(ranked: list[Hit], found: list[Hit], changes: LiveChanges, limit: int) -> list[Hit]:
    """The BM25 ranking of indexed chunks, corrected by what ripgrep saw in the live files.

    Chunks holding the whole query verbatim (``found`` hits marked exact) come first, in BM25's order
    where it ranks them. Files changed
    since indexing, or never indexed, are ranked by ripgrep instead of by their stale chunks, and
    interleaved by rank (at equal rank the hit holding more of the query's term weight goes first);
    chunks of files that are gone are dropped.
    """
    changed = set(changes.changed)
    order = {h.span: i for i, h in enumerate(ranked)}  # verbatim holders in BM25's order, then ripgrep's
    # A line the query names comes first, in the query's order (its innermost frame first).
    verbatim = sorted(
        (h for h in found if h.exact),
        key=lambda h: (0, 0) if h.loose == LOCATED else (1, order.get(h.span, len(order))),
    )
    live = [h for h in found if h.span.path in changed and not h.exact]
    indexed = [h for h in ranked if h.span.path not in changed and h.span.path in changes.present]
    woven = indexed
    if live:  # interleave by rank; at equal rank the hit holding more of the query's terms first
        woven = []
        for a, b in zip_longest(indexed, live):
            pair = [h for h in (a, b) if h is not None]
            woven.extend(sorted(pair, key=lambda h: -h.coverage) if len(pair) == 2 else pair)
    out: list[Hit] = []
    seen: set[Span] = set()
    for h in verbatim + woven:
        if h.span not in seen:
            seen.add(h.span)
            out.append(h)
    return out[:limit]
