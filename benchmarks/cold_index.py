"""``python -m benchmarks cold-index``: a new workspace made searchable from cold processes (issue 16's
tokio target: ``plait index`` to ``plait status`` fresh, ≤ 5 s).

Each round runs, as a user would, ``plait index ROOT --index-dir NEW --json -q`` in a fresh process
(the default tier unless ``--tier``), then ``plait status ROOT --index-dir NEW --json`` in another, and
checks that the status is ``fresh`` with a vector for every chunk. ``--compare TREE`` runs the same
rounds with another checkout of plait (its packages first on ``PYTHONPATH``), alternated with this one
(ABBA, so a machine that slows down or speeds up during the run weighs on both alike), and reports
the ratio of the medians. Wall times of whole processes: start-up, imports and exit included.

    python -m benchmarks cold-index --root /tmp/peerbench-cache/repos/tokio/root --rounds 4 \\
        --compare /tmp/before --json

``--suite SUITE`` does the same for every repository of the peer suite (``../shared/peer-bench``, its
corpora fetched), one after the other as the suite indexes them, one process per repository: issue
16's 39-repository target is the sum of those ``plait index`` wall times (≤ 90 s). With ``--compare``
the two checkouts alternate repository by repository (ABBA over the suite).

    python -m benchmarks cold-index --suite ../shared/peer-bench --rounds 1 --json
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent  # this checkout of plait


def one_round(root: Path, tree: Path, tier: str | None, work: Path) -> dict[str, Any]:
    """One cold ``plait index`` into a new index directory, then one ``plait status``, with ``tree``'s
    plait; the wall seconds of each process and what they reported."""
    index_dir = Path(tempfile.mkdtemp(prefix="cold-index-", dir=work))
    env = {**os.environ, "PYTHONPATH": str(tree), "HF_HUB_OFFLINE": "1"}
    env.pop("PLAIT_INDEX_DIR", None)
    cli = [sys.executable, "-m", "search.frontends.cli"]
    started = time.perf_counter()
    built = subprocess.run(
        [*cli, "index", str(root), "--index-dir", str(index_dir), "--json", "-q", *(["--tier", tier] if tier else [])],
        capture_output=True, text=True, env=env, cwd=tree, check=False,
    )  # fmt: skip
    indexed = time.perf_counter()
    status = subprocess.run(
        [*cli, "status", str(root), "--index-dir", str(index_dir), "--json"],
        capture_output=True, text=True, env=env, cwd=tree, check=False,
    )  # fmt: skip
    ended = time.perf_counter()
    if built.returncode != 0 or status.returncode != 0:
        raise SystemExit(f"plait failed in {tree}:\n{built.stderr[-2000:]}\n{status.stderr[-2000:]}")
    report, state = json.loads(built.stdout), json.loads(status.stdout)
    fresh = state["state"] == "fresh" and state["vectors"] == state["chunks"] > 0
    return {
        "index_s": round(indexed - started, 3),
        "status_s": round(ended - indexed, 3),
        "total_s": round(ended - started, 3),
        "build_s": report.get("seconds"),
        "chunks": state["chunks"],
        "tier": state.get("search_tier"),
        "fresh": fresh,
        "parsed_ahead": report.get("parsed_ahead"),
    }


def suite_roots(suite: Path) -> list[Path]:
    """The corpus roots of the peer suite's repositories, in its manifest's order."""
    sys.path.insert(0, str(suite))
    from peerbench.common import DEFAULT_CACHE, corpus_root, manifest_repos

    roots = [corpus_root(DEFAULT_CACHE, spec["name"]) for spec in manifest_repos()]
    missing = [str(r) for r in roots if not r.is_dir()]
    if missing:
        raise SystemExit(
            f"{len(missing)} corpora are not fetched (first: {missing[0]}); run `python3 -m peerbench.fetch` in {suite}"
        )
    return roots


def run_suite(
    roots: Sequence[Path], rounds: int, tier: str | None, compare: Path | None, keep: Path | None = None
) -> dict[str, Any]:
    """Each round indexes every root once per tree from cold processes (the trees alternating root by
    root); a round's figure is the sum of its ``plait index`` wall times. With ``keep``, this tree's
    indexes of the last round stay as ``keep/NAME`` (for ``peer-replay --index-dirs``)."""
    trees = {"this": HERE} if compare is None else {"this": HERE, "compare": compare}
    sums: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
    with tempfile.TemporaryDirectory(prefix="cold-index-") as tmp:
        for r in range(rounds):
            per: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
            for i, root in enumerate(roots):
                order = list(trees) if (r * len(roots) + i) % 2 == 0 else list(reversed(trees))
                for name in order:
                    work = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=tmp))
                    got = one_round(root, trees[name], tier, work)
                    got["root"] = root.parent.name if root.name == "root" else root.name
                    per[name].append(got)
                    if keep is not None and name == "this" and r == rounds - 1:
                        (made,) = work.iterdir()  # the index folder one_round made
                        made.rename(keep / got["root"])
                    shutil.rmtree(work, ignore_errors=True)  # what is left of it: made under our temp dir
            for name, series in per.items():
                total = round(sum(g["index_s"] for g in series), 2)
                sums[name].append({
                    "index_s_sum": total,
                    "total_s_sum": round(sum(g["total_s"] for g in series), 2),
                    "all_fresh": all(g["fresh"] for g in series),
                    "load": os.getloadavg()[0],
                    "repos": series,
                })  # fmt: skip
                print(f"round {r + 1} {name}: {len(series)} repositories, plait index {total:.1f} s in all",
                      file=sys.stderr)  # fmt: skip
    out: dict[str, Any] = {
        "repositories": len(roots),
        "rounds": rounds,
        "trees": {n: str(t) for n, t in trees.items()},
    }
    for name, series in sums.items():
        out[name] = {
            "median_index_s_sum": statistics.median(s["index_s_sum"] for s in series),
            "all_fresh": all(s["all_fresh"] for s in series),
            "rounds": series,
        }
    if compare is not None:
        out["this_over_compare"] = round(
            out["this"]["median_index_s_sum"] / out["compare"]["median_index_s_sum"], 3
        )
    return out


def run(root: Path, rounds: int, tier: str | None, compare: Path | None) -> dict[str, Any]:
    trees = {"this": HERE} if compare is None else {"this": HERE, "compare": compare}
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
    with tempfile.TemporaryDirectory(prefix="cold-index-") as tmp:
        for r in range(rounds):
            order = list(trees) if r % 2 == 0 else list(reversed(trees))
            for name in order:
                got = one_round(root, trees[name], tier, Path(tmp))
                got["load"] = os.getloadavg()[0]
                runs[name].append(got)
                print(f"round {r + 1} {name}: total {got['total_s']:.2f} s (index {got['index_s']:.2f}, "
                      f"status {got['status_s']:.2f}), fresh={got['fresh']}", file=sys.stderr)  # fmt: skip
    out: dict[str, Any] = {
        "root": str(root),
        "rounds": rounds,
        "trees": {n: str(t) for n, t in trees.items()},
    }
    for name, series in runs.items():
        out[name] = {
            "median_total_s": statistics.median(g["total_s"] for g in series),
            "median_index_s": statistics.median(g["index_s"] for g in series),
            "median_status_s": statistics.median(g["status_s"] for g in series),
            "all_fresh": all(g["fresh"] for g in series),
            "runs": series,
        }
    if compare is not None:
        out["this_over_compare"] = round(out["this"]["median_total_s"] / out["compare"]["median_total_s"], 3)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks cold-index", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--root", type=Path, help="the workspace to index")
    where.add_argument("--suite", type=Path, help="the peer suite's folder: index each of its repositories")
    p.add_argument(
        "--keep",
        type=Path,
        help="with --suite: leave this tree's indexes in this new folder, one per repository",
    )
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--tier", choices=["auto", "fast", "full"], help="plait index --tier (default: its own)")
    p.add_argument("--compare", type=Path, help="another checkout of plait, run alternated with this one")
    p.add_argument("--json", action="store_true", help="print one JSON object (else the medians)")
    args = p.parse_args(argv)
    compare = args.compare.resolve() if args.compare else None
    if args.keep is not None and args.suite is None:
        p.error("--keep goes with --suite")
    if args.suite is not None:
        keep = args.keep.resolve() if args.keep else None
        if keep is not None:
            if keep.exists() and any(keep.iterdir()):
                p.error(f"--keep {keep} is not empty; name a new folder")
            keep.mkdir(parents=True, exist_ok=True)
        data = run_suite(suite_roots(args.suite.resolve()), args.rounds, args.tier, compare, keep)
        print_compared(data, args.json, lambda name, d: (
            f"{name}: {data['repositories']} repositories, plait index {d['median_index_s_sum']:.1f} s "
            f"in all (median of {data['rounds']} rounds), all fresh: {d['all_fresh']}"
        ))  # fmt: skip
        return 0
    if not args.root.is_dir():
        p.error(f"{args.root} is not a directory")
    data = run(args.root.resolve(), args.rounds, args.tier, compare)
    print_compared(data, args.json, lambda name, d: (
        f"{name}: median {d['median_total_s']:.2f} s (index {d['median_index_s']:.2f}, "
        f"status {d['median_status_s']:.2f}), all fresh: {d['all_fresh']}"
    ))  # fmt: skip
    return 0


def print_compared(data: dict[str, Any], as_json: bool, line: Callable[[str, dict[str, Any]], str]) -> None:
    """``data`` as one JSON object, or a ``line`` per tree and the ratio of the two where compared."""
    if as_json:
        print(json.dumps(data, indent=1))
        return
    for name in data["trees"]:
        print(line(name, data[name]))
    if "this_over_compare" in data:
        print(f"this / compare: {data['this_over_compare']:.3f}")
