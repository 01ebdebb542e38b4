"""Symbol retrieval from the tree-sitter symbol index.

An identifier query is looked up as a name (exact, qualified, case/underscore-insensitive, prefix,
fuzzy). In a natural-language query, identifier-like tokens are looked up the same way and plain
words only by exact or normalised name, so a sentence does not flood results with prefix matches;
so are a topic's runs of adjacent words, joined ("json element" finds ``JsonElement``). A sentence
documenting one function is offered the functions whose names its plain words spell ("The Jinja
environment used to load templates.": ``jinja_env``), after the names looked up.
Each definition maps to the chunk holding its first line, so it fuses with the other retrievers.
For an identifier query, a definition of exactly that name (case included) is marked ``exact``: the
engine puts such definitions above mere mentions. A request for a kind of definition ("where is the
console class defined") marks one of that kind in another case or with other separators too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from indexer import DATA_KINDS
from search.engine.query import AnalysedQuery, bare_name
from search.engine.retrievers import ResolvedScope
from search.engine.retrievers.text import SpanMapper
from search.types import Hit, Span

if TYPE_CHECKING:
    from indexer import Index, SymbolRow

STRONG_MATCH = 0.8
EXACT_MATCHES = frozenset({"exact", "qualified"})
FOLDED_MATCHES = frozenset({"case", "normalised"})  # the name in another case or with other separators
KEEP_RATIO = 0.8
# What a type's constructor is named, in the languages the symbol index reads: JavaScript's and
# TypeScript's ``constructor``, Python's ``__init__``, Ruby's ``initialize``, PHP's ``__construct``,
# Swift's ``init``, Rust's ``new`` by convention, and the type's own name (Java, C#, C++, Kotlin).
CONSTRUCTOR_NAMES = ("constructor", "__init__", "initialize", "__construct", "init", "new")
# A constructor asked for goes before its type, which is the answer only where it declares none.
CONSTRUCTOR_LIFT = 1.1
# The functions a function sentence's words spell the names of, at most (after the names looked up;
# BENCHMARKS §10, forty-seventh session), each scored below any name looked up.
SPELLED_LIMIT = 5
SPELLED_SCORE = 0.1


class SymbolRetriever:
    name = "symbol"

    def __init__(self, index: Index) -> None:
        self.index = index

    def search(self, query: AnalysedQuery, scope: ResolvedScope, *, limit: int) -> list[Hit]:
        names: list[tuple[str, bool]] = []  # (name, strict only)
        if query.shape == "identifier":
            names = [(i, False) for i in query.names]
        elif query.shape == "literal":
            names = [(i, True) for i in query.identifiers]
        members = query.shape != "natural"  # fields, variants, variables: for a name, not in a sentence
        if query.shape == "natural":
            lowered = {i.lower() for i in query.identifiers}
            # "Parse parses the command-line flags from os.Args[1:]." names ``Parse`` first, before the
            # names it mentions (a name looked up later weighs less; an exact ``Args`` would leave it
            # out); "Return specifies …": ``Return``, a stop word as a word
            opening = query.opening_word(verb=True)
            if opening is not None and opening.lower() not in lowered:
                names.append((opening, True))
                lowered.add(opening.lower())  # looked up: not again as a word
            # "Reverse of :meth:`dumps`." documents ``loads``: the names of the opposite before the
            # names it mentions
            names += [(o, True) for o in query.opposites]
            names += [(i, False) for i in query.identifiers]
            names += [(w, True) for w in query.words if w not in lowered]
            names += [(c, True) for c in query.compounds]  # "json element": JsonElement
        path_prefix = scope.path if scope.kind in ("dir", "file") else None
        spelled = self._spelled(query, scope, path_prefix)
        if not names:
            if not spelled:
                return []  # most sentences: nothing to look up, no chunk spans to read
            return self._spelled_hits(spelled, SpanMapper(self.index, 50, {r.path for r in spelled}))[:limit]
        best: dict[tuple[str, int], tuple[float, Hit]] = {}
        found = []
        mark_exact = query.shape == "identifier"
        made: list[tuple[str, bool]] = []
        if query.shape == "identifier" and "constructor" in query.kinds:
            # "WebSocket constructor", "Create a new `Event`.": the constructors of the type itself
            made = [(f"{n}.{c}", True) for n in query.names for c in (*CONSTRUCTOR_NAMES, bare_name(n))]
        looked_up = self.index.lookup_many(
            [*made, *names], language=scope.language, globs=scope.globs, path_prefix=path_prefix,
            limit=limit * 2,
        )  # fmt: skip
        for matches in looked_up[: len(made)]:
            # only the type's own (the lookup also offers every other ``__init__`` by its bare name),
            # and no field that happens to be named ``init`` or ``new``
            found += [
                (m, CONSTRUCTOR_LIFT)
                for m in matches
                if m.match == "qualified" and m.symbol.kind not in DATA_KINDS and scope.allows(m.symbol.path)
            ]
        for n, matches in enumerate(looked_up[len(made) :]):
            weight = 1.0 / (1 + 0.15 * n)
            # A data member is found in a query that is a name (the symbol table matches one only as
            # written or qualified: `Tokenizer` is not the `tokenizer` attribute), not in a sentence: one
            # that mentions `path_router` is about the router, not the field that holds one (BENCHMARKS
            # §10, twenty-fourth session).
            if not members:
                matches = [m for m in matches if m.symbol.kind not in DATA_KINDS]
            found += [(m, weight) for m in matches if scope.allows(m.symbol.path)]
        # one read of the chunks' spans for the names looked up and the names spelled alike
        mapper = SpanMapper(self.index, 50, {m.symbol.path for m, _ in found} | {r.path for r in spelled})
        for m, weight in found:
            row = m.symbol
            span = _span_of(mapper, row)
            # "where is the console class defined": the class ``Console``, as well as a ``console`` method
            exact = mark_exact and (
                m.match in EXACT_MATCHES or (row.kind in query.kinds and m.match in FOLDED_MATCHES)
            )
            hit = Hit(span, m.score * weight, row.qualified_name, row.kind, row.language, exact=exact)
            key = (span.path, span.start_line)
            prev = best.get(key)
            score = m.score * weight + (prev[0] * 0.1 if prev else 0.0)
            if prev is not None and (
                (prev[1].exact and not hit.exact) or (not mark_exact and prev[1].score > hit.score)
            ):
                # one chunk, two definitions: it goes by the exact one, and in a sentence by the better
                # matched (``Comparer`` as written, not the ``comparer`` beside it, in another case)
                hit = prev[1]
            if prev is None or score > prev[0]:
                best[key] = (score, hit)
        ranked = sorted(best.values(), key=lambda sh: (-sh[0], sh[1].span))
        if ranked and ranked[0][0] >= STRONG_MATCH:
            # An exact (or case/separator-insensitive) definition exists: near misses are noise in fusion.
            ranked = [sh for sh in ranked if sh[0] >= ranked[0][0] * KEEP_RATIO]
        out = [Hit(h.span, s, h.symbol, h.kind, h.language, exact=h.exact) for s, h in ranked[:limit]]
        listed = {(h.span.path, h.span.start_line) for h in out}
        after = [
            h for h in self._spelled_hits(spelled, mapper) if (h.span.path, h.span.start_line) not in listed
        ]
        return out + after[: max(0, limit - len(out))]

    @staticmethod
    def _spelled_hits(rows: list[SymbolRow], mapper: SpanMapper) -> list[Hit]:
        """The spelled definitions as hits, each scored below any name looked up, in their order."""
        return [
            Hit(_span_of(mapper, row), SPELLED_SCORE / (1 + n), row.qualified_name, row.kind, row.language)
            for n, row in enumerate(rows)
        ]

    def _spelled(
        self, query: AnalysedQuery, scope: ResolvedScope, path_prefix: str | None
    ) -> list[SymbolRow]:
        """For a sentence documenting one function that does not open with its name, the functions
        whose names its plain words spell (``AnalysedQuery.spelled``, ``spelled_joined``: "in-place"
        spells ``fill_inplace``, and ``widths``: "an unsigned 32 bit integer" spells ``get_u32``'s
        ``u32``): "The Jinja environment used to load templates." documents ``jinja_env``, which
        neither the words nor the meaning may rank among their first. After the names looked up, in
        the order of :meth:`indexer.Index.spelled_definitions`, the methods of the object it calls
        "this" or closes on first ("Returns the length of this match.": ``Match.len``; "Removes all
        the values from the trie.": ``Trie.clear``); the ranking lifts the one the words spell."""
        if query.form != "function" or not query.spelled or query.opens_with_name or "test" in query.wants:
            return []  # a test's claim or stated check documents the test, not the functions it names
        return [
            r
            for r in self.index.spelled_definitions(
                query.spelled | query.spelled_joined | query.widths,
                owners=query.receivers,
                globs=scope.globs,
                path_prefix=path_prefix,
                limit=SPELLED_LIMIT,
            )
            if (scope.language is None or r.language == scope.language) and scope.allows(r.path)
        ]


def _span_of(mapper: SpanMapper, row: SymbolRow) -> Span:
    """The chunk holding ``row``'s first line, or where the doc comment or the decorators above its
    name fill that chunk, the chunk holding the line of its name (its own lines where no chunk
    does): a search for a name shows the definition, not the top of a long doc comment."""
    head = max(row.name_line, row.start_line)
    span = mapper.span(row.path, row.start_line)[0]
    if span.end_line < head:
        span = mapper.span(row.path, head)[0]
    elif row.kind in DATA_KINDS and span.end_line < row.end_line:
        # A long struct is cut into overlapping windows: the field and the doc comment above it may
        # both be in the next one, where the first line alone ends this one with the comment.
        whole = mapper.span(row.path, row.end_line)[0]
        if whole.start_line <= row.start_line:
            span = whole
    if span.start_line > head or span.end_line < head:
        span = Span(row.path, row.start_line, row.end_line)
    return span
