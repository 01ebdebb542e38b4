"""``python -m benchmarks large-tree``: what a very large index costs a reader (BENCHMARKS §9, the Linux
kernel's million chunks). Run each part in a fresh process, under ``/usr/bin/time -v`` for the peak:

* ``bm25 --root R [--index-dir D]``: a cold process's BM25 index: the time to map (or, when no file
  is saved for the published chunks, to build and save) it, its first searches, the peak RSS;
* ``ann --root R [--index-dir D]``: recall@10 of the vector index against an exact cosine scan of
  every vector, on natural-language queries embedded by the tier searches rank with, for several
  ``nprobes`` (the exact scan reads the table a page at a time);
* ``search --root R [--index-dir D] [--mode M]``: a cold process's searches through the engine: the
  first (cold) and the next ones (warm), each leg's time, the peak RSS;
* ``build --root R --index-dir D [--tier T | --no-vectors]``: ``plait index`` from scratch into the
  empty ``D``, its wall time and build report, and the memory of *all* its processes (the parse
  workers and the child that saves the BM25 file run beside the build): the peak of their summed
  proportional set size (PSS: a page shared by several is counted once in all) and of their summed
  RSS, sampled every ``--interval`` seconds, and the largest RSS any one of them reached (what
  ``/usr/bin/time -v`` reports). Linux only (``/proc``).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

QUERIES = [
    "ext4 journal commit", "allocate a socket buffer", "page cache writeback of dirty inodes",
    "schedule the next task on a cpu", "parse the device tree", "usb gadget descriptor",
    "tcp congestion window", "spin lock with interrupts disabled", "read the temperature sensor over i2c",
    "map a dma buffer for the device", "mount option parsing", "retry the transfer after a timeout",
    "free the memory of a network device", "crc32 checksum", "wake up the waiting processes",
    "register a character device", "btrfs extent tree", "interrupt handler for the ethernet controller",
    "rcu read lock", "copy data from user space", "initialize the pci bus", "firmware loading failed",
    "cgroup memory limit", "bluetooth pairing key",
]  # fmt: skip
PAGE = 65_536


def _peak_mb() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024


def _index(args: argparse.Namespace) -> Any:
    from indexer import Index, find_root, load_settings

    overrides = {"index_dir": args.index_dir} if args.index_dir else {}
    return Index(load_settings(find_root(Path(args.root)), env=os.environ, overrides=overrides))


def bm25(args: argparse.Namespace) -> dict[str, Any]:
    t0 = time.perf_counter()
    index = _index(args)
    lexical = index.lexical()
    loaded = time.perf_counter() - t0
    searches = []
    for query in QUERIES[: args.queries]:
        t = time.perf_counter()
        hits = lexical.search(query, 20)
        searches.append({"query": query, "ms": round(1000 * (time.perf_counter() - t), 1),
                         "top": [f"{h.path}:{h.start_line}" for h in hits[:3]]})  # fmt: skip
    return {
        "chunks": lexical.size,
        "load_s": round(loaded, 2),
        "searches": searches,
        "peak_rss_mb": _peak_mb(),
    }


def ann(args: argparse.Namespace) -> dict[str, Any]:
    from indexer import ANN_REFINE

    index = _index(args)
    snap = index.snapshot()
    found = index.search_tier(snap)
    if found is None:
        raise SystemExit("the index has no vectors; run `plait index` first")
    tier, entry = found
    table = snap.table(str(entry["table"]))
    embedder = index.tier_embedder(tier)
    queries = np.stack([embedder.embed_query(q) for q in QUERIES[: args.queries]]).astype(np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    t0 = time.perf_counter()
    scores, ids = [], []
    total = int(table.count_rows())
    for start in range(0, total, PAGE):  # exact: cosine against every vector, a page at a time
        page = table.search().select(["vector"]).offset(start).limit(PAGE).with_row_id(True).to_arrow()
        vectors = np.stack(page.column("vector").to_numpy(zero_copy_only=False)).astype(np.float32)
        vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        sims = queries @ vectors.T
        top = np.argpartition(-sims, 10, axis=1)[:, :10]
        scores.append(np.take_along_axis(sims, top, 1))
        ids.append(page.column("_rowid").to_numpy()[top])
    all_scores, all_ids = np.concatenate(scores, 1), np.concatenate(ids, 1)
    exact = np.take_along_axis(all_ids, np.argsort(-all_scores, 1)[:, :10], 1)
    exact_s = time.perf_counter() - t0
    rows = []
    for nprobes in [int(n) for n in args.nprobes.split(",")]:
        hits, times = 0, []
        for i, q in enumerate(queries):
            t = time.perf_counter()
            got = (
                table.search(q.tolist()).metric("cosine").limit(10).nprobes(nprobes).refine_factor(ANN_REFINE)
                .select([]).with_row_id(True).to_arrow().column("_rowid").to_numpy()
            )  # fmt: skip
            times.append(time.perf_counter() - t)
            hits += len(set(got.tolist()) & set(exact[i].tolist()))
        rows.append({"nprobes": nprobes, "refine": ANN_REFINE, "recall_at_10": round(hits / (10 * len(queries)), 3),
                     "median_ms": round(1000 * float(np.median(times)), 1),
                     "max_ms": round(1000 * max(times), 1)})  # fmt: skip
    return {"vectors": total, "queries": len(queries), "exact_scan_s": round(exact_s, 1), "results": rows,
            "peak_rss_mb": _peak_mb()}  # fmt: skip


def search(args: argparse.Namespace) -> dict[str, Any]:
    t0 = time.perf_counter()
    from search import Engine, Query

    index = _index(args)
    engine = Engine(index.settings)
    rows = []
    try:
        for query in [QUERIES[0], *QUERIES[1 : args.queries], QUERIES[0]]:
            t = time.perf_counter()
            res = engine.search(Query(query, mode=args.mode))
            rows.append({"query": query, "ms": round(1000 * (time.perf_counter() - t)),
                         "legs_ms": {k: round(v) for k, v in res.timings_ms.items()},
                         "top": [f"{r.path}:{r.start_line}" for r in res.results[:3]],
                         "peak_rss_mb": _peak_mb()})  # fmt: skip
    finally:
        engine.close()
    return {"mode": args.mode, "process_s": round(time.perf_counter() - t0, 2), "searches": rows,
            "peak_rss_mb": _peak_mb()}  # fmt: skip


def _tree(pid: int) -> list[int]:
    """``pid`` and its descendants, from ``/proc``."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:
            continue  # gone since the listing
        parent = int(stat[stat.rindex(b")") + 2 :].split()[1])  # the name may hold spaces and ")"
        children.setdefault(parent, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children.get(p, ()))
    return out


