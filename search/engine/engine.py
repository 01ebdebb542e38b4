"""The query engine: one request fans out to the retrievers in parallel and is fused with RRF.

Each retriever runs in a worker thread with its own deadline; one that fails or times out is
reported in ``SearchResponse.degraded`` and the others still answer. Input errors (empty query,
invalid regex, a scope outside the root) raise :class:`QueryError` / ``PathOutsideRootError``.
"""

from __future__ import annotations

import concurrent.futures as cf
import logging
import math
import os
import threading
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, cast

from indexer import (
    DATA_KINDS,
    ConfigGlobs,
    IndexStoreError,
    Settings,
    TextView,
    has_tables,
    read_beneath,
    stem_words,
)
from models import PlaitError
from search.engine.fusion import DEFAULT_K, Fused, fuse
from search.engine.query import (
    CONSTRUCTOR_KINDS,
    MARK_HINT,
    AnalysedQuery,
    NameRequest,
    analyse,
    as_definition,
    as_usages,
    creation_request,
    definition_request,
    in_dialect,
    named_in_sentence,
    usage_request,
)
from search.engine.ranking import Ranked, RankingConfig, rank
from search.engine.retrievers import ResolvedScope, Retriever
from search.engine.retrievers.live import live_changes
from search.engine.retrievers.symbol import EXACT_MATCHES, SymbolRetriever
from search.engine.retrievers.text import TextRetriever
from search.engine.retrievers.vector import VectorRetriever
from search.errors import QueryError
from search.types import MODE_RETRIEVERS, Coverage, Hit, Query, Result, Scope, SearchResponse, Span
from search.workspace.scope import parse_scope, resolve_scope

if TYPE_CHECKING:
    from indexer import Index, SymbolMatch, TextView
    from search.engine.chunk_vectors import ChunkVectors
    from search.engine.delta import LocalDelta
    from search.workspace.guard import GuardRule

__all__ = ["Engine", "parse_scope", "retrievers_for"]  # parse_scope: the one parser, named here for callers

log = logging.getLogger(__name__)

MAX_QUERY_CHARS = 2000
MAX_LIMIT = 200
SNIPPET_LINES = 24
SNIPPET_CHARS = 1600
WHOLE = ResolvedScope("ws", None, None, (), None)  # the whole workspace, unfiltered
# Query-aware weights for weighted RRF: set from the query shape by reasoning, checked on dev corpora
# (rich, jinja2, click) that are not among the corpora reported in BENCHMARKS.md; plain RRF stays
# selectable (--fusion rrf).
WEIGHTS: dict[str, dict[str, float]] = {
    "literal": {"text": 1.5, "symbol": 0.5, "vector": 0.5},
    "regex": {"text": 1.5, "symbol": 0.3, "vector": 0.3},
    "identifier": {"text": 0.8, "symbol": 1.6, "vector": 0.6},
    # Sentences: the text and dense retrievers count alike, the text one scaled by how much of the
    # query's term weight its best hits match (see fusion_weights). A plain word that happens to name a
    # definition is weak evidence (symbol 0.05) unless the sentence holds an identifier.
    "natural": {"text": 2.0, "symbol": 0.05, "vector": 2.0},
}
NATURAL_IDENTIFIER_SYMBOL = 0.4
# The fast tier's static vectors find what a sentence describes less often than the transformer's (on
# function sentences alone MRR@10 0.59 against 0.79, BENCHMARKS §9): fused with them, a sentence's dense
# leg counts a quarter of the text leg's full weight, less than the full tier's equal share.
FAST_TIER_SENTENCE_VECTOR = 0.5
# The tier named for a fast tier's sentence whose dense ranks are the full model's order of the
# retrievers' first candidates (Engine.rerank): fused with the full tier's weights.
RERANKED = "reranked"
PLAIN_POOL = 30  # candidates per retriever without the ranking (a single mode, plain RRF)
NAMING_HITS = 10  # symbol hits a "Name verbs …" sentence's first word is looked up in
COVERAGE_HITS = 3  # text hits whose term coverage sets the text weight of a natural-language query


