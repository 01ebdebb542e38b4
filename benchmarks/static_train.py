"""``static-train``: fit the fast tier's static table on code (:mod:`models.static_fit`) and check it.

The corpus is the peer suite's **tuning half** (``../shared/peer-bench``, positions 0, 2, 4, … of its
manifest): every chunk plait makes of those 20 repositories, with the vector the full tier (the
teacher, all-MiniLM-L6-v2 as plait runs it) gave it. The repositories must be fetched and indexed
(``plait index ROOT``; the suite's README says how); the report half is never read.

``--folds 2`` measures before it writes: the table is fitted on one half of the repositories and the
other half's queries are ranked by vectors alone (each chunk by cosine, NDCG@10 as the suite scores
it), then the other way round; the teacher's and the distilled table's figures stand beside it.
Without ``--folds`` the table is fitted on all of them and written to ``--out`` (by default the
file plait ships, ``models/data/static-minilm-code.npz``)::

    python -m benchmarks static-train --folds 2 --json
    python -m benchmarks static-train
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from models import PlaitError


@dataclass
class Corpus:
    """One indexed repository: its chunks (spans, token ids, teacher vectors) and the suite's queries."""

    name: str
    prefix: str
    tasks: list[Any]
    spans: list[tuple[str, int, int]]
    ids: list[list[int]]
    vectors: np.ndarray
    query_vectors: np.ndarray
    query_ids: list[list[int]]


def load(suite: Path, half: str, model_dir: str, *, repos: Sequence[str] | None = None) -> list[Corpus]:
    """The chosen half's indexed repositories (``half`` is ``tuning`` unless a test says otherwise).

    Raises:
        PlaitError: no peer suite at ``suite``, ``repos`` names none of the half, or one is not indexed.
    """
    if not (suite / "peerbench").is_dir() or not (suite / "manifest.json").is_file():
        raise PlaitError(
            f"no peer suite at {suite} (a folder with peerbench/ and manifest.json); pass --suite"
        )
    sys.path.insert(0, str(suite))
    from peerbench.common import DEFAULT_CACHE, corpus_root, manifest_repos
    from peerbench.tasks import build_tasks

    from indexer import Index, load_settings
    from models import static_token_ids

    specs = manifest_repos()
    chosen = {"tuning": specs[0::2], "report": specs[1::2]}[half]
    unknown = sorted(set(repos or ()) - {spec["name"] for spec in chosen})
    if unknown:
        names = ", ".join(spec["name"] for spec in chosen)
        raise PlaitError(f"not in the {half} half: {', '.join(unknown)}; choose from {names}")
    out = []
    for spec in chosen:
        name = spec["name"]
        if repos and name not in repos:
            continue
        root = corpus_root(DEFAULT_CACHE, name)
        index = Index(load_settings(root, env={}))
        tier = index.search_tier() if index.exists() else None
        if tier is None or tier[0] != "full":
            raise PlaitError(f"{name} has no complete full-tier index; run plait index {root}")
        table = index.store.read(
            index.vector_table_name(), ["chunk_id", "path", "start_line", "end_line", "vector"]
        )
        chunks = index.store.read("chunks", ["chunk_id", "text"])  # a vectors table holds no text
        text_of = dict(
            zip(chunks.column("chunk_id").to_pylist(), chunks.column("text").to_pylist(), strict=True)
        )
        texts = [text_of[cid] for cid in table.column("chunk_id").to_pylist()]
        vectors = np.asarray(table.column("vector").to_pylist(), dtype=np.float32)
        prefix = (spec["semble_pin"]["benchmark_root"] or "").strip("/")
        tasks = build_tasks(name, root, prefix).tasks
        embedder = index.embedder()
        query_vectors = np.stack([embedder.embed_query(t.query) for t in tasks])
        spans = list(zip(table.column("path").to_pylist(), table.column("start_line").to_pylist(),
                         table.column("end_line").to_pylist(), strict=True))  # fmt: skip
        out.append(Corpus(name, prefix, tasks, spans, static_token_ids(model_dir, texts), vectors,
                          query_vectors, static_token_ids(model_dir, [t.query for t in tasks])))  # fmt: skip
        print(f"static-train: {name}: {len(texts)} chunks, {len(tasks)} queries", file=sys.stderr)
    return out


def vector_ndcg(corpus: Corpus, docs: np.ndarray, queries: np.ndarray) -> float:
    """Mean NDCG@10 of the corpus's queries ranked by cosine alone (one hit per chunk)."""
    from peerbench.metric import Hit, mean, score_query

    scores = _unit(queries) @ _unit(docs).T
    out = []
    for task, row in zip(corpus.tasks, scores, strict=True):
        top = np.argsort(-row, kind="stable")[:10]
        hits = [
            Hit(f"{corpus.prefix}/{p}" if corpus.prefix else p, s, e)
            for p, s, e in (corpus.spans[k] for k in top)
        ]
        out.append(score_query(hits, task.targets)[0])
    return float(mean(out))


