"""Text retrieval: ripgrep over the live files, and BM25 over the indexed chunks for sentences.

A literal or regex query is searched as given (:mod:`search.workspace.ripgrep`) and spans are ranked by
match count. A natural-language query is ranked in two ways at once:

- with an index, its chunks are ranked by BM25 (:mod:`indexer.lexical`), and the live files are read
  only where the index cannot answer: the whole query verbatim (chunks holding it come first; the
  few files that can hold it are read here, :mod:`search.engine.retrievers.verbatim`, more by ripgrep) and
  the query's terms in files changed since indexing (:mod:`search.engine.retrievers.live` weaves the two);
  a line it names (``web.py:3413``, a traceback's frame) is a place of it, first
  (:mod:`search.engine.retrievers.located`);
  where nothing holds it verbatim and it holds a value (a digit, a quote, a path, a name), the format
  strings in BM25's first chunks that it fills are places of it too, as a program printed it
  (:mod:`search.engine.retrievers.template`);
- without one, ripgrep searches the terms (an OR of stems, case-insensitive) and a span scores BM25
  from its matches: tf from the matched text, df per file, length in lines.
"""

from __future__ import annotations

import bisect
import concurrent.futures as cf
import logging
import math
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from indexer import K1 as BM25_K1
from indexer import B as BM25_B
from indexer import IndexStoreError, Settings, code_tokens
from models import PlaitError
from search.engine.query import AnalysedQuery, collapsed
from search.engine.retrievers import ResolvedScope
from search.engine.retrievers.declared import declared_definitions
from search.engine.retrievers.live import (
    LiveChanges,
    bm25_hits,
    in_scope,
    kept_changes,
    live_changes,
    merge_live,
    scope_mask,
)
from search.engine.retrievers.located import files_by_name, resolve
from search.engine.retrievers.template import MIN_WORDS, filled_places, looks_printed
from search.engine.retrievers.verbatim import find_verbatim, phrase_pattern, rg_escape
from search.types import FILLED, LOCATED, VERBATIM, WRAPPED, Hit, Span
from search.workspace import ripgrep
from search.workspace.ripgrep import RgCommand, RgLine

if TYPE_CHECKING:
    import numpy as np

    from indexer import Index, LexicalIndex

log = logging.getLogger(__name__)

AVG_CHUNK_LINES = 30.0
NAME_BOOST = 0.6  # a term in the definition's own name counts for more than a mention in its body
MAX_TARGETS = 500  # a narrowed search names at most this many files; more: search the whole scope
MAX_ASKED = 32  # places of the words a name was asked for in that are marked; more: not rare, none
_POOL = cf.ThreadPoolExecutor(max_workers=4, thread_name_prefix="plait-text")


class SpanMapper:
    """Maps a (path, line) to the chunk that holds it, or to a line window for unindexed files."""

    def __init__(self, index: Index | None, window: int, paths: Iterable[str]) -> None:
        self.chunks = index.chunk_spans(paths) if index is not None else {}
        self.starts = {p: [c.start_line for c in spans] for p, spans in self.chunks.items()}
        self.window = window

    def span(self, path: str, line: int) -> tuple[Span, str | None, str | None, str | None]:
        key, sym, kind, lang = self.locate(path, line)
        return Span(*key), sym, kind, lang

    def locate(self, path: str, line: int) -> tuple[tuple[str, int, int], str | None, str | None, str | None]:
        """:meth:`span` as a plain ``(path, start, end)`` tuple, for loops over many matches."""
        spans = self.chunks.get(path)
        if spans:
            i = bisect.bisect_right(self.starts[path], line) - 1
            best = None
            # Overlapping windows: prefer the smallest chunk containing the line.
            for j in range(max(0, i - 3), min(len(spans), i + 1)):
                c = spans[j]
                if c.start_line <= line <= c.end_line and (
                    best is None or c.end_line - c.start_line < best.end_line - best.start_line
                ):
                    best = c
            if best is not None:
                return (path, best.start_line, best.end_line), best.symbol, best.kind, best.language
        start = (line - 1) // self.window * self.window + 1
        return (path, start, start + self.window - 1), None, None, None


# How a comment line opens: a name mentioned there is not used there (Javadoc, docstrings' ``>>>``).
_COMMENT_LEADERS = ("#", "//", "/*", "*", "--", ";", '"""', "'''", "<!--", ">>>", "...")


