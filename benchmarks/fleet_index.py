"""``fleet``: the peer suite's repositories indexed one after another, then as Ray tasks, then again.

``python -m benchmarks fleet [--suite DIR] [--tier fast|full] [--cpus N] [--half all] [--json]``

Three passes over the same repositories, each into fresh index locations under one temporary base
(nothing is written to the corpora or to plait's cache):

1. **single process**: :func:`indexer.fleet.run_here`, the repositories one after another;
2. **Ray**: :func:`indexer.fleet.run_on_ray` on a local Ray instance started with ``--cpus`` CPUs
   (``ray.init(num_cpus=N)``), one task per repository, into a second base;
3. **Ray, again**: the same jobs on the same indexes, which should rebuild nothing.

Both builds embed with the same tier and start without an embedding cache (fresh locations). The
figure is wall time per pass; Ray's start (``ray.init``) is reported apart from pass 2.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks.cross_repo import DEFAULT_SUITE


def measure(args: argparse.Namespace) -> dict[str, Any]:
    sys.path.insert(0, str(args.suite))
    from peerbench.common import DEFAULT_CACHE, corpus_root, manifest_repos

    from indexer import fleet_summary, plan_fleet, run_fleet_here, run_fleet_on_ray

    specs = manifest_repos()
    chosen = {"tuning": specs[0::2], "report": specs[1::2]}.get(args.half, specs)
    if args.repo:
        chosen = [s for s in chosen if s["name"] in args.repo]
    roots = [corpus_root(DEFAULT_CACHE, s["name"]) for s in chosen]
    vectors = not args.no_vectors
    out: dict[str, Any] = {
        "repositories": len(roots),
        "tier": args.tier if vectors else "none",
        "cpus": args.cpus,
    }
    with tempfile.TemporaryDirectory(prefix="plait-fleet-", dir=args.workdir) as tmp:
        env = dict(os.environ)
        here_jobs = plan_fleet(roots, base=f"{tmp}/single", env=env)
        t = time.perf_counter()
        single = run_fleet_here(here_jobs, vectors=vectors, tier=args.tier)
        out["single_s"] = round(time.perf_counter() - t, 1)
        out["single"] = fleet_summary(single)
        print(f"fleet: single process {out['single_s']}s {out['single']}", file=sys.stderr)

        import ray

        t = time.perf_counter()
        ray.init(num_cpus=args.cpus, include_dashboard=False, log_to_driver=False)
        out["ray_init_s"] = round(time.perf_counter() - t, 1)
        try:
            ray_jobs = plan_fleet(roots, base=f"{tmp}/ray", env=env)
            t = time.perf_counter()
            first = run_fleet_on_ray(ray_jobs, vectors=vectors, tier=args.tier)
            out["ray_s"] = round(time.perf_counter() - t, 1)
            out["ray"] = fleet_summary(first)
            out["ray_workers"] = len({r.worker for r in first})
            print(f"fleet: ray {out['ray_s']}s {out['ray']}", file=sys.stderr)
            t = time.perf_counter()
            again = run_fleet_on_ray(ray_jobs, vectors=vectors, tier=args.tier)
            out["ray_rerun_s"] = round(time.perf_counter() - t, 1)
            out["ray_rerun"] = fleet_summary(again)
            print(f"fleet: ray again {out['ray_rerun_s']}s {out['ray_rerun']}", file=sys.stderr)
        finally:
            ray.shutdown()
        out["files"] = sum(r.files for r in first)
        out["chunks"] = sum(r.chunks for r in first)
        out["same_counts"] = [(r.files, r.chunks) for r in single] == [(r.files, r.chunks) for r in first]
        out["failed"] = [r.as_dict() for r in (*single, *first, *again) if r.outcome == "failed"][:5]
        out["slowest"] = sorted(((r.seconds, Path(r.root).parent.name) for r in single), reverse=True)[:5]
    return out


def render(d: dict[str, Any]) -> str:
    return "\n".join(
        [
            f"{d['repositories']} repositories, {d['files']:,} files, {d['chunks']:,} chunks, tier {d['tier']}",
            f"single process      {d['single_s']:>8.1f}s  {d['single']}",
            f"Ray, {d['cpus']} CPUs ({d['ray_workers']} workers) {d['ray_s']:>8.1f}s  {d['ray']}"
            f"  (+ ray.init {d['ray_init_s']:.1f}s)",
            f"Ray, again          {d['ray_rerun_s']:>8.1f}s  {d['ray_rerun']}",
            f"same files and chunks both ways: {d['same_counts']}",
        ]
    )


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m benchmarks fleet", description=__doc__.split("\n")[0])
    p.add_argument(
        "--suite", type=Path, default=DEFAULT_SUITE, help="the peer suite (default ../shared/peer-bench)"
    )
    p.add_argument("--half", choices=["tuning", "report", "all"], default="all")
    p.add_argument("--repo", action="append", help="only this repository (repeatable)")
    p.add_argument("--tier", choices=["fast", "full"], default="fast", help="vector tier both passes embed")
    p.add_argument("--no-vectors", action="store_true", help="symbols and chunks only")
    p.add_argument("--cpus", type=int, default=2, help="CPUs of the local Ray instance")
    p.add_argument("--workdir", type=Path, help="where the temporary indexes go (default: the temp dir)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.cpus < 1:
        print("fleet: --cpus must be at least 1", file=sys.stderr)
        return 2
    try:
        import ray  # noqa: F401
    except ImportError:
        print("fleet: needs Ray: pip install 'plait[cluster]'", file=sys.stderr)
        return 2
    data = measure(args)
    print(json.dumps(data) if args.json else render(data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
