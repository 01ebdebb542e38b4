"""``quality-replay``: a quality run's query families scored again by replaying plait's ranking.

``python -m benchmarks quality --workdir W --keep --save-queries Q`` leaves the blanked copy
(``W/repo``) and its index (``W/index``). Here each query of ``Q`` is asked once of every retriever
(:meth:`search.Engine.rankings`, through ``--recordings``: kept and read back on later runs), and the
recorded rankings are fused and ranked by :meth:`search.Engine.rerank` and
:meth:`search.Engine.order` as a hybrid search does, so a change to the ranking (``--set KEY=VALUE``,
a ``[ranking]`` setting, or the code of the tree that runs it) is measured on a corpus's queries in
seconds, query by query. The scores equal the quality command's hybrid row for the families whose
retrievers the change leaves alone; a change to what a retriever returns, or to how a query is read,
needs its rankings recorded again (delete the recording), or, for one retriever, asked again over
the recording (``--again symbol``: the other retrievers as recorded, the file kept as it is). The
same replay as ``peer-replay``, for the query sets this project makes itself.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from benchmarks.peer_replay import recorded_rankings, replayed, searched_tier


def run(
    workdir: Path,
    queries: Path,
    *,
    families: list[str] | None = None,
    recordings: Path | None = None,
    settings: dict[str, Any] | None = None,
    again: Sequence[str] = (),
) -> dict[str, Any]:
    """Hybrid MRR@10, R@1 and R@10 per family of the query set ``queries`` over the quality run kept
    in ``workdir``, and each query's rank (``None``: not in the first ten). ``settings``: ``[ranking]``
    values that replace the workspace's for the replay. ``again``: retrievers asked again over the
    recordings (:func:`benchmarks.peer_replay.recorded_rankings`)."""
    from benchmarks import metrics
    from benchmarks.evalset import load, query_text
    from indexer import load_settings
    from search import Engine

    evalset = load(queries)
    chosen = [q for q in evalset.queries if not families or q.family in families]
    root, index_dir = workdir / "repo", workdir / "index"
    if not index_dir.is_dir():
        raise FileNotFoundError(
            f"{workdir} holds no index; run `python -m benchmarks quality --workdir {workdir} --keep` first"
        )
    workspace = load_settings(root.resolve(), env={}, overrides={"index_dir": str(index_dir.resolve())})
    if settings:  # validated as plait.toml's [ranking] is, by the engine
        workspace = replace(workspace, ranking={**workspace.ranking, **settings})
    engine = Engine(workspace, timeouts={"text": 60, "symbol": 60, "vector": 120})
    try:
        texts = [query_text(q) for q in chosen]
        rankings = recorded_rankings(engine, texts, recordings, again)
        tier = searched_tier(engine)
        outcomes = []
        for q, text, found in zip(chosen, texts, rankings, strict=True):
            ranked = replayed(engine, text, found, tier)
            spans = [(r.fused.span.path, r.fused.span.start_line, r.fused.span.end_line) for r in ranked]
            outcomes.append(metrics.outcome(q.qid, q.family, spans, (q.path, q.start_line, q.end_line)))
    finally:
        engine.close()
    present = [f for f in evalset.families() if any(o.family == f for o in outcomes)]
    scores = metrics.by_family(outcomes, present)
    print(f"quality-replay: {len(outcomes)} queries of {workdir}", file=sys.stderr)
    return {
        "workdir": str(workdir),
        "queries": len(outcomes),
        "families": {f: scores[f].as_dict() for f in present},
        "ranks": {o.qid: o.span_rank for o in outcomes},
    }