def _holding(phrase: str, lines: Iterable[RgLine]) -> list[RgLine]:
    """Those of ``lines`` (ripgrep's json output, with their text) that hold ``phrase`` as its
    verbatim search reads it (:func:`phrase_pattern`, any case), each with the text that holds it."""
    pattern = re.compile(phrase_pattern(phrase), re.IGNORECASE)
    found = []
    for line in lines:
        match = pattern.search(line.text)
        if match is not None:
            found.append(line._replace(submatches=(match.group(),)))
    return found


class TextRetriever:
    name = "text"

    def __init__(self, settings: Settings, index: Index | None, *, timeout: float = 8.0) -> None:
        self.settings = settings
        self.index = index
        self.timeout = timeout

    def search(self, query: AnalysedQuery, scope: ResolvedScope, *, limit: int) -> list[Hit]:
        """At most ``limit`` hits for ``query`` inside ``scope``, best first, each a chunk span (or a line
        window in an unindexed file) with its native score.

        Literal and regex queries: ripgrep's matches over the live files, ranked by match count, every
        hit ``exact``. Sentences and identifiers: BM25 (see the module docstring), hits holding the
        whole query ``exact`` and each with the share of the query's term weight it matches
        (``coverage``). Works without an index (ripgrep alone). Raises
        :class:`~search.workspace.ripgrep.RegexError` for a regex ripgrep refuses and
        :class:`~search.workspace.ripgrep.RipgrepTimeoutError` past the retriever's timeout."""
        index = self.index if self.index is not None and self.index.exists() else None
        if query.shape in ("literal", "regex"):
            assert query.literal is not None
            command = RgCommand(
                "json",
                (query.literal,),
                scope.targets,
                scope.globs,
                scope.language,
                fixed=query.shape == "literal",
                word=query.usages,
                max_count=ripgrep.MAX_COUNT_PER_FILE,
            )
            matches = ripgrep.run_rg(self.settings, command, timeout=self.timeout).lines
            # ripgrep's smart case finds "user-agent" in "User-Agent" too: the places that hold the
            # string as it was typed are marked (a regex has no such text)
            typed = query.literal if query.shape == "literal" else None
            hits = self._rank_counts(
                matches, self._mapper(index, matches), limit, code_first=query.usages, typed=typed
            )
            phrase = collapsed(query.asked) if query.usages else ""
            if len(phrase.split(" ")) >= 2:
                # usages asked for in words the code may hold ("getSchema is called", a test's message):
                # those words hold the name, so the lines ripgrep found it on are where they can be
                hits = self._marked_asked(phrase, _holding(phrase, matches), hits, index)
            return hits
        return self._search_sentence(query, scope, index, limit)

    def _search_sentence(
        self, query: AnalysedQuery, scope: ResolvedScope, index: Index | None, limit: int
    ) -> list[Hit]:
        terms = [t for t in query.terms if t]
        phrase = query.phrase
        whole = len(phrase) >= 3 and phrase.lower() not in terms  # worth finding verbatim
        if not terms and not whole:
            return []
        tokens = query.tokens
        # a word code abbreviates matches its short forms too, as one term (indexer.short_forms): in
        # the indexed chunks and in the live files alike
        short = dict(query.short_forms)
        terms += [f for forms in short.values() for f in forms if f not in terms]
        if index is None:
            return self._rank_everywhere(
                terms, tokens, short, phrase, whole, scope, None, limit, query.spaced
            )
        # A warm server's listing is kept between searches (watched for changes) and answers at once;
        # only a listing ripgrep must make again runs beside the BM25 ranking.
        kept = kept_changes(self.settings, index, scope)
        listing = (
            _done(kept)
            if kept is not None
            else _POOL.submit(live_changes, self.settings, index, scope, timeout=self.timeout)
        )
        try:
            lexical = index.lexical()
            allow = scope_mask(lexical, scope)
            ranked = bm25_hits(lexical, tokens, allow, limit, short)
            holders = lexical.files_holding(query.word_tokens, allow=allow) if whole else []
        except IndexStoreError:  # an unreadable chunks table: ripgrep's ranking still answers
            listing.cancel()
            return self._rank_everywhere(
                terms, tokens, short, phrase, whole, scope, index, limit, query.spaced
            )
        # The verbatim search reads only the indexed files that could hold the query; changed files
        # are searched for it, and for its terms, once the listing says which they are.
        jobs = []
        read = find_verbatim(str(self.settings.root), phrase, holders) if whole and holders else None
        if whole and (holders is None or holders) and read is None:
            jobs.append(self._spawn([phrase], [], _narrowed(scope, holders), cap=False))
        changes = listing.result()
        if changes is None:
            self._collect(jobs)
            return self._rank_everywhere(
                terms, tokens, short, phrase, whole, scope, index, limit, query.spaced
            )
        if changes.changed:
            few = _narrowed(scope, changes.changed)
            jobs.append(self._spawn([phrase] if whole else [], terms, few, cap=few is scope))
        lines = (read or []) + self._collect(jobs)
        found = self._rank_live(phrase, tokens, short, lines, index, limit, query.spaced)
        if query.locations:
            found = self._with_locations(query, changes, index, scope, found)
        if whole:
            found = self._with_declared(phrase, lines, found, index, scope)
            if len(phrase.split()) > MIN_WORDS and looks_printed(phrase) and not any(h.exact for h in found):
                found = self._with_filled(phrase, ranked, found, changes)
        out = merge_live(ranked, found, changes, limit)
        if query.asked and not query.usages:
            out = self._with_asked(query, out, lexical, allow, scope, changes, index)
        return out

    def _with_asked(
        self,
        query: AnalysedQuery,
        out: list[Hit],
        lexical: LexicalIndex,
        allow: np.ndarray | None,
        scope: ResolvedScope,
        changes: LiveChanges,
        index: Index,
    ) -> list[Hit]:
        """``out`` (the ranking of a definition's name) with the chunks that hold the words the
        definition was asked for in (``query.asked``, "HTTPSConnection constructor.") verbatim marked ``asked`` (2 as
        written, case included; 1 in another case), those it does not rank after it, in the
        workspace's order: the ranking keeps a few such places right after the definitions. Found as a
        sentence's verbatim search finds its words in the indexed files that can hold them (read here,
        more by ripgrep; none where the index cannot tell which, or more than :data:`MAX_TARGETS`) and
        in the files changed since indexing; more than :data:`MAX_ASKED` places, none."""
        phrase = collapsed(query.asked)
        if len(phrase.split(" ")) < 2:
            return out
        try:
            holders = lexical.files_holding(query.asked_tokens, allow=allow)
        except IndexStoreError:
            return out
        if holders is None or len(holders) > MAX_TARGETS:
            holders = []  # not told by the index (a partial word), or not rare: no search of the workspace
        read = find_verbatim(str(self.settings.root), phrase, holders) if holders else []
        jobs = [] if read is not None else [self._spawn([phrase], [], _narrowed(scope, holders), cap=False)]
        if changes.changed:
            jobs.append(self._spawn([phrase], [], _narrowed(scope, changes.changed), cap=False))
        return self._marked_asked(phrase, (read or []) + self._collect(jobs), out, index)

    def _marked_asked(
        self, phrase: str, lines: list[RgLine], out: list[Hit], index: Index | None
    ) -> list[Hit]:
        """``out`` with the chunks of ``lines`` (ripgrep's, case-insensitive, of ``phrase``) marked
        ``asked`` (2 where a line holds it as written), those it does not hold appended in the
        workspace's order; none where more than :data:`MAX_ASKED` chunks hold it in any case and as
        written."""
        mapper = self._mapper(index, lines)
        level: dict[Span, int] = {}
        meta: dict[Span, tuple[str | None, str | None, str | None]] = {}
        for line in lines:
            span, symbol, kind, language = mapper.span(line.path, line.line)
            written = any(collapsed(sub) == phrase for sub in line.submatches)
            level[span] = max(level.get(span, 0), 2 if written else 1)
            meta[span] = (symbol, kind, language)
        if len(level) > MAX_ASKED:  # common in any case: rare as written, perhaps
            level = {span: n for span, n in level.items() if n == 2}
        if not level or len(level) > MAX_ASKED:
            return out
        marked = [replace(h, asked=level.pop(h.span)) if h.span in level else h for h in out]
        return marked + [Hit(span, 0.0, *meta[span], asked=level[span]) for span in sorted(level)]

    def _with_locations(
        self, query: AnalysedQuery, changes: LiveChanges, index: Index, scope: ResolvedScope, found: list[Hit]
    ) -> list[Hit]:
        """``found`` with, first, the chunk that holds each line the query names (``path:line``, a
        traceback's frame: :mod:`search.engine.retrievers.located`), in the query's order, as places of
        it (a line window where the file has no chunk); a path that names no file of the workspace in
        scope, or several, places nothing."""
        by_name = files_by_name(changes.present)
        keep = in_scope(scope)
        wanted: list[tuple[str, int]] = []
        for named, line in query.locations:
            path = resolve(named, lambda name: by_name.get(name, ()))
            if (
                path is not None
                and keep(path, ripgrep.language_of(self.settings.root, path))
                and (path, line) not in wanted
            ):
                wanted.append((path, line))
        if not wanted:
            return found
        mapper = SpanMapper(index, self.settings.chunks.window_lines, {path for path, _ in wanted})
        located: dict[Span, Hit] = {}
        for path, line in wanted:
            span, symbol, kind, language = mapper.span(path, line)
            if span not in located:
                located[span] = Hit(
                    span, 1.0, symbol, kind, language,
                    exact=True, coverage=1.0, exact_case=True, loose=LOCATED,
                )  # fmt: skip
        return [*located.values(), *(h for h in found if h.span not in located)]

    def _with_filled(
        self, phrase: str, ranked: list[Hit], found: list[Hit], changes: LiveChanges
    ) -> list[Hit]:
        """``found`` with, as places of ``phrase``, BM25's chunks that hold a format string the phrase
        fills (:mod:`search.engine.retrievers.template`): a message pasted as a program printed it.
        Chunks of files changed since indexing are left out (their lines have moved)."""
        changed = set(changes.changed)
        chunks = [h for h in ranked if h.span.path not in changed]
        spans = [(h.span.path, h.span.start_line, h.span.end_line) for h in chunks]
        places = filled_places(str(self.settings.root), phrase, spans)
        if not places:
            return found
        filled: dict[Span, Hit] = {}
        for path, line, cased in places:
            chunk = next(
                h for h in chunks if h.span.path == path and h.span.start_line <= line <= h.span.end_line
            )
            seen = filled.get(chunk.span)
            filled[chunk.span] = Hit(
                chunk.span, chunk.score, chunk.symbol, chunk.kind, chunk.language,
                exact=True, coverage=1.0, exact_case=cased or (seen is not None and seen.exact_case),
                loose=FILLED,
            )  # fmt: skip
        return [*(h for h in found if h.span not in filled), *filled.values()]

    def _with_declared(
        self, phrase: str, lines: list[RgLine], found: list[Hit], index: Index, scope: ResolvedScope
    ) -> list[Hit]:
        """``found`` with, before each place of ``phrase`` in a declaration file's doc comment, the
        definition in code of what that comment declares (:mod:`search.engine.retrievers.declared`),
        as a place of the phrase too: the sentence documents it."""
        try:
            declared = declared_definitions(str(self.settings.root), index, phrase, lines)
        except PlaitError as exc:  # an improvement on the text ranking: never a failed text leg
            log.warning("declared definitions not looked up: %s", exc)
            return found
        keep = in_scope(scope)
        rows = {key: [r for r in defs if keep(r.path, r.language)] for key, defs in declared.items()}
        if not any(rows.values()):
            return found
        mapper = SpanMapper(
            index, self.settings.chunks.window_lines, {r.path for d in rows.values() for r in d}
        )
        out = list(found)
        for (path, line), defs in rows.items():
            place = next(
                (
                    h
                    for h in out
                    if h.exact and h.span.path == path and h.span.start_line <= line <= h.span.end_line
                ),
                None,
            )
            if place is None:
                continue
            for row in defs:
                span = mapper.span(row.path, row.start_line)[0]
                out = [h for h in out if h.span != span]  # a hit of its own, if any, becomes the place
                at = out.index(place)
                hit = Hit(
                    span, place.score, row.qualified_name, row.kind, row.language,
                    exact=True, coverage=1.0, exact_case=place.exact_case, loose=place.loose,
                )  # fmt: skip
                out.insert(at, hit)
        return out

    def _rank_everywhere(
        self,
        terms: list[str],
        tokens: tuple[str, ...],
        short: Mapping[str, Sequence[str]],
        phrase: str,
        whole: bool,
        scope: ResolvedScope,
        index: Index | None,
        limit: int,
        spaced: str | None,
    ) -> list[Hit]:
        """ripgrep's ranking alone: the terms over the whole scope, capped per file (a common word
        matches thousands of lines), and beside them the whole query verbatim, uncapped (an occurrence
        late in a big file counts)."""
        jobs = [self._spawn([], terms, scope, cap=True) if terms else None]
        jobs.append(self._spawn([phrase], [], scope, cap=False) if whole else None)
        return self._rank_live(phrase, tokens, short, self._collect(jobs), index, limit, spaced)

    def _spawn(
        self, phrases: list[str], terms: list[str], scope: ResolvedScope, *, cap: bool
    ) -> cf.Future[list[RgLine]]:
        """ripgrep, case-insensitive, for ``phrases`` verbatim and for the words holding ``terms``:
        a term matches the whole run of word characters around it, which :func:`code_tokens` then
        tokenises as it tokenises chunks, so live files and indexed chunks score the same tokens."""
        patterns = [phrase_pattern(p) for p in phrases]  # a phrase first: rg prefers it at a tie
        patterns += [rf"\w*{rg_escape(t)}\w*" for t in terms]
        command = RgCommand(
            "matches",
            tuple(patterns),
            scope.targets,
            scope.globs,
            scope.language,
            case="insensitive",
            max_count=ripgrep.MAX_COUNT_PER_FILE if cap else None,
        )
        return _POOL.submit(lambda: ripgrep.run_rg(self.settings, command, timeout=self.timeout).lines)

    @staticmethod
    def _collect(jobs: Iterable[cf.Future[list[RgLine]] | None]) -> list[RgLine]:
        return [m for job in jobs if job is not None for m in job.result()]

    def _rank_live(
        self,
        phrase: str,
        tokens: tuple[str, ...],
        short: Mapping[str, Sequence[str]],
        matches: list[RgLine],
        index: Index | None,
        limit: int,
        spaced: str | None,
    ) -> list[Hit]:
        n_files = index.snapshot().count("files") if index is not None else 0
        mapper = self._mapper(index, matches)
        return self._rank_terms(phrase, tokens, short, matches, mapper, limit, n_files, spaced)

    def _mapper(self, index: Index | None, matches: list[RgLine]) -> SpanMapper:
        return SpanMapper(index, self.settings.chunks.window_lines, {m.path for m in matches})

    def _rank_counts(
        self,
        matches: list[RgLine],
        mapper: SpanMapper,
        limit: int,
        *,
        code_first: bool = False,
        typed: str | None = None,
    ) -> list[Hit]:
        """Chunks by their matching lines and matches, every one ``exact`` (ripgrep verified it); with
        ``code_first`` (a name's usages), those where some matching line is code before those that
        mention the name in comments only; ``exact_case`` where a match is ``typed`` as written."""
        scores: dict[Span, float] = defaultdict(float)
        code: dict[Span, bool] = defaultdict(bool)
        cased: set[Span] = set()
        meta: dict[Span, tuple[str | None, str | None, str | None]] = {}
        for m in matches:
            span, sym, kind, lang = mapper.span(m.path, m.line)
            scores[span] += 1.0 + 0.1 * len(m.submatches)
            if code_first and not m.text.lstrip().startswith(_COMMENT_LEADERS):
                code[span] = True
            if typed is not None and typed in m.submatches:
                cased.add(span)
            meta[span] = (sym, kind, lang)
        ranked = sorted(scores.items(), key=lambda kv: (not code[kv[0]], -kv[1], kv[0]))[:limit]
        return [Hit(span, score, *meta[span], exact=True, exact_case=span in cased) for span, score in ranked]

    def _rank_terms(
        self,
        phrase: str,
        tokens: tuple[str, ...],
        short: Mapping[str, Sequence[str]],
        matches: list[RgLine],
        mapper: SpanMapper,
        limit: int,
        n_files: int,
        spaced: str | None,
    ) -> list[Hit]:
        """BM25 over chunk spans from ripgrep's matches (the matched words tokenised by
        :func:`code_tokens`, tf per span, df per file; the indexed chunks' k1 and b, and their short
        forms, ``short``, counted as the token they stand for), plus a boost for tokens in the chunk's
        definition name and for a verbatim occurrence of the whole query (in any case; ``exact_case``
        marks the spans that hold it as written). A query written with its own spacing (``spaced``, a
        row of an aligned table) occurs verbatim where that spacing is held, as ripgrep would find it,
        when some span holds it so; where none does, with any spacing."""
        written = phrase
        phrase = phrase.lower()
        keys = tokens or tuple(code_tokens(phrase))  # none at all for "%s <%s>": only verbatim counts
        # a token found, and the query token it counts as (itself, or the word a short form stands for)
        counts_as = {f: t for t in keys for f in short.get(t, ()) if f not in keys} | {t: t for t in keys}
        wanted = frozenset(counts_as)
        verbatim = phrase if keys != (phrase,) else None  # a one-token query has no phrase to find
        files_with: dict[str, set[str]] = {t: set() for t in keys}
        Key = tuple[str, int, int]
        tf: dict[Key, dict[str, int]] = {}
        meta: dict[Key, tuple[str | None, str | None, str | None]] = {}
        exact: set[Key] = set()
        as_written: set[Key] = set()
        in_line: set[Key] = set()  # holds the whole query within one line (not only across a break)
        spacing: set[Key] = set()  # holds it with the spacing it was written with (``spaced``)
        spaced = spaced.lower() if spaced is not None and verbatim is not None else None
        # matched text → (the query tokens it holds, it is the whole query, as written, case included)
        found: dict[str, tuple[tuple[str, ...], bool, bool]] = {}
        for m in matches:
            span, sym, kind, lang = mapper.locate(m.path, m.line)
            counts = tf.get(span)
            if counts is None:
                counts = tf[span] = defaultdict(int)
                meta[span] = (sym, kind, lang)
            for sub in m.submatches:
                seen = found.get(sub)
                if seen is None:
                    whole = verbatim is not None and collapsed(sub.lower()) == verbatim
                    seen = found[sub] = (
                        tuple(counts_as[t] for t in code_tokens(sub) if t in wanted),
                        whole,
                        whole and collapsed(sub) == written,
                    )
                held, whole, cased = seen
                if whole:
                    exact.add(span)
                    if "\n" not in sub:  # the verbatim reader's occurrence across lines reads so
                        in_line.add(span)
                    if sub.lower() == spaced:
                        spacing.add(span)
                if cased:
                    as_written.add(span)
                for t in held:
                    if t in files_with:
                        files_with[t].add(m.path)
                        counts[t] += 1
        if spacing:  # "spam       41.9999" is held so once, and as "spam 41.9999" in twenty tables
            exact &= spacing
            in_line &= spacing
            as_written &= spacing
        n_files = max(n_files, len({m.path for m in matches}), 1)
        idf = {
            t: math.log(1 + (n_files - len(files_with[t]) + 0.5) / (len(files_with[t]) + 0.5)) for t in keys
        }
        total_idf = sum(idf.values()) or 1.0  # 1 when the query has no token: verbatim is all there is
        scored = []
        for span, counts in tf.items():
            if not counts and span not in exact:
                continue
            dl = span[2] - span[1] + 1
            norm = BM25_K1 * (1 - BM25_B + BM25_B * dl / AVG_CHUNK_LINES)
            score = sum(idf[t] * c * (BM25_K1 + 1) / (c + norm) for t, c in counts.items())
            name = set(code_tokens((meta[span][0] or "").rsplit(".", 1)[-1]))
            score += sum(idf[t] * NAME_BOOST for t in counts if t in name)
            if span in exact:
                score += total_idf
            cov = 1.0 if span in exact else sum(idf[t] for t in counts) / total_idf
            scored.append((score, span, cov))
        scored.sort(key=lambda x: (-x[0], x[1]))
        return [
            Hit(
                Span(*span),
                score,
                *meta[span],
                exact=span in exact,
                coverage=cov,
                exact_case=span in as_written,
                loose=WRAPPED if span in exact and span not in in_line else VERBATIM,
            )
            for score, span, cov in scored[:limit]
        ]


def _done(changes: LiveChanges) -> cf.Future[LiveChanges | None]:
    """``changes`` as the finished future a listing made by ripgrep would be."""
    future: cf.Future[LiveChanges | None] = cf.Future()
    future.set_result(changes)
    return future


def _narrowed(scope: ResolvedScope, paths: list[str] | None) -> ResolvedScope:
    """``scope`` limited to ``paths`` (already inside it), or ``scope`` itself when they are unknown or
    too many to name."""
    if paths is None or len(paths) > MAX_TARGETS:
        return scope
    return replace(scope, paths=tuple(paths))
