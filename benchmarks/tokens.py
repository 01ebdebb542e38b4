"""``tokens``: how much an agent reads per query before the first relevant result.

Each query of the set goes through ``search.Engine`` in hybrid mode, and its results are rendered as
the MCP ``search`` tool shows them to an agent: a heading line and the numbered snippet centred on the
match, within the default per-search token budget (:mod:`search.engine.snippets`). Reading in rank order,
the tokens read up to and including the first result that overlaps the query's target are its cost;
a query whose target is not in the top ``limit`` costs everything shown (the agent read it all in
vain). Tokens are estimated as characters / 4 (:func:`search.engine.snippets.estimate_tokens`), the common
estimate for BPE tokenizers on code and English. Reported per query family: mean tokens to the first
relevant result (over the queries that found it, and over all with misses at their full cost) and
the share of queries whose first relevant result is reached within ``budget`` tokens.

The queries are plait's own evaluation set (see :mod:`benchmarks.evalset`), on a copy of the
repository with the documentation blanked, as in the quality benchmark.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from benchmarks import metrics, report
from benchmarks.evalset import EvalQuery, EvalSet
from benchmarks.progress import Ticker
from benchmarks.workspace import Prepared


@dataclass(frozen=True, slots=True)
class QueryCost:
    qid: str
    family: str
    rank: int | None  # of the first relevant result, 1-based
    tokens_to_first: int  # read up to and including it (everything shown when not found)
    tokens_shown: int  # the whole answer


@dataclass
class TokensReport:
    costs: list[QueryCost]
    families: list[str]
    setup: dict[str, Any] = field(default_factory=dict)
    budget: int = 2000

    def summary(self, family: str | None = None) -> dict[str, Any]:
        rows = [c for c in self.costs if family is None or c.family == family]
        found = [c for c in rows if c.rank is not None]
        n = len(rows)
        return {
            "n": n,
            "found@10": round(len(found) / n, 4) if n else 0.0,
            "tokens_to_first_found": round(sum(c.tokens_to_first for c in found) / len(found), 1)
            if found
            else None,
            "tokens_to_first_all": round(sum(c.tokens_to_first for c in rows) / n, 1) if n else None,
            f"found_within_{self.budget}": round(
                sum(1 for c in found if c.tokens_to_first <= self.budget) / n, 4
            )
            if n
            else 0.0,
            "tokens_shown": round(sum(c.tokens_shown for c in rows) / n, 1) if n else None,
        }

    def as_dict(self) -> dict[str, Any]:
        return {
            "setup": self.setup,
            "budget": self.budget,
            "by_family": {f: self.summary(f) for f in self.families},
            "overall": self.summary(),
            "per_query": [
                {"qid": c.qid, "family": c.family, "rank": c.rank, "tokens_to_first": c.tokens_to_first,
                 "tokens_shown": c.tokens_shown} for c in self.costs
            ],
        }  # fmt: skip


def rendered(engine: Any, text: str, *, limit: int, max_tokens: int, more: int = 0) -> list[tuple[Any, str]]:
    """The engine's hybrid results for ``text``, each with the text the MCP search tool shows for it:
    the first ``limit`` as a heading line and the numbered snippet centred on the match (within
    ``max_tokens`` in all), the next ``more`` as location lines only, the first of them after the
    tool's "more results" line."""
    from search import Query, Scope, focus_results, location_line, monotonic_scores

    response = engine.search(Query(text, mode="hybrid", limit=limit + more, page=limit), Scope())
    ranked = monotonic_scores(response.results)
    focused = focus_results(ranked[:limit], str(engine.settings.root), text, max_tokens=max_tokens)
    out = []
    for i, (r, snip) in enumerate(focused, start=1):
        ranks = " ".join(f"{k}#{v}" for k, v in r.sources.items() if v is not None)
        head = (
            location_line(i, r.path, r.start_line, r.end_line, r.symbol, r.kind, r.score) + f"  via {ranks}"
        )
        out.append((r, head + "\n" + snip.numbered() + "\n"))
    for i, r in enumerate(ranked[limit:], start=limit + 1):
        line = location_line(i, r.path, r.start_line, r.end_line, r.symbol, r.kind, r.score) + "\n"
        if i == limit + 1:
            line = "more results, by location only (read_file shows one):\n" + line
        out.append((r, line))
    return out


def rendered_costs(
    engine: Any, query: EvalQuery, *, limit: int, max_tokens: int
) -> tuple[list[Any], list[int]]:
    """The engine's results for ``query`` and the tokens of each as the MCP search tool renders it."""
    from search import estimate_tokens

    shown = rendered(engine, query.text, limit=limit, max_tokens=max_tokens)
    return [r for r, _ in shown], [estimate_tokens(text) for _, text in shown]


def run(
    prepared: Prepared, es: EvalSet, *, limit: int = 10, max_tokens: int | None = None, budget: int = 2000
) -> TokensReport:
    from search import DEFAULT_MAX_TOKENS, Engine

    per_search = max_tokens or DEFAULT_MAX_TOKENS
    engine = Engine(prepared.settings)
    costs: list[QueryCost] = []
    try:
        ticker = Ticker("tokens plait-hybrid", len(es.queries))
        for q in es.queries:
            ticker.tick()
            results, tokens = rendered_costs(engine, q, limit=limit, max_tokens=per_search)
            spans = [(r.path, r.start_line, r.end_line) for r in results]
            rank = metrics.first_span_rank(spans, (q.path, q.start_line, q.end_line), k=limit)
            to_first = sum(tokens[:rank]) if rank is not None else sum(tokens)
            costs.append(QueryCost(q.qid, q.family, rank, to_first, sum(tokens)))
    finally:
        engine.close()
    setup = {"files": len(prepared.corpus.files), "queries": len(es.queries), "limit": limit,
             "snippet budget per search (tokens)": per_search, "model": prepared.settings.model.name}  # fmt: skip
    return TokensReport(costs, es.families(), setup, budget)


def render(rep: TokensReport, *, markdown: bool = False) -> str:
    headers = ["family", "n", "found@10", "tokens to 1st (found)", "tokens to 1st (all)",
               f"found within {rep.budget}", "tokens shown"]  # fmt: skip
    rows: list[list[report.Cell]] = []
    for name, s in [*((f, rep.summary(f)) for f in rep.families), ("overall", rep.summary())]:
        rows.append([name, s["n"], s["found@10"], s["tokens_to_first_found"], s["tokens_to_first_all"],
                     s[f"found_within_{rep.budget}"], s["tokens_shown"]])  # fmt: skip
    return "\n".join([
        report.heading("Tokens an agent reads before the first relevant result (plait hybrid, MCP rendering)",
                       markdown=markdown),
        report.key_values(rep.setup, markdown=markdown),
        "",
        report.table(headers, rows, markdown=markdown),
    ])  # fmt: skip