def fusion_weights(
    query: AnalysedQuery,
    rankings: Mapping[str, Sequence[Hit]],
    tier: str | None = None,
    *,
    dense_margin: float = 0.0,
) -> tuple[str, dict[str, float]]:
    """The effective query kind and the weighted-RRF weights for it.

    A natural-language query that the text retriever found verbatim is fused as a literal. For other
    sentences the text retriever counts as much as the dense one times the best idf-weighted share of
    the query's terms among its first hits: lexical hits that match one word in five do not outvote
    the dense ones, and hits that match them all count as much. The symbol leg counts more
    (:data:`NATURAL_IDENTIFIER_SYMBOL`) where the sentence writes a name, unless it documents one
    function without opening with that function's name: it then names what the function takes,
    returns or works on ("… get this element as a JsonNull."). ``tier``: the vector tier the dense
    hits come from (``fast``: its sentence weight is :data:`FAST_TIER_SENTENCE_VECTOR`).

    ``dense_margin`` (``[ranking] dense_margin``; 0: off): for a sentence that documents one function,
    the full model's dense leg, searched over the whole index (not :data:`RERANKED`), counts in full
    where the cosine of its first hit exceeds that of its tenth (:data:`MARGIN_RANK`) by the margin,
    and in proportion below: a first hit barely nearer than the tenth is a neighbourhood found, not the
    function. On 652 such sentences of seven development corpora the dense leg's MRR@10 is 0.72 in the
    fifth with the widest gaps and 0.14 in the narrowest (where the text leg holds 0.36). Topics and
    questions ask for an area, which a flat neighbourhood still describes: not for them.
    """
    kind = query.shape
    text_hits = rankings.get("text", ())[:COVERAGE_HITS]
    if kind == "natural" and _found_verbatim(rankings):
        # Found verbatim, it is fused as a literal, but it is still a sentence: a plain word of it that
        # names a definition ("reducer" in a sentence about reducers) is as weak evidence as ever.
        literal = dict(WEIGHTS["literal"])
        literal["symbol"] = NATURAL_IDENTIFIER_SYMBOL if query.identifiers else WEIGHTS["natural"]["symbol"]
        return "literal", literal
    weights = dict(WEIGHTS[kind])
    if kind == "natural":
        weights["text"] *= max((h.coverage for h in text_hits), default=0.0)
        if tier == "fast":
            weights["vector"] = FAST_TIER_SENTENCE_VECTOR
        elif dense_margin > 0 and query.form == "function" and tier != RERANKED:
            weights["vector"] *= _dense_confidence(rankings.get("vector", ()), dense_margin)
        # A sentence documenting one function names what it takes, returns or works on, unless it opens
        # with its name, and a test's claim names the code under test: the definitions of those names
        # are no more its answer than a plain sentence's.
        if (
            query.identifiers
            and (query.form != "function" or query.opens_with_name)
            and not query.tests_claim
        ):
            weights["symbol"] = NATURAL_IDENTIFIER_SYMBOL
    return kind, weights


# What ``--explain`` calls the files of a role a query asks for (search.engine.query.ROLE_WORDS).
_ROLE_LABELS = {
    "test": "tests",
    "fixture": "fixtures and mocks",
    "example": "examples",
    "docs": "documentation",
    "vendored": "vendored code",
    "generated": "generated code",
    "compat": "compatibility code",
    "stub": "declaration files",
    "reexport": "re-exporting modules",
    "hidden": "hidden files",
    "manifest": "manifests and build settings",
}


def _short_forms_read(query: AnalysedQuery) -> str:
    """The short forms a function sentence's words also match, as ``--explain`` lists them: "cfg, conf,
    config (configuration)"."""
    words = {stem_words([w])[0]: w for w in query.words}
    return "; ".join(f"{', '.join(forms)} ({words.get(token, token)})" for token, forms in query.short_forms)


MARGIN_RANK = 10  # the dense hit whose cosine the first hit's is compared with (see fusion_weights)


def _dense_confidence(hits: Sequence[Hit], margin: float) -> float:
    """1 where the dense leg's first hit is at least ``margin`` nearer (in cosine) than its
    tenth (:data:`MARGIN_RANK`), less in proportion below; 1 where it has fewer hits (a narrow scope)."""
    if len(hits) < MARGIN_RANK:
        return 1.0
    return min(1.0, max(0.0, hits[0].score - hits[MARGIN_RANK - 1].score) / margin)


def _dense_note(
    query: AnalysedQuery, rankings: Mapping[str, Sequence[Hit]], tier: str | None, margin: float
) -> list[str]:
    """What ``--explain`` says when ``margin`` lowered the dense leg's weight (see fusion_weights)."""
    full = fusion_weights(query, rankings, tier)[1].get("vector")
    kept = fusion_weights(query, rankings, tier, dense_margin=margin)[1].get("vector")
    if not full or kept is None or kept == full:
        return []
    hits = rankings["vector"]
    gap = hits[0].score - hits[MARGIN_RANK - 1].score
    return [
        f"the dense retriever's first hit stands out from its tenth by {gap:.3f} in cosine "
        f"(margin {margin:g}): its ranks count ×{kept / full:.2f}"
    ]


SPELLED_NAMES = 8  # definitions looked up for two words that spell a name (one name among them reads so)


def pool_depth(
    query: AnalysedQuery, config: RankingConfig, rankings: Mapping[str, Sequence[Hit]] | None = None
) -> int:
    """Candidates per retriever: the ranking's pool for a sentence, whose order the file rules decide
    among many candidates; ``config.verified_pool`` at most for a name, a quoted string or a regex, and
    for a sentence that ``rankings`` show was found verbatim, whose first places the verifier decides
    (the definitions, the matches, the phrase's places)."""
    if not config.enabled:
        return PLAIN_POOL
    if query.usages:
        # every place that uses a name is verified alike: the ranking puts those in real code first,
        # and a much-tested name has more places in tests than a pool of 30 holds
        return config.usage_pool
    verified = query.shape != "natural" or (rankings is not None and _found_verbatim(rankings))
    return min(config.pool, config.verified_pool) if verified else config.pool


