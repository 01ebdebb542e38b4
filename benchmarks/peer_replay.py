"""``peer-replay``: the peer suite (``../shared/peer-bench``) scored by replaying plait's ranking.

Each corpus's queries are asked once of every retriever (:meth:`search.Engine.rankings`); the
recorded rankings are then fused and ranked by :meth:`search.Engine.order` exactly as a search does,
with the retrievers a variant keeps (``hybrid``: all three; ``lexical``: text and symbol only, the
"no vectors" figure). The scores equal the suite's own MCP run of ``plait serve`` on the same indexes
(checked: 0.8582 both, all 39 repositories), at a fraction of the cost, so a ranking variant can be
measured on the tuning half in seconds. Needs the corpora fetched and indexed (``plait index ROOT``).
"""

from __future__ import annotations

import pickle
import sys
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

VARIANTS = {"hybrid": ("text", "symbol", "vector"), "lexical": ("text", "symbol"), "semantic": ("vector",)}


def run(
    suite: Path,
    half: str,
    variants: list[str],
    repos: list[str] | None = None,
    recordings: Path | None = None,
    *,
    index_dirs: Path | None = None,
    again: Sequence[str] = (),
) -> dict[str, Any]:
    """Mean NDCG@10 of repositories (and by category) per variant over ``half`` of the suite.

    With ``recordings``, each repository's retriever rankings are pickled there (``NAME.pickle``) and
    read back on later runs, so a change to the ranking is measured without running the retrievers.
    With ``index_dirs``, repository NAME's index is ``index_dirs/NAME`` (a fast tier made by
    ``cold-index --suite --keep``), not the corpus's own. ``again``: retrievers asked again over the
    recordings (:func:`recorded_rankings`)."""
    sys.path.insert(0, str(suite))
    from peerbench.common import DEFAULT_CACHE, corpus_root, manifest_repos
    from peerbench.metric import Hit, mean, score_query
    from peerbench.tasks import build_tasks

    from indexer import load_settings
    from search import Engine

    specs = manifest_repos()
    chosen = {"tuning": specs[0::2], "report": specs[1::2]}.get(half, specs)
    out: dict[str, Any] = {}
    per: dict[str, dict[str, float]] = defaultdict(dict)
    cats: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for spec in chosen:
        name = spec["name"]
        if repos and name not in repos:
            continue
        root = corpus_root(DEFAULT_CACHE, name)
        overrides = {"index_dir": str(index_dirs / name)} if index_dirs is not None else None
        settings = load_settings(root, env={}, overrides=overrides)
        engine = Engine(settings, timeouts={"text": 60, "symbol": 60, "vector": 120})
        try:
            if not engine.index.exists():
                print(f"peer-replay: {name} has no index; run plait index {root}", file=sys.stderr)
                continue
            prefix = (spec["semble_pin"]["benchmark_root"] or "").strip("/")
            tasks = build_tasks(name, root, prefix).tasks
            found = recorded_rankings(
                engine,
                [t.query for t in tasks],
                recordings / f"{name}.pickle" if recordings else None,
                again,
            )
            recorded = list(zip(tasks, found, strict=True))
            tier = searched_tier(engine)
            for variant in variants:
                scores: dict[str, list[float]] = defaultdict(list)
                for task, rankings in recorded:
                    kept = {k: v for k, v in rankings.items() if k in VARIANTS[variant]}
                    ranked = replayed(engine, task.query, kept, tier)
                    hits = [
                        Hit(f"{prefix}/{r.fused.span.path}" if prefix else r.fused.span.path,
                            r.fused.span.start_line, r.fused.span.end_line)
                        for r in ranked
                    ]  # fmt: skip
                    scores[task.category].append(score_query(hits, task.targets)[0])
                per[variant][name] = mean([s for v in scores.values() for s in v])
                for c, v in scores.items():
                    cats[variant][c].append(mean(v))
            print(f"peer-replay: {name} done", file=sys.stderr)
        finally:
            engine.close()
    for variant in variants:
        out[variant] = {
            "repos": len(per[variant]),
            "ndcg10_mean_of_repos": round(mean(list(per[variant].values())), 4),
            "by_category": {c: round(mean(v), 4) for c, v in sorted(cats[variant].items())},
            "per_repo": {k: round(v, 4) for k, v in per[variant].items()},
        }
    return out


def searched_tier(engine: Any) -> str | None:
    """The vector tier ``engine``'s index is searched in: the tier recorded dense hits come from."""
    searched = engine.index.search_tier()
    return searched[0] if searched is not None else None


def replayed(engine: Any, query: str, rankings: dict[str, Any], tier: str | None) -> list[Any]:
    """The first ten results for ``query`` from its recorded ``rankings`` (dense hits of ``tier``),
    ranked as a hybrid search ranks them: a fast tier's sentence re-ranked by the full model, then
    fused and ordered (:meth:`search.Engine.rerank`, :meth:`search.Engine.order`)."""
    analysed = engine.analyse(query, index=engine.index)
    kept, fused_as = engine.rerank(analysed, dict(rankings), tier)
    ranked: list[Any] = engine.order(analysed, kept, limit=10, tier=fused_as)
    return ranked


def recorded_rankings(
    engine: Any, queries: list[str], path: Path | None, again: Sequence[str] = ()
) -> list[dict[str, Any]]:
    """Every retriever's ranking for each of ``queries``: read from ``path`` when it was recorded for
    the same queries, else asked of the engine (and written to ``path``). ``again``: retrievers whose
    rankings are asked of the engine even so, in place of the recorded ones (the recording is kept as
    it is): a change to one retriever measured with the others' rankings as recorded."""
    layout = _hit_layout()
    if path is not None and path.is_file():
        try:
            saved = pickle.loads(path.read_bytes())
        except Exception as exc:  # written by another plait (its types changed since): record again
            print(f"replay: {path} is unreadable ({exc}); recording it again", file=sys.stderr)
            saved = {"queries": None}
        if saved["queries"] == queries and saved.get("layout") == layout:
            if not again:
                return list(saved["rankings"])
            return [
                {**{k: v for k, v in found.items() if k not in again}, **engine.rankings(q, only=again)}
                for q, found in zip(queries, saved["rankings"], strict=True)
            ]
        if saved["queries"] == queries:  # a hit of another shape would load with fields unset
            print(f"replay: {path} holds hits of another plait; recording it again", file=sys.stderr)
    rankings = [engine.rankings(q) for q in queries]
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_bytes(pickle.dumps({"queries": queries, "rankings": rankings, "layout": layout}))
        tmp.replace(path)
    return rankings


def _hit_layout() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The fields of the recorded types: a recording made with others is made again."""
    from dataclasses import fields

    from search import Hit, Span

    return tuple(f.name for f in fields(Hit)), tuple(Span._fields)
