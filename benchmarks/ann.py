"""``python -m benchmarks ann``: where an ANN index pays, and what it costs in recall.

Takes the vectors of a built plait index, grows tables of several sizes from them (each extra copy is
the originals with small Gaussian noise, re-normalised, so the neighbourhood structure stays
realistic), and for each size measures exact-search latency, the build time of plait's ANN index
(``indexer.ANN_INDEX_TYPE``, searched as plait searches it), ANN latency
and recall@10 against exact search on the same table, for queries embedded with the index's model.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import lancedb
import numpy as np
import pyarrow as pa

from indexer import (
    ANN_INDEX_TYPE,
    ANN_NPROBES,
    ANN_REFINE,
    Index,
    ann_ef,
    find_root,
    load_settings,
    vector_matrix,
)


def _grow(base: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    parts = [base]
    while sum(len(p) for p in parts) < size:
        noisy = base + rng.normal(0, 0.02, base.shape).astype(np.float32)
        parts.append(noisy / np.linalg.norm(noisy, axis=1, keepdims=True))
    return np.concatenate(parts)[:size]


def _search(tbl: Any, q: np.ndarray, exact: bool) -> tuple[list[int], float]:
    t = time.perf_counter()
    query = tbl.search(q.tolist()).metric("cosine").limit(10).select(["id", "_distance"])
    if exact:
        query = query.bypass_vector_index()
    else:
        query = query.ef(ann_ef(10)).refine_factor(ANN_REFINE).nprobes(ANN_NPROBES)
    ids = [r["id"] for r in query.to_list()]
    return ids, (time.perf_counter() - t) * 1000


def measure(
    vectors: np.ndarray, queries: np.ndarray, sizes: Sequence[int], seed: int
) -> list[dict[str, Any]]:
    rng = np.random.default_rng(seed)
    out = []
    with tempfile.TemporaryDirectory(prefix="plait-ann-") as tmp:
        db = lancedb.connect(tmp)
        for size in sizes:
            mat = _grow(vectors, size, rng)
            dim = mat.shape[1]
            flat = pa.array(mat.reshape(-1), pa.float32())
            table = pa.table({"id": pa.array(range(size), pa.int64()),
                              "vector": pa.FixedSizeListArray.from_arrays(flat, dim)})  # fmt: skip
            tbl = db.create_table(f"t{size}", table, mode="overwrite")
            exact = [_search(tbl, q, True) for q in queries]
            t = time.perf_counter()
            tbl.create_index(metric="cosine", index_type=ANN_INDEX_TYPE,
                             num_partitions=max(1, min(256, size // 4096)), vector_column_name="vector")  # fmt: skip
            build_s = time.perf_counter() - t
            ann = [_search(tbl, q, False) for q in queries]
            recall = statistics.mean(len(set(a[0]) & set(e[0])) / 10 for a, e in zip(ann, exact, strict=True))
            out.append({
                "rows": size,
                "exact_p50_ms": statistics.median(e[1] for e in exact),
                "ann_p50_ms": statistics.median(a[1] for a in ann),
                "ann_build_s": build_s,
                "recall_at_10": recall,
            })  # fmt: skip
    return out


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks ann", description=__doc__)
    p.add_argument("--root", required=True, help="a workspace with a built plait index (with vectors)")
    p.add_argument("--index-dir")
    p.add_argument("--sizes", default="10000,25000,50000,100000")
    p.add_argument("--queries", type=int, default=50)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    overrides = {"index_dir": args.index_dir} if args.index_dir else {}
    settings = load_settings(find_root(Path(args.root)), env=os.environ, overrides=overrides)
    index = Index(settings)
    meta = index.store.get_meta().get("model") or {}
    table = index.store.read(str(meta.get("table")), ["text", "vector"])
    if table.num_rows == 0:
        print("plait: the index has no vectors; run `plait index` first")
        return 2
    vectors = vector_matrix(table.column("vector"))
    texts = table.column("text").to_pylist()
    rng = np.random.default_rng(args.seed)
    picks = rng.choice(len(texts), size=min(args.queries, len(texts)), replace=False)
    embedder = index.embedder()
    queries = np.stack([embedder.embed_query(" ".join(texts[i].split("\n")[1:3])[:200]) for i in picks])
    rows = measure(vectors, queries, [int(s) for s in args.sizes.split(",")], args.seed)
    if args.json:
        print(json.dumps({"model": meta.get("id"), "base_vectors": len(vectors), "results": rows}))
        return 0
    print(f"model {meta.get('id')}, base vectors {len(vectors):,}, {len(queries)} queries")
    print(f"{'rows':>8} {'exact p50 ms':>13} {'ANN p50 ms':>11} {'ANN build s':>12} {'recall@10':>10}")
    for r in rows:
        print(f"{r['rows']:>8,} {r['exact_p50_ms']:>13.1f} {r['ann_p50_ms']:>11.1f} {r['ann_build_s']:>12.1f} "
              f"{r['recall_at_10']:>10.3f}")  # fmt: skip
    return 0