def _first(hits: Sequence[Hit], depth: int) -> list[Hit]:
    """A retriever's first ``depth`` hits, and after them the places of the words a name was asked for
    in (its definition or its usages) that its ranking left further down: the text retriever appends
    those it did not rank (a few at most), found verbatim, for the ranking to keep whatever their rank."""
    return [*hits[:depth], *(h for h in hits[depth:] if h.asked)]


def _found_verbatim(rankings: Mapping[str, Sequence[Hit]]) -> bool:
    """The text retriever's first hits hold the query itself (a sentence pasted from the code)."""
    return any(h.exact for h in rankings.get("text", ())[:COVERAGE_HITS])


def retrievers_for(mode: str, settings: Settings, index: Index | None) -> dict[str, Retriever]:
    """The retrievers of a mode, listed explicitly; without an index, only the text retriever."""
    made: dict[str, Retriever] = {}
    for name in MODE_RETRIEVERS[mode]:
        if name == "text":
            made[name] = TextRetriever(settings, index)
        elif index is None:
            continue
        elif name == "symbol":
            made[name] = SymbolRetriever(index)
        else:
            made[name] = VectorRetriever(index)
    return made


class Engine:
    """Search one workspace. Thread-safe for concurrent ``search`` calls; keep one per process."""

    def __init__(
        self,
        settings: Settings,
        *,
        index: Index | None = None,
        timeouts: Mapping[str, float] | None = None,
        workers: int = 6,
        local_delta: bool | None = None,
    ) -> None:
        """``local_delta``: answer the files that differ from the index from a parse made here
        (:meth:`with_delta`); by default only for an index elsewhere (object storage, another
        machine's), since a local index has its own writer (the watcher, ``plait index``) to catch up."""
        self.settings = settings
        self._index = index
        self._index_lock = threading.Lock()
        self._view: TextView | None = None  # what text searches read until the index is opened
        self.timeouts = {"text": 10.0, "symbol": 10.0, "vector": 30.0, **(timeouts or {})}
        self.ranking = RankingConfig.from_table(settings.ranking)
        self._generated_rules: list[GuardRule] | None = None
        self._globs: tuple[Callable[[str], bool] | None] | None = None  # see _left_out
        self.pool = cf.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="plait-retriever")
        self._reranked: ChunkVectors | None = None  # the fast tier's candidates, by the full model
        self.delta: LocalDelta | None = None
        if not settings.index_is_local if local_delta is None else local_delta:
            from search.engine.delta import LocalDelta  # parsing code: only for an engine keeping a delta

            self.delta = LocalDelta(settings)

    @property
    def index(self) -> Index:
        """The workspace's index, made on first use: a text search of a root without one never imports
        the index code (LanceDB, pyarrow)."""
        with self._index_lock:
            if self._index is None:
                from indexer import Index

                self._index = Index(self.settings)
            return self._index

    def has_index(self) -> bool:
        """Whether the workspace has an index to read (a local location without tables has none,
        which is decided without importing the index code)."""
        local = self._index is None and self.settings.index_is_local
        if local and not has_tables(Path(self.settings.index_dir)):
            return False
        return self.index.exists()

    def _text_view(self) -> Index | None:
        """For a text search in a process that has not opened the index: the files saved beside it for
        text searches (:mod:`indexer.textview`), read without LanceDB or pyarrow; ``None`` when they are
        not the published snapshot's (the index is then opened as for any search)."""
        if self._index is not None or not self.settings.index_is_local:
            return None
        from indexer import open_view

        view = self._view
        if view is None or not view.is_current():  # a long-lived process reads it again after a publish
            view = self._view = open_view(self.settings, lambda: self.index)
        # A TextView answers every read a text search makes of an Index (see indexer.textview).
        return cast("Index | None", view)

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)

    def warm(self) -> None:
        """Load the model and the in-memory tables now, so the first search does not pay for it."""
        if self.index.exists():
            self.index.lookup_symbols("warm")
            self.index.spelled_definitions(frozenset({"warm"}), limit=1)  # the index of names' parts
            self.index.lexical()
            self.index.chunk_spans(())
            try:
                self.index.nearest("warm up", limit=1)  # the model, the vector table and its row ids
            except IndexStoreError:  # vectors of another model, say: the search will say so
                self.index.embedder().embed_query("warm up")
            self._warm_rerank()

    def _warm_rerank(self) -> None:
        """With the fast tier searched, the full tier's model too, when the re-rank would use it: a first
        sentence then waits for its candidates' vectors only, not for the model's load."""
        searched = self.index.search_tier()
        if searched is None or searched[0] != "fast" or not self.ranking.reranks:
            return
        try:
            full = self.index.tier_embedder("full")
            if full.ready():  # never an export made here: a search does not wait for one either
                full.embed_query("warm up")
        except Exception as exc:  # the re-rank is an improvement: a search without it still answers
            log.warning("the full tier's model was not loaded ahead of the first sentence: %s", exc)

    def resolve_scope(self, scope: Scope) -> ResolvedScope:
        """``scope`` against this engine's root (:func:`search.workspace.scope.resolve_scope`: the path
        confined to the root and looked at without following symlinks, ``changed`` from git).

        Raises :class:`QueryError` (unknown language, missing path, wrong kind, no git work tree),
        ``PathOutsideRootError`` and ``InvalidPathError``."""
        return resolve_scope(self.settings, scope)

    def search(
        self,
        query: Query,
        scope: Scope | None = None,
        *,
        k: int = DEFAULT_K,
        fusion: str = "weighted",
    ) -> SearchResponse:
        """Answer ``query`` over ``scope`` (the whole workspace by default).

        The query is decoded once (:func:`search.engine.query.analyse`) and the scope resolved once
        (:meth:`resolve_scope`); the mode's retrievers then run in parallel on one pinned snapshot of
        the index, each under its own deadline, and their rankings are fused (``fusion``: ``weighted``
        RRF plus the ranking rules in hybrid mode, plain ``rrf`` with constant ``k``). Guarantees: at
        most ``query.limit`` results, best first, each a chunk-sized span with its snippet and each
        retriever's rank; a retriever that fails, times out or has no index yet is named in
        ``degraded`` while the others answer; results from files changed since indexing are marked
        ``stale``.

        Raises :class:`QueryError` for an empty or over-long query, an unknown mode or fusion, a limit
        outside 1..:data:`MAX_LIMIT`, an invalid regex or a bad scope; ``PathOutsideRootError`` /
        ``InvalidPathError`` for a scope path that leaves the root or is malformed.
        """
        text = query.text.strip()
        if not text:
            raise QueryError("the query is empty; pass words, an identifier, a quoted string or a regex.")
        if len(text) > MAX_QUERY_CHARS:
            raise QueryError(
                f"the query has {len(text):,} characters (limit {MAX_QUERY_CHARS:,}); "
                "shorten it to the words or identifiers that matter."
            )
        if query.mode not in MODE_RETRIEVERS:
            raise QueryError(f"unknown mode {query.mode!r}; use hybrid, text, symbol or semantic.")
        if not 1 <= query.limit <= MAX_LIMIT:
            raise QueryError(f"limit must be between 1 and {MAX_LIMIT}, got {query.limit}.")
        if query.page is not None and not 1 <= query.page <= query.limit:
            raise QueryError(f"page must be between 1 and the limit ({query.limit}), got {query.page}.")
        if fusion not in ("weighted", "rrf"):
            raise QueryError(f"unknown fusion {fusion!r}; use weighted or rrf.")
        resolved = self.resolve_scope(scope or Scope())
        degraded: dict[str, str] = {}
        notes: list[str] = []
        # One snapshot for the whole search: every retriever reads the same published tables, and
        # the files this checkout holds differently from it are answered by the local delta.
        index = self._text_view() if query.mode == "text" else None
        if index is None:
            index = self.with_delta(self.index.pinned()) if self.has_index() else None
        analysed = self.analyse(text, regex=query.regex, mode=query.mode, index=index)
        if analysed.asked and query.explain:
            named = " or ".join(sorted(analysed.kinds))
            kinds = f" ({'an' if named[:1] in 'aeiou' else 'a'} {named})" if named else ""
            if analysed.usages:
                notes.append(f"read as a search for the usages of {analysed.literal} (a whole word)")
            elif analysed.kinds == CONSTRUCTOR_KINDS:
                notes.append(f"read as a search for the constructor of {analysed.text} (or the type itself)")
            else:
                notes.append(f"read as a search for the definition of {analysed.text}{kinds}")
        active = retrievers_for(query.mode, self.settings, index)
        if analysed.short_forms and query.explain and "text" in active:
            notes.append(
                f"the text retriever counts {_short_forms_read(analysed)} as the words they stand for"
            )
        for name in MODE_RETRIEVERS[query.mode]:
            if name not in active:
                degraded[name] = f"no index yet; run `plait index {self.settings.root}`"
        if resolved.paths is not None and not resolved.paths:
            notes.append("no changed files in this work tree")
        # The ranking orders hybrid results; a single retriever's mode shows that retriever's own order.
        plain = fusion != "weighted" or query.mode != "hybrid"
        config = RankingConfig(enabled=False) if plain else self.ranking
        if analysed.wants and query.explain and not plain:
            asked = ", ".join(_ROLE_LABELS.get(role, role) for role in sorted(analysed.wants))
            more = "more than for code" if analysed.states_test else "as much as for code"
            notes.append(f"read as asking for {asked} {more}: they are not demoted")
        depth = max(query.limit * 3, pool_depth(analysed, config))
        rankings, timings = self._fan_out(active, analysed, resolved, depth, degraded)
        rankings = self._answerable(rankings)
        tier = _vector_tier(index) if "vector" in rankings and index is not None else None
        if not plain and index is not None:
            start = time.perf_counter()
            rankings, reranked = self.rerank(analysed, rankings, tier, index=index)
            if reranked != tier:
                if tier == "fast":  # the full model ran while the search waited
                    timings["rerank"] = (time.perf_counter() - start) * 1000
                    why, order = "the full tier is not complete", "the full model's order"
                else:
                    why, order = "a sentence that documents one function", "the dense retriever's order"
                if query.explain:
                    notes.append(
                        f"{why}: the dense ranks are {order} of the retrievers' first "
                        f"{config.rerank_depth(analysed)} candidates each"
                    )
            tier = reranked
            if query.explain:
                notes.extend(_dense_note(analysed, rankings, tier, config.dense_margin))
        ranked = self.order(
            analysed,
            rankings,
            mode=query.mode,
            limit=query.limit,
            page=query.page,
            k=k,
            config=config,
            tier=tier,
            index=index,
        )
        coverage = None
        if index is not None and "vector" in MODE_RETRIEVERS[query.mode]:
            try:
                embedded, total = index.coverage()
                coverage = Coverage(embedded, total)
                if embedded < total:
                    notes.append(f"semantic search covers {coverage.describe()}; indexing is still running")
            except IndexStoreError as exc:
                degraded.setdefault("vector", str(exc))
        results = self._results(index, ranked, explain=query.explain)
        if any(r.stale for r in results):
            notes.append("some results come from files changed since the last index (stale: true)")
        return SearchResponse(results, degraded, timings, coverage, notes)

    def rankings(
        self,
        text: str,
        *,
        regex: bool = False,
        mode: str = "hybrid",
        depth: int | None = None,
        only: Collection[str] | None = None,
    ) -> dict[str, list[Hit]]:
        """Each retriever's own ranking for ``text`` over the whole workspace (``depth`` hits each, the
        ranking's pool by default), before fusion: what :meth:`order` fuses and ranks. Benchmarks record
        these once and replay the ranking over them; a degraded retriever is left out. ``only``: just
        these of the mode's retrievers (the query is read as the mode reads it), to record one again."""
        index = self.with_delta(self.index.pinned()) if self.index.exists() else self.index
        analysed = self.analyse(text.strip(), regex=regex, mode=mode, index=index)
        active = retrievers_for(mode, self.settings, index)
        if only is not None:
            active = {name: r for name, r in active.items() if name in only}
        degraded: dict[str, str] = {}
        found, _ = self._fan_out(
            active, analysed, self.resolve_scope(Scope()), depth or self.ranking.pool, degraded
        )
        return found

    def analyse(
        self, text: str, *, regex: bool = False, mode: str = "hybrid", index: Index | None = None
    ) -> AnalysedQuery:
        """``text`` decoded once (:func:`search.engine.query.analyse`) and, where it asks for one
        definition by its name ("class Console", "where is parse_args defined"), read as the search for
        that name with the kinds it asks for (:func:`search.engine.query.definition_request`): always
        for a name written as code, and for a plain word ("Console", "compose") where ``index`` (the
        snapshot the search reads, its symbol index) defines that name, of those kinds; a constructor's
        documentation that says only what it makes ("Create a new `Event`.") as the request for that
        type's constructor (:func:`search.engine.query.creation_request`). A mode without
        the symbol retriever keeps the words as typed: ripgrep alone finds "class Console" as a
        phrase. Two lower-case words that spell exactly one defined name ("bind contextvars") are
        that name. A request for a name's usages ("who calls parse_args", "where is Console used") is read,
        in every mode, as the name quoted and matched as a whole word (:func:`search.engine.query.
        usage_request`). Searches, recordings and replays decode a query here, so that they read it
        alike."""
        analysed = analyse(text, regex=regex)
        if not regex and not isinstance(index, TextView) and MARK_HINT.search(text):
            # Ruby's ``save!`` is a name of its own where the index defines it so; Rust's ``println!``
            # calls a macro named ``println`` (and ripgrep alone, whose view has no symbol index,
            # reads the words as typed)
            marked = analyse(text, dialects=True)
            written = [n for n in marked.identifiers if in_dialect(n)][:MAX_MARKED]
            if written and any(_defined_as_written(index, n) for n in written):
                analysed = marked
        if analysed.shape != "natural":
            return analysed
        used = usage_request(analysed.text)
        if used is not None:
            if not used.certain and isinstance(index, TextView) and self.has_index():
                # The view a text search reads has no symbol index: a plain word is looked up in the
                # index itself (opened now), as in a process that had opened it, so that "where is
                # Widget used" reads alike in every process.
                index = self.index
            return as_usages(analysed, used) if _named(used, index) else analysed
        if "symbol" not in MODE_RETRIEVERS.get(mode, ()):
            return analysed
        request = definition_request(analysed.text) or creation_request(analysed.text)
        if request is None or not _named(request, index):
            return _spelled(analysed, index)
        return as_definition(analysed, request)

    def rerank(
        self,
        query: AnalysedQuery,
        rankings: dict[str, list[Hit]],
        tier: str | None,
        *,
        index: Index | None = None,
    ) -> tuple[dict[str, list[Hit]], str | None]:
        """The rankings a hybrid search fuses, and the tier whose weights fuse them: for a sentence not
        found verbatim, searched in the fast tier, the dense ranking is replaced by the full model's
        order of the retrievers' first ``[ranking] rerank_pool`` candidates (``rerank_topic_pool`` for a
        topic or a question: :mod:`search.engine.rerank`) and the tier becomes :data:`RERANKED`. In the
        full tier, a sentence that documents one function gets the same ranking from the dense leg's
        own order of those candidates (``[ranking] dense_among_candidates``; nothing is embedded). Otherwise
        both as given. A model that cannot run, or is not ready to without a long wait, leaves them as
        given (a failure is logged)."""
        config = self.ranking
        pool = config.rerank_depth(query)
        if (
            tier not in ("fast", "full")
            or not (config.enabled and pool)
            or query.shape != "natural"
            or "vector" not in rankings
            or _found_verbatim(rankings)
        ):
            return rankings, tier
        from search.engine.rerank import among_candidates, candidates, rerank

        if tier == "full":
            if query.form != "function" or not config.dense_among_candidates:
                return rankings, tier
            # the dense hits within the ranking's pool, as many whatever the limit (see order)
            within = {**rankings, "vector": rankings["vector"][: pool_depth(query, config)]}
            return {**rankings, "vector": among_candidates(within, pool)}, RERANKED
        index = index if index is not None else self.index
        from search.engine.chunk_vectors import ChunkVectors  # numpy: not on a text search's path

        with self._index_lock:
            if self._reranked is None:
                self._reranked = ChunkVectors()
            memo = self._reranked
        try:
            embedder = index.tier_embedder("full")
            if not embedder.ready():
                return rankings, tier
            dense = rerank(query.text, candidates(rankings, pool), index, embedder, memo)
        except Exception as exc:  # an improvement on the fast tier's own ranking: never a failed search
            log.warning(
                "the fast tier's candidates were not re-ranked: %s",
                exc,
                exc_info=log.isEnabledFor(logging.DEBUG),
            )
            return rankings, tier
        return {**rankings, "vector": dense}, RERANKED

    def _answerable(self, rankings: dict[str, list[Hit]]) -> dict[str, list[Hit]]:
        """The rankings less the hits that are no answer: in files this checkout no longer holds
        (deleted since the index was written, by this user or by a checkout of another branch), or
        that the settings' ``include``/``exclude`` globs leave out (a search with ``--exclude '*.md'``
        over an index built without it: ripgrep honours the globs, the indexed chunks do not)."""
        known = {h.span.path for hits in rankings.values() for h in hits}
        left_out = self._left_out()
        root = os.path.join(self.settings.root, "")
        drop = {path for path in known if (left_out is not None and left_out(path)) or _vanished(root + path)}
        if not drop:
            return rankings
        return {name: [h for h in hits if h.span.path not in drop] for name, hits in rankings.items()}

    def _left_out(self) -> Callable[[str], bool] | None:
        """Whether the settings' ``include``/``exclude`` globs leave a file out (the walk's reading of
        them, :class:`indexer.ConfigGlobs`); ``None`` when there are none."""
        if self._globs is None:
            globs = self.settings.include or self.settings.exclude
            self._globs = (ConfigGlobs.of(self.settings).leaves_out if globs else None,)
        return self._globs[0]

    def with_delta(self, index: Index) -> Index:
        """``index`` (pinned) seen through this checkout's local delta (:mod:`search.engine.delta`):
        the files that differ from the index answer symbol lookups and chunk spans from a parse made
        here. ``index`` itself when nothing differs, when the changed files cannot be listed, or when
        this engine keeps no delta."""
        if self.delta is None:
            return index
        try:
            changes = live_changes(self.settings, index, WHOLE, timeout=self.timeouts["text"])
            tables = self.delta.tables(changes.changed) if changes is not None else None
        except Exception as exc:  # the delta is an improvement: a failure leaves the snapshot's view
            log.warning("local delta skipped: %s", exc, exc_info=log.isEnabledFor(logging.DEBUG))
            return index
        from search.engine.delta import Overlaid

        return Overlaid(index, tables, self.delta) if tables else index

    def order(
        self,
        query: AnalysedQuery,
        rankings: Mapping[str, Sequence[Hit]],
        *,
        mode: str = "hybrid",
        limit: int = 10,
        page: int | None = None,
        k: int = DEFAULT_K,
        config: RankingConfig | None = None,
        tier: str | None = None,
        index: Index | None = None,
    ) -> list[Ranked]:
        """The first ``limit`` results from the retrievers' ``rankings``: weighted RRF (hybrid mode, with
        the ranking on), then the file-aware rules of :mod:`search.engine.ranking`, whose kept hits take
        their places within the first ``page`` (default ``limit``): the first ``page`` are the same
        whatever ``limit``, each retriever's pool being ranked first (:func:`pool_depth`). ``tier``:
        the vector tier the dense hits come from (None: the full one). ``index``: the snapshot the
        rankings were read from (a search's pinned one; default this engine's index), whose symbol
        table names the functions a chunk holds.
        Pure but for the guard's generated-file rules, so that benchmarks can replay recorded rankings
        through it."""
        config = config or self.ranking
        # The ranking reads each retriever's pool whatever the limit, so a search for forty lists the
        # same first results as a search for ten (a hit's deep ranks would add to its fused score);
        # deeper hits, which search asks for at 3 × the limit, only fill a longer list the pool cannot.
        pool = pool_depth(query, config, rankings)
        ranked = self._ranked(query, rankings, pool, mode, page or limit, k, config, tier, index)
        depth = max(limit * 3, pool)
        if len(ranked) < limit and depth > pool:
            tail = self._ranked(query, rankings, depth, mode, page or limit, k, config, tier, index)
            floor = ranked[-1].score if ranked else math.inf
            for r in tail:
                if not any(r.fused.span.overlaps(h.fused.span) for h in ranked):
                    r.score = min(r.score, floor)  # listed after the pool's, scores never rising
                    ranked.append(r)
        return ranked[:limit]

    def _ranked(
        self,
        query: AnalysedQuery,
        rankings: Mapping[str, Sequence[Hit]],
        depth: int,
        mode: str,
        page: int,
        k: int,
        config: RankingConfig,
        tier: str | None,
        index: Index | None,
    ) -> list[Ranked]:
        """:meth:`order`'s fusion and ranking of each retriever's first ``depth`` hits."""
        rankings = {name: _first(hits, depth) for name, hits in rankings.items()}
        if config.enabled and mode == "hybrid":
            named = [h.symbol for h in rankings.get("symbol", ())[:NAMING_HITS] if h.symbol]
            query = named_in_sentence(query, named)
        weights = (
            fusion_weights(query, rankings, tier, dense_margin=config.dense_margin)[1]
            if config.enabled and mode == "hybrid"
            else None
        )
        fused = fuse(rankings, k=k, weights=weights, show_definitions=query.shape == "identifier")
        text_top = None
        if query.shape == "natural" and rankings.get("text"):
            text_top = _fused_at(fused, rankings["text"][0].span)
        dense_top: list[Fused] = []
        if config.enabled and query.form == "function":  # the only sentences whose dense top is kept
            found = (_fused_at(fused, h.span) for h in rankings.get("vector", ())[: config.keep_dense_top])
            dense_top = [f for f in found if f is not None]
        generated = self._generated() if config.enabled else None  # only the ranking's rules read it
        # the functions defined on a chunk's lines: a sentence may spell one's name, or name a relative
        # of the one it documents, which sits beside it
        within = None
        relatives = bool(query.relatives) and config.relative_penalty != 1.0
        if config.enabled and (config.name_words or relatives) and query.form == "function":
            # a workspace without an index has no symbol table to read (and its index code stays unloaded)
            source = index if index is not None else self.index if self.has_index() else None
            within = source.functions_within() if source is not None else None
        return rank(
            fused,
            query,
            config,
            generated=generated,
            text_top=text_top,
            dense_top=dense_top,
            limit=page,
            functions_within=within,
        )

    def _generated(self) -> Callable[[str], bool] | None:
        """Paths that the guard's ``generated`` rules name (demoted by the ranking)."""
        if self._generated_rules is None:
            from search.workspace.guard import rules_for  # the guard's rules, parsed once per engine

            try:
                self._generated_rules = [r for r in rules_for(self.settings) if r.type == "generated"]
            except PlaitError as exc:
                log.warning("guard rules unreadable, generated files not demoted: %s", exc)
                self._generated_rules = []
        rules = self._generated_rules
        return (lambda path: any(r.applies_to(path) for r in rules)) if rules else None

    def _fan_out(
        self,
        active: Mapping[str, Retriever],
        query: AnalysedQuery,
        scope: ResolvedScope,
        depth: int,
        degraded: dict[str, str],
    ) -> tuple[dict[str, list[Hit]], dict[str, float]]:
        start = time.perf_counter()
        # The vector leg first: it is the longest, and the others hold the GIL while they start.
        first = sorted(active, key=lambda name: name != "vector")
        futures = {name: self.pool.submit(_timed, active[name], query, scope, depth) for name in first}
        late = self._wait_legs(futures, start)
        rankings: dict[str, list[Hit]] = {}
        timings: dict[str, float] = {}
        for name in active:
            fut = futures[name]
            try:
                if name in late:
                    raise cf.TimeoutError
                hits, ms = fut.result()
                rankings[name] = list(hits)
                timings[name] = ms
            except cf.TimeoutError:
                degraded[name] = f"timed out after {self.timeouts[name]:.0f}s"
            except QueryError:
                raise
            except PlaitError as exc:
                degraded[name] = str(exc)
            except TimeoutError as exc:
                degraded[name] = str(exc)
            except Exception as exc:  # top of the retriever boundary: isolate, report, keep going
                log.warning("retriever %s failed: %s", name, exc, exc_info=log.isEnabledFor(logging.DEBUG))
                degraded[name] = f"{type(exc).__name__}: {exc}"
        timings["total"] = (time.perf_counter() - start) * 1000
        return rankings, timings

    def _wait_legs(
        self, futures: Mapping[str, cf.Future[tuple[Sequence[Hit], float]]], start: float
    ) -> set[str]:
        """Wait until every leg is done or past its own deadline (``timeouts``, from ``start``, at least
        10 ms); returns the legs that were not done by theirs (a result that comes later is not used).
        One wait for them all: this thread wakes once, when the last leg ends, not once per leg."""
        deadline = {n: max(0.01, self.timeouts[n]) for n in futures}
        pending = {fut: name for name, fut in futures.items()}
        late: set[str] = set()
        while pending:
            left = min(deadline[n] for n in pending.values()) - (time.perf_counter() - start)
            if left > 0:
                cf.wait(list(pending), timeout=left, return_when=cf.ALL_COMPLETED)
            elapsed = time.perf_counter() - start
            late |= {n for f, n in pending.items() if not f.done() and deadline[n] <= elapsed}
            pending = {f: n for f, n in pending.items() if not f.done() and n not in late}
        return late

    def _results(
        self, index: Index | None, ranked: Sequence[Ranked], *, explain: bool = False
    ) -> list[Result]:
        manifest = (
            index.manifest_for(r.fused.span.path for r in ranked) if index is not None and ranked else {}
        )
        out = []
        for r in ranked:
            f = r.fused
            snippet, end = self._snippet(f.span.path, f.span.start_line, f.span.end_line)
            stale = index.is_stale(f.span.path, manifest) if index is not None else False
            name = f.label  # the definition the symbol index found here, else the chunk's first
            out.append(
                Result(
                    f.span.path, f.span.start_line, end, r.score, name.symbol, name.kind, name.language,
                    snippet, dict(f.ranks), stale, r.explain() if explain else None,
                )
            )  # fmt: skip
        return out

    def _snippet(self, path: str, start: int, end: int) -> tuple[str, int]:
        try:  # from a descriptor of the root: no symlink followed, no FIFO opened
            data = read_beneath(self.settings.root, path, 1 << 26)
        except OSError:
            return "", end
        lines = data.decode("utf-8", "replace").split("\n", end)  # split no further than the span's end
        if len(lines) <= end and lines[-1] == "":
            lines.pop()  # at the end of the file, its final newline ends the last line: no line after it
        del lines[end:]
        end = min(end, max(start, len(lines)))
        body = lines[start - 1 : min(end, start - 1 + SNIPPET_LINES)]
        text = "\n".join(line.rstrip("\r") for line in body)
        if len(text) > SNIPPET_CHARS:
            text = text[:SNIPPET_CHARS] + "…"
        elif end - start + 1 > SNIPPET_LINES:
            text += "\n…"
        return text, end