def mean_rows(rows: np.ndarray, ids: list[list[int]]) -> np.ndarray:
    out = np.zeros((len(ids), rows.shape[1]), dtype=np.float32)
    for k, t in enumerate(ids):
        if t:
            out[k] = rows[np.asarray(t, dtype=np.int64)].mean(axis=0)
    return out


def _unit(m: np.ndarray) -> np.ndarray:
    return m / np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-12)


def _train(model_dir: str, corpora: list[Corpus], epochs: int | None) -> np.ndarray:
    from models import train_static_table

    ids = [t for c in corpora for t in c.ids]
    targets = np.concatenate([c.vectors for c in corpora])
    started = time.perf_counter()

    def report(epoch: int, loss: float) -> None:
        print(f"static-train: epoch {epoch + 1}: loss {loss:.4f} ({time.perf_counter() - started:.0f}s)",
              file=sys.stderr)  # fmt: skip

    return train_static_table(model_dir, ids, targets, epochs=epochs, on_epoch=report)


def folds(model_dir: str, corpora: list[Corpus], count: int, epochs: int | None) -> dict[str, Any]:
    """Fit on all folds but one, score the one left out by vectors alone; every fold in turn.
    ``distilled`` is the same recipe with no pass over the corpus (the starting rows, reduced)."""
    per: dict[str, dict[str, float]] = {}
    for k in range(count):
        held = [c for i, c in enumerate(corpora) if i % count == k]
        fitted = [c for i, c in enumerate(corpora) if i % count != k]
        distilled = _train(model_dir, fitted, 0)
        rows = _train(model_dir, fitted, epochs)
        for c in held:
            per[c.name] = {
                "teacher": vector_ndcg(c, c.vectors, c.query_vectors),
                "distilled": vector_ndcg(c, mean_rows(distilled, c.ids), mean_rows(distilled, c.query_ids)),
                "trained": vector_ndcg(c, mean_rows(rows, c.ids), mean_rows(rows, c.query_ids)),
            }
    names = [c.name for c in corpora]
    means = {
        m: round(float(np.mean([per[n][m] for n in names])), 4) for m in ("teacher", "distilled", "trained")
    }
    return {"folds": count, "repos": len(names), "mean_of_repos": means,
            "per_repo": {n: {m: round(v, 4) for m, v in per[n].items()} for n in names}}  # fmt: skip


def _fold_table(result: dict[str, Any]) -> str:
    lines = [f"vectors alone, NDCG@10 on held-out repositories ({result['folds']} folds)",
             f"{'repo':24s} {'teacher':>8s} {'distilled':>9s} {'trained':>8s}"]  # fmt: skip
    rows = [*result["per_repo"].items(), ("mean of repos", result["mean_of_repos"])]
    lines += [f"{n:24s} {v['teacher']:8.3f} {v['distilled']:9.3f} {v['trained']:8.3f}" for n, v in rows]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks static-train", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    p.add_argument("--suite", type=Path, default=Path("../shared/peer-bench"), help="the peer suite's folder")
    p.add_argument("--repo", action="append", help="only this repository of the tuning half (repeatable)")
    p.add_argument(
        "--folds", type=int, default=0, help="measure on N folds of repositories instead of writing"
    )
    p.add_argument("--epochs", type=int, default=None, help="passes over the corpus (default: the recipe's)")
    p.add_argument("--out", type=Path, help="where to write the table (default: the file plait ships)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    args = p.parse_args(argv)
    from models import DEFAULT_MODEL, resolve_model_path, write_static_table

    epochs: int | None = args.epochs
    model_dir = resolve_model_path(DEFAULT_MODEL)
    try:
        corpora = load(args.suite.resolve(), "tuning", model_dir, repos=args.repo)
        if not corpora:
            raise PlaitError("no repository of the tuning half is indexed")
        if args.folds:
            if args.folds < 2 or args.folds > len(corpora):
                raise PlaitError(f"--folds must be between 2 and {len(corpora)}")
            result = folds(model_dir, corpora, args.folds, epochs)
            print(json.dumps(result) if args.json else _fold_table(result))
            return 0
        rows = _train(model_dir, corpora, epochs)
    except PlaitError as exc:
        print(f"benchmarks: {exc}", file=sys.stderr)
        return 2
    info: dict[str, Any] = {
        "corpus": "peer suite, tuning half",
        "repos": {c.name: len(c.ids) for c in corpora},
    }
    if epochs is not None:
        info["epochs"] = epochs
    path = write_static_table(rows, model_dir, info, **({"path": args.out} if args.out else {}))
    result = {"written": str(path), "bytes": path.stat().st_size, **info}
    print(json.dumps(result) if args.json else f"static-train: wrote {path} ({path.stat().st_size:,} bytes)")
    return 0
