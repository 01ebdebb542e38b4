"""Warm ``search`` latency through the MCP server over stdio, next to the same query through the library.

``python -m benchmarks.mcp_latency [--root ROOT] [--mode hybrid] [--rounds 5] [--json]``

One run, one machine, both paths warm:

- **library**: ``search.Engine`` in this process, after ``warm()`` (model and tables loaded) and one
  untimed query;
- **mcp-stdio**: a real ``plait serve --root ROOT`` subprocess (which preloads in the background),
  driven by the ``mcp`` package's ``Client`` over stdio, after one untimed ``search`` call (which
  waits for the preload). Each sample is the whole ``tools/call`` round trip: JSON-RPC over pipes,
  argument validation, the engine call in a worker thread, the structured and text result.

Queries alternate between the two paths (library, then MCP, for each query of each round) so that
machine noise hits both alike. Percentiles are nearest-rank. The index must exist (``plait index
ROOT``); nothing is written to the repository.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

DEFAULT_QUERIES = (
    "reciprocal rank fusion of retriever rankings",
    "parse_scope",
    "where are files confined to the workspace roots",
    "embedding cache keyed by content hash",
    "writer lock for the index",
    "ripgrep json output parsing",
    "RetryPolicy",
    "tree-sitter tags query for python",
    "bearer token check for HTTP requests",
    "Engine.search",
)


def percentile(samples: Sequence[float], p: float) -> float:
    """Nearest-rank percentile (``p`` in 0..100); ``nan`` without samples."""
    if not samples:
        return math.nan
    ordered = sorted(samples)
    return ordered[max(1, math.ceil(p / 100 * len(ordered))) - 1]


def summary(samples: Sequence[float]) -> dict[str, float]:
    return {
        "n": len(samples),
        "p50_ms": round(percentile(samples, 50), 2),
        "p95_ms": round(percentile(samples, 95), 2),
        "max_ms": round(max(samples), 2) if samples else math.nan,
    }


def server_env() -> dict[str, str]:
    """The variables ``plait serve`` needs from ours (the SDK passes only a minimal environment)."""
    keep = ("PLAIT_", "HF_", "TRANSFORMERS_", "OMP_", "MKL_", "TOKENIZERS_", "CUDA_", "PYTHON")
    return {k: v for k, v in os.environ.items() if k.startswith(keep)}


async def measure(args: argparse.Namespace) -> dict[str, Any]:
    from mcp import Client, StdioServerParameters

    from indexer import load_settings
    from search import Engine, Query, parse_scope

    root = Path(args.root).resolve()
    overrides = {k: v for k, v in (("index_dir", args.index_dir), ("model_name", args.model)) if v}
    settings = load_settings(root, env=os.environ, overrides=overrides)
    engine = Engine(settings)
    if not engine.index.exists():
        raise SystemExit(f"mcp_latency: {root} has no index; run `plait index {root}` first")
    queries = list(args.query or DEFAULT_QUERIES)
    scope = parse_scope("ws")

    def library(text: str) -> float:
        started = time.perf_counter()
        engine.search(Query(text, mode=args.mode, limit=args.limit), scope)
        return (time.perf_counter() - started) * 1000

    started = time.perf_counter()
    engine.warm()
    library(queries[0])
    library_warmup_ms = (time.perf_counter() - started) * 1000

    flags = ["--root", str(root)]
    flags += ["--index-dir", args.index_dir] if args.index_dir else []
    flags += ["--model", args.model] if args.model else []
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "search.frontends.cli", "serve", *flags], env=server_env()
    )
    lib_samples: list[float] = []
    mcp_samples: list[float] = []
    spawn = time.perf_counter()
    async with Client(params, read_timeout_seconds=600) as client:
        start_ms = (time.perf_counter() - spawn) * 1000
        call = {"query": queries[0], "mode": args.mode, "limit": args.limit}
        first = time.perf_counter()
        result = await client.call_tool("search", call)
        first_ms = (time.perf_counter() - first) * 1000
        if result.is_error:
            raise SystemExit(f"mcp_latency: the server's search failed: {result.content}")
        for _ in range(args.rounds):
            for text in queries:
                lib_samples.append(library(text))
                t = time.perf_counter()
                result = await client.call_tool(
                    "search", {"query": text, "mode": args.mode, "limit": args.limit}
                )
                mcp_samples.append((time.perf_counter() - t) * 1000)
                if result.is_error:
                    raise SystemExit(f"mcp_latency: search {text!r} failed over MCP: {result.content}")
    engine.close()
    lib, mcp = summary(lib_samples), summary(mcp_samples)
    return {
        "root": str(root),
        "mode": args.mode,
        "limit": args.limit,
        "queries": len(queries),
        "rounds": args.rounds,
        "model": settings.model.name,
        "library": lib,
        "mcp_stdio": mcp,
        "overhead_p50_ms": round(mcp["p50_ms"] - lib["p50_ms"], 2),
        "overhead_p95_ms": round(mcp["p95_ms"] - lib["p95_ms"], 2),
        "library_warmup_ms": round(library_warmup_ms, 1),
        "mcp_start_ms": round(start_ms, 1),
        "mcp_first_search_ms": round(first_ms, 1),
    }


def render(data: dict[str, Any]) -> str:
    lines = [
        f"warm search latency, mode={data['mode']} limit={data['limit']}, {data['queries']} queries x "
        f"{data['rounds']} rounds, model {data['model']}, root {data['root']}",
        f"{'path':<12} {'n':>5} {'p50 ms':>9} {'p95 ms':>9} {'max ms':>9}",
    ]
    for name, key in (("library", "library"), ("mcp-stdio", "mcp_stdio")):
        s = data[key]
        lines.append(f"{name:<12} {s['n']:>5} {s['p50_ms']:>9.1f} {s['p95_ms']:>9.1f} {s['max_ms']:>9.1f}")
    lines.append(
        f"MCP overhead: p50 {data['overhead_p50_ms']:+.1f} ms, p95 {data['overhead_p95_ms']:+.1f} ms"
    )
    lines.append(
        f"server start (spawn to session) {data['mcp_start_ms']:.0f} ms; first search {data['mcp_first_search_ms']:.0f}"
        f" ms (includes waiting for the background preload); library warm-up {data['library_warmup_ms']:.0f} ms"
    )
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m benchmarks.mcp_latency", description=__doc__.split("\n")[0])
    p.add_argument("--root", default=".", help="an indexed workspace (default: the current directory)")
    p.add_argument("--mode", choices=["hybrid", "text", "symbol", "semantic"], default="hybrid")
    p.add_argument("--limit", type=int, default=10)
    p.add_argument("--rounds", type=int, default=5, help="passes over the query list")
    p.add_argument("--query", action="append", help="a query (repeatable; default: a built-in list)")
    p.add_argument("--index-dir", help="index location (default: plait's)")
    p.add_argument("--model", help="embedding model (default: the workspace's)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    import anyio

    args = build_parser().parse_args(argv)
    if args.rounds < 1 or args.limit < 1:
        print("mcp_latency: --rounds and --limit must be at least 1", file=sys.stderr)
        return 2
    data = anyio.run(measure, args)
    print(json.dumps(data) if args.json else render(data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