def _spelled(query: AnalysedQuery, index: Index | None) -> AnalysedQuery:
    """``query`` read as one definition's name where it is two lower-case words that spell exactly one
    name the symbol index defines ("bind contextvars": ``bind_contextvars``, before the 23 ``bind``
    methods and ``bound_contextvars``); otherwise as it is. A longer sentence's adjacent words spelling
    a name are not read so (:func:`search.engine.query.compounds`): in a topic they rarely mean it."""
    words = query.text.split()
    if len(words) != 2 or not all(w.isalpha() and w.islower() for w in words):
        return query
    found = _definitions(index, "".join(words), limit=SPELLED_NAMES)
    # a field's name spelled in words is a topic ("follow redirects"), not the attribute that holds it
    names = {m.symbol.name for m in found if m.symbol.kind not in DATA_KINDS}
    if len(names) != 1:
        return query  # ``parse_url`` and ``ParseURL``: which one is meant, the words do not say
    return as_definition(query, NameRequest(names.pop(), frozenset(), True))


def _named(request: NameRequest, index: Index | None) -> bool:
    """``request``'s name is a name: written as code, or defined in ``index`` (of the kinds asked)."""
    return request.certain or bool(_definitions(index, request.name, request.kinds, limit=1))


def _definitions(
    index: Index | None, name: str, kinds: frozenset[str] = frozenset(), *, limit: int
) -> list[SymbolMatch]:
    """The definitions of ``name`` in ``index`` (exact, qualified or in another case or separators; of
    ``kinds``, any kind if empty), to read a query by; none without an index or where the lookup
    fails: a reading is an improvement, and a failure keeps the words as typed."""
    if index is None:
        return []
    try:
        return index.lookup_many([(name, True)], kinds=kinds or None, limit=limit)[0]
    except Exception as exc:
        log.warning("name lookup skipped: %s", exc, exc_info=log.isEnabledFor(logging.DEBUG))
        return []