def _memory_kb(pids: Sequence[int]) -> tuple[int, int]:
    """Summed ``(Pss, Rss)`` in KiB of ``pids`` (those gone since are left out)."""
    pss = rss = 0
    for p in pids:
        try:
            with open(f"/proc/{p}/smaps_rollup") as fh:
                for line in fh:
                    if line.startswith("Pss:"):
                        pss += int(line.split()[1])
                    elif line.startswith("Rss:"):
                        rss += int(line.split()[1])
        except OSError:
            continue
    return pss, rss


def build(args: argparse.Namespace) -> dict[str, Any]:
    import subprocess
    import sys
    import tempfile

    if not Path("/proc/self/smaps_rollup").exists():
        raise SystemExit("large-tree build: needs Linux's /proc/PID/smaps_rollup")
    if not args.index_dir:
        raise SystemExit(
            "large-tree build: pass --index-dir, an empty or missing directory (built from scratch)"
        )
    target = Path(args.index_dir)
    if target.exists() and any(target.iterdir()):
        raise SystemExit(
            f"large-tree build: {target} is not empty; pass a new directory (it builds from scratch)"
        )
    cmd = [
        sys.executable,
        "-m",
        "search.frontends.cli",
        "index",
        args.root,
        "--index-dir",
        args.index_dir,
        "--json",
    ]
    cmd += ["--no-vectors"] if args.no_vectors else ["--tier", args.tier]
    t0 = time.perf_counter()
    # The report goes to a file, not a pipe that nobody reads while the build runs: a report past the
    # pipe's 64 KiB (many unreadable files listed) would block the build, and this loop with it.
    with tempfile.TemporaryFile() as report_file:
        proc = subprocess.Popen(cmd, stdout=report_file, stderr=subprocess.DEVNULL)
        peak_pss = peak_rss = samples = 0
        while proc.poll() is None:
            pss, rss = _memory_kb(_tree(proc.pid))
            if pss:  # a sample read while the child execs, or after it exited, reads nothing
                peak_pss, peak_rss, samples = max(peak_pss, pss), max(peak_rss, rss), samples + 1
            # until a first reading, look often: a small tree's build may be over in a few intervals
            time.sleep(args.interval if samples else min(args.interval, 0.01))
        report_file.seek(0)
        out = report_file.read()
    wall = time.perf_counter() - t0
    own = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # KiB: the largest of the waited-for tree
    report = json.loads(out) if proc.returncode == 0 and out.strip() else None
    return {"command": cmd[3:], "returncode": proc.returncode, "wall_s": round(wall, 1), "report": report,
            "peak_tree_pss_mb": peak_pss // 1024, "peak_tree_rss_mb": peak_rss // 1024,
            "peak_process_rss_mb": own // 1024, "interval_s": args.interval, "samples": samples}  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks large-tree", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    p.add_argument("part", choices=["bm25", "ann", "search", "build"])
    p.add_argument("--root", required=True, help="a workspace with a built plait index (build: to index)")
    p.add_argument("--index-dir")
    p.add_argument("--queries", type=int, default=len(QUERIES), help="how many of the built-in queries")
    p.add_argument("--nprobes", default="20,40,64", help="ann: IVF partitions searched, comma-separated")
    p.add_argument("--mode", default="hybrid", help="search: hybrid, text, semantic, …")
    p.add_argument("--tier", default="fast", choices=["fast", "full"], help="build: the tier to embed")
    p.add_argument("--no-vectors", action="store_true", help="build: symbols and text only")
    p.add_argument("--interval", type=float, default=0.5, help="build: seconds between memory samples")
    args = p.parse_args(argv)
    parts = {"bm25": bm25, "ann": ann, "search": search, "build": build}
    print(json.dumps(parts[args.part](args), indent=1))
    return 0
