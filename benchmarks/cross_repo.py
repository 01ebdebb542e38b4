"""``cross-repo``: the peer suite's repositories served by one ``plait serve``, queries scoped and not.

``python -m benchmarks cross-repo [--suite DIR] [--half tuning|report|all] [--unscoped-every N] [--json]``

One real ``plait serve --root R1 ... --root R39`` subprocess (every repository of the suite, whatever
the half), driven over stdio by the ``mcp`` client. For each query of the chosen half:

- **scoped**: ``search`` with ``repos: [its own root]``, scored by the suite's NDCG@10;
- **reference**: the same query through ``search.Engine`` on that repository alone, in this process
  (the one-server-per-repository figure; BENCHMARKS §10 has 0.858 for all 39);
- **unscoped** (every N-th query of each repository, ``--unscoped-every``): ``search`` over all the
  repositories; a result from another repository can never be relevant, so it scores 0 and may push a
  relevant result out of the top 10. Reported: NDCG@10 beside the scoped figure of the same queries,
  how many of the top 10 come from other repositories, and how often a relevant result of the scoped
  top 10 is displaced from the unscoped top 10.

The suite (``../shared/peer-bench``) and its corpora (``PEERBENCH_CACHE``, ``/tmp/peerbench-cache``)
are read in place; each corpus needs its index (``plait index ROOT``). Nothing of the suite is copied.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

DEFAULT_SUITE = Path(
    os.environ.get("PEERBENCH_DIR", Path(__file__).resolve().parents[2] / "shared/peer-bench")
)
FOREIGN = "\0"  # the path a result of another repository is scored as: it matches no target


def server_env() -> dict[str, str]:
    keep = ("PLAIT_", "HF_", "TRANSFORMERS_", "OMP_", "MKL_", "TOKENIZERS_", "PYTHON", "HOME", "PATH")
    return {k: v for k, v in os.environ.items() if k.startswith(keep)}


async def measure(args: argparse.Namespace) -> dict[str, Any]:
    from mcp import Client, StdioServerParameters

    sys.path.insert(0, str(args.suite))
    from peerbench.common import DEFAULT_CACHE, corpus_root, manifest_repos
    from peerbench.metric import Hit, mean, score_query
    from peerbench.tasks import build_tasks

    from indexer import load_settings
    from search import Engine, Query

    specs = manifest_repos()
    halves = {"tuning": {s["name"] for s in specs[0::2]}, "report": {s["name"] for s in specs[1::2]}}
    chosen = [s for s in specs if args.half == "all" or s["name"] in halves[args.half]]
    if args.repo:
        chosen = [s for s in chosen if s["name"] in args.repo]
    roots = {s["name"]: corpus_root(DEFAULT_CACHE, s["name"]).resolve() for s in specs}
    missing = [n for n, r in roots.items() if not r.is_dir()]
    if missing:
        raise SystemExit(f"cross-repo: corpora missing: {', '.join(missing)}; run python -m peerbench.fetch")

    def hits_of(results: Sequence[dict[str, Any]], root: Path, prefix: str) -> list[Any]:
        out = []
        for r in results:
            own = Path(r["root"]).resolve() == root
            path = (f"{prefix}/{r['path']}" if prefix else r["path"]) if own else FOREIGN
            out.append(Hit(path, r["start_line"], r["end_line"]))
        return out

    flags = [a for root in roots.values() for a in ("--root", str(root))]
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "search.frontends.cli", "serve", "--read-only", "--no-auto-index", *flags],
        env=server_env(),
    )
    per_repo: dict[str, dict[str, Any]] = {}
    spawn = time.perf_counter()
    async with Client(params, read_timeout_seconds=args.timeout) as client:
        start_s = time.perf_counter() - spawn
        warm = time.perf_counter()
        first = await client.call_tool("search", {"query": "parse the configuration file", "limit": 10})
        if first.is_error:
            raise SystemExit(f"cross-repo: the server's search failed: {first.content}")
        warm_s = time.perf_counter() - warm
        for spec in chosen:
            name, root = spec["name"], roots[spec["name"]]
            prefix = (spec["semble_pin"]["benchmark_root"] or "").strip("/")
            tasks = build_tasks(name, root, prefix).tasks
            engine = Engine(load_settings(root, env={}), timeouts={"text": 60, "symbol": 60, "vector": 120})
            scoped: list[float] = []
            reference: list[float] = []
            pairs: list[tuple[float, float]] = []  # (scoped, unscoped) of the sampled queries
            foreign: list[int] = []
            displaced = 0
            scoped_ms: list[float] = []
            unscoped_ms: list[float] = []
            try:
                for i, task in enumerate(tasks):
                    own = engine.search(Query(task.query, limit=10)).results
                    ref_hits = [Hit(f"{prefix}/{r.path}" if prefix else r.path, r.start_line, r.end_line)
                                for r in own]  # fmt: skip
                    reference.append(score_query(ref_hits, task.targets)[0])
                    t = time.perf_counter()
                    got = await client.call_tool(
                        "search", {"query": task.query, "limit": 10, "repos": [str(root)]}
                    )
                    scoped_ms.append((time.perf_counter() - t) * 1000)
                    if got.is_error:
                        raise SystemExit(f"cross-repo: {name}: {task.query!r} failed: {got.content}")
                    s_hits = hits_of((got.structured_content or {}).get("results", []), root, prefix)
                    s_score, s_ranks = score_query(s_hits, task.targets)
                    scoped.append(s_score)
                    if args.unscoped_every and i % args.unscoped_every == 0:
                        t = time.perf_counter()
                        wide = await client.call_tool("search", {"query": task.query, "limit": 10})
                        unscoped_ms.append((time.perf_counter() - t) * 1000)
                        if wide.is_error:
                            raise SystemExit(
                                f"cross-repo: {name}: unscoped {task.query!r} failed: {wide.content}"
                            )
                        u_hits = hits_of((wide.structured_content or {}).get("results", []), root, prefix)
                        u_score, u_ranks = score_query(u_hits, task.targets)
                        pairs.append((s_score, u_score))
                        foreign.append(sum(h.path == FOREIGN for h in u_hits[:10]))
                        displaced += any(
                            s is not None and u is None for s, u in zip(s_ranks, u_ranks, strict=True)
                        )
            finally:
                engine.close()
            per_repo[name] = {
                "queries": len(tasks),
                "reference": mean(reference),
                "scoped": mean(scoped),
                "unscoped_queries": len(pairs),
                "scoped_sampled": mean([p[0] for p in pairs]) if pairs else None,
                "unscoped": mean([p[1] for p in pairs]) if pairs else None,
                "foreign_in_top10": mean([float(f) for f in foreign]) if foreign else None,
                "queries_with_foreign": sum(f > 0 for f in foreign),
                "queries_displaced": displaced,
                "scoped_ms": sorted(scoped_ms)[len(scoped_ms) // 2] if scoped_ms else None,
                "unscoped_ms": sorted(unscoped_ms)[len(unscoped_ms) // 2] if unscoped_ms else None,
            }
            print(f"cross-repo: {name}: {json.dumps(per_repo[name])}", file=sys.stderr)
    return {
        "half": args.half,
        "served_repositories": len(roots),
        "server_start_s": round(start_s, 1),
        "first_search_s": round(warm_s, 1),
        "unscoped_every": args.unscoped_every,
        "halves": {h: summarise(per_repo, names) for h, names in (*halves.items(), ("all", set(roots)))},
        "per_repo": per_repo,
    }


def summarise(per_repo: dict[str, dict[str, Any]], names: set[str]) -> dict[str, Any] | None:
    rows = [v for k, v in per_repo.items() if k in names]
    if not rows:
        return None

    def avg(key: str) -> float | None:
        vals = [r[key] for r in rows if r[key] is not None]
        return round(sum(vals) / len(vals), 4) if vals else None

    sampled = sum(r["unscoped_queries"] for r in rows)
    out: dict[str, Any] = {
        "repos": len(rows),
        "queries": sum(r["queries"] for r in rows),
        "reference_ndcg10": avg("reference"),
        "scoped_ndcg10": avg("scoped"),
        "unscoped_queries": sampled,
        "scoped_ndcg10_sampled": avg("scoped_sampled"),
        "unscoped_ndcg10_sampled": avg("unscoped"),
        "foreign_in_top10": avg("foreign_in_top10"),
        "share_with_foreign": round(sum(r["queries_with_foreign"] for r in rows) / sampled, 4)
        if sampled
        else None,
        "share_displaced": round(sum(r["queries_displaced"] for r in rows) / sampled, 4) if sampled else None,
    }
    ref, scoped = out["reference_ndcg10"], out["scoped_ndcg10"]
    out["scoped_minus_reference"] = round(scoped - ref, 4) if ref is not None and scoped is not None else None
    return out


def render(data: dict[str, Any]) -> str:
    lines = [
        f"{data['served_repositories']} repositories in one server (start {data['server_start_s']}s, first "
        f"search {data['first_search_s']}s); unscoped: every {data['unscoped_every']}th query of each repository",
        f"{'half':<8} {'repos':>5} {'queries':>7} {'1 server/repo':>13} {'scoped':>7} {'diff':>7} "
        f"{'sampled':>7} {'scoped':>7} {'unscoped':>8} {'foreign/10':>10} {'displaced':>9}",
    ]
    for half, s in data["halves"].items():
        if s is None:
            continue
        lines.append(
            f"{half:<8} {s['repos']:>5} {s['queries']:>7} {s['reference_ndcg10']:>13.4f} {s['scoped_ndcg10']:>7.4f} "
            f"{s['scoped_minus_reference']:>+7.4f} {s['unscoped_queries']:>7} "
            f"{_f(s['scoped_ndcg10_sampled'])} {_f(s['unscoped_ndcg10_sampled'], 8)} "
            f"{_f(s['foreign_in_top10'], 10, 2)} {_f(s['share_displaced'], 9, 3)}"
        )
    return "\n".join(lines)


def _f(value: float | None, width: int = 7, digits: int = 4) -> str:
    return f"{'-':>{width}}" if value is None else f"{value:>{width}.{digits}f}"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m benchmarks cross-repo", description=__doc__.split("\n")[0])
    p.add_argument(
        "--suite", type=Path, default=DEFAULT_SUITE, help="the peer suite (default ../shared/peer-bench)"
    )
    p.add_argument(
        "--half", choices=["tuning", "report", "all"], default="all", help="whose queries are asked"
    )
    p.add_argument("--repo", action="append", help="only this repository's queries (repeatable)")
    p.add_argument("--unscoped-every", type=int, default=4,
                   help="ask every Nth query of each repository unscoped too (0: none; 1: all)")  # fmt: skip
    p.add_argument("--timeout", type=float, default=900.0, help="seconds to wait for one reply")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    import anyio

    args = build_parser().parse_args(argv)
    if args.unscoped_every < 0:
        print("cross-repo: --unscoped-every must be 0 or more", file=sys.stderr)
        return 2
    if not (args.suite / "peerbench").is_dir():
        print(
            f"cross-repo: no peer suite at {args.suite}; pass --suite or set PEERBENCH_DIR", file=sys.stderr
        )
        return 2
    data = anyio.run(measure, args)
    print(json.dumps(data) if args.json else render(data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