MAX_MARKED = 8  # names with a mark a query is read by at most: each is one lookup


def _defined_as_written(index: Index | None, name: str) -> bool:
    """Whether ``index`` defines ``name`` as written (or qualified so), a ``?`` or ``!`` included."""
    return any(m.match in EXACT_MATCHES for m in _definitions(index, name, limit=8))


def _fused_at(fused: Sequence[Fused], span: Span) -> Fused | None:
    """The fused result that holds ``span`` (the cluster it joined), or ``None``."""
    return next((f for f in fused if f.span.overlaps(span)), None)


def _vanished(path: str) -> bool:
    """``path`` is gone (``lstat``: a symlink is not followed). Any other error keeps the hit: the
    snippet reader decides what may be read."""
    try:
        os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return True
    except OSError:
        return False
    return False


def _timed(
    retriever: Retriever, query: AnalysedQuery, scope: ResolvedScope, depth: int
) -> tuple[Sequence[Hit], float]:
    t = time.perf_counter()
    hits = retriever.search(query, scope, limit=depth)
    return hits, (time.perf_counter() - t) * 1000


def _vector_tier(index: Index) -> str | None:
    """The tier the dense leg ranked with: the one the pinned snapshot searches (None if unreadable)."""
    try:
        found = index.search_tier()
    except PlaitError:
        return None
    return found[0] if found is not None else None
