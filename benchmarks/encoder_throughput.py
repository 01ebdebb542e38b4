"""``python -m benchmarks encoder-throughput``: the transformer tier's chunks per second, this checkout
of plait against another on the same chunk texts (issue 16's target: ≥ 2× the issue's encoder), or
with ``--tier fast`` the fast tier's; ``--device cuda`` times the transformer on a GPU (torch), and is
skipped, saying so, on a machine without one.

Each run is a fresh process that loads the tree's embedder as plait's build does (``load_embedder``
with the given backend, ``auto`` by default: ONNX int8 on a CPU; with ``--tier fast`` the static model
reading a text's first ``STATIC_MAX_TOKENS`` tokens, in this one process), embeds a few texts to load and warm
it, then times ``--repeats`` passes of ``embed_documents`` over all the texts; a run's figure is its
best pass. With ``--compare TREE`` the two trees alternate run by run (ABBA), each with its own model
cache under ``--cache-dir`` (made on the first run, outside the timing), and the ratio of the medians
is reported. The texts are a JSON list of strings (``--texts``) or the chunks of a workspace plait has
indexed (``--chunks-of ROOT``, read from its index, ordered by path and line), then ``--min-chars``
and ``--limit`` choose among them.

    plait index /tmp/peerbench-cache/repos/tokio/root --tier fast
    python -m benchmarks encoder-throughput --chunks-of /tmp/peerbench-cache/repos/tokio/root \\
        --limit 1000 --compare /tmp/issue-tree --cache-dir /tmp/encoder-cache --json
    python -m benchmarks encoder-throughput --chunks-of /tmp/peerbench-cache/repos/tokio/root \\
        --min-chars 1400 --limit 200 --compare /tmp/issue-tree --cache-dir /tmp/encoder-cache --json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks.cold_index import print_compared
from models import ModelConfig, PlaitError

HERE = Path(__file__).resolve().parent.parent  # this checkout of plait

# Runs in the other process, with the tree's packages first on sys.path: only models' public names, and
# only those every tree since the (``17d3346``) has, so that it can be compared with.
_RUN = """
import json, sys, time
from models import ModelConfig, load_embedder
texts_file, backend, cache, repeats, device = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
batch_size = int(sys.argv[6])
texts = json.load(open(texts_file, encoding="utf-8"))
if backend == "fast-tier":  # what indexer.embedding.tier_config makes of the default model
    from models import STATIC_MAX_TOKENS  # a tree from before the fast tier has none: it fails here
    config = ModelConfig(backend="static", device="cpu", max_seq_length=STATIC_MAX_TOKENS, cache_dir=cache)
else:
    config = ModelConfig(backend=backend, device=device, cache_dir=cache, batch_size=batch_size)
embedder = load_embedder(config)
embedder.embed_documents(texts[:8])
passes = []
for _ in range(repeats):
    cpu, wall = time.process_time(), time.perf_counter()
    embedder.embed_documents(texts)
    passes.append([round(time.perf_counter() - wall, 4), round(time.process_time() - cpu, 4)])
# an older tree's embedder does not say its device: the one asked for
where = getattr(embedder, "device", config.device)
print(json.dumps({"model_id": embedder.model_id, "device": where, "batch_size": batch_size, "passes": passes}))
"""


def chunk_texts(root: Path, index_dir: Path | None = None) -> list[str]:
    """The chunk texts of ``root``'s plait index (its own, or the one in ``index_dir``), by path and
    line: the same list from any build of the same files (a table's row order is the build's)."""
    from indexer import Index, load_settings

    overrides = {"index_dir": str(index_dir)} if index_dir is not None else {}
    index = Index(load_settings(root, env={}, overrides=overrides))
    if not index.exists():
        raise PlaitError(f"{root} has no plait index; run plait index {root} --tier fast first")
    table = index.store.read("chunks", ["path", "start_line", "text"]).to_pydict()
    rows = sorted(zip(table["path"], table["start_line"], table["text"], strict=True))
    return [text for _, _, text in rows]


def one_run(
    tree: Path,
    texts_file: Path,
    count: int,
    backend: str,
    cache: Path,
    repeats: int,
    device: str = "cpu",
    batch_size: int = 32,
) -> dict[str, Any]:
    """One process of ``tree``'s plait embedding the ``count`` texts of ``texts_file`` ``repeats``
    times, ``batch_size`` texts a forward pass; its best pass."""
    env = {**os.environ, "PYTHONPATH": str(tree), "HF_HUB_OFFLINE": "1"}
    done = subprocess.run(
        [sys.executable, "-c", _RUN, str(texts_file), backend, str(cache), str(repeats), device, str(batch_size)],
        capture_output=True, text=True, env=env, cwd=tree, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"embedding failed in {tree}:\n{done.stderr[-2000:]}")
    out: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    if out["passes"]:
        out["chunks_per_s"] = round(count / max(min(p[0] for p in out["passes"]), 1e-9), 2)
    return out


def run(
    texts: Sequence[str],
    rounds: int,
    repeats: int,
    backend: str,
    compare: Path | None,
    cache: Path,
    device: str = "cpu",
    batch_size: int = 32,
) -> dict[str, Any]:
    trees = {"this": HERE} if compare is None else {"this": HERE, "compare": compare}
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
    with tempfile.TemporaryDirectory(prefix="encoder-throughput-") as tmp:
        texts_file = Path(tmp) / "texts.json"
        texts_file.write_text(json.dumps(list(texts)), encoding="utf-8")
        for name, tree in trees.items():  # exports made here, outside the timed runs
            one_run(tree, texts_file, len(texts), backend, cache / name, 0, device, batch_size)
        for r in range(rounds):
            order = list(trees) if r % 2 == 0 else list(reversed(trees))
            for name in order:
                runs[name].append(
                    one_run(
                        trees[name],
                        texts_file,
                        len(texts),
                        backend,
                        cache / name,
                        repeats,
                        device,
                        batch_size,
                    )
                )
    out: dict[str, Any] = {
        "texts": len(texts), "rounds": rounds, "repeats": repeats, "batch_size": batch_size, "trees": list(trees),
    }  # fmt: skip
    for name, tree in trees.items():
        out[name] = {
            "tree": str(tree),
            "model_id": runs[name][0]["model_id"],
            "device": runs[name][0]["device"],
            "runs": runs[name],
            "median_chunks_per_s": round(statistics.median(r["chunks_per_s"] for r in runs[name]), 2),
        }
    if compare is not None:
        out["this_over_compare"] = round(
            out["this"]["median_chunks_per_s"] / out["compare"]["median_chunks_per_s"], 3
        )
    return out


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m benchmarks encoder-throughput", description=__doc__.split("\n\n")[0]
    )
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--texts", type=Path, help="a JSON list of chunk texts")
    source.add_argument("--chunks-of", type=Path, help="the chunks of this workspace's plait index")
    p.add_argument(
        "--index-dir", type=Path, help="with --chunks-of: the index is here, not in its default place"
    )
    p.add_argument("--min-chars", type=int, default=0, help="only texts of at least N characters")
    p.add_argument("--limit", type=int, help="only the first N texts (after --min-chars)")
    p.add_argument("--rounds", type=int, default=2, help="runs per tree, alternated (default 2)")
    p.add_argument("--repeats", type=int, default=2, help="timed passes per run, the best counts (default 2)")
    p.add_argument("--backend", default="auto", help="model.backend of both trees (default auto)")
    p.add_argument(
        "--device", choices=("cpu", "cuda", "auto"), default="cpu",
        help="model.device of the full tier (default cpu); cuda is skipped, with a message, without a GPU",
    )  # fmt: skip
    p.add_argument(
        "--tier", choices=("full", "fast"), default="full",
        help="the tier whose model runs (default full: the transformer, of --backend)",
    )  # fmt: skip
    p.add_argument(
        "--batch-size", type=int, default=ModelConfig().batch_size,
        help="model.batch_size of the full tier, texts a forward pass (default: plait's, %(default)s)",
    )  # fmt: skip
    p.add_argument("--compare", type=Path, help="another checkout of plait, run alternated with this one")
    p.add_argument("--cache-dir", type=Path, help="model caches, one per tree (default: temporary)")
    p.add_argument("--json", action="store_true", help="print one JSON object (else the medians)")
    args = p.parse_args(argv)
    if args.rounds < 1 or args.repeats < 1 or args.batch_size < 1:
        p.error("--rounds, --repeats and --batch-size must be at least 1")
    if args.index_dir is not None and args.chunks_of is None:
        p.error("--index-dir goes with --chunks-of")
    if args.tier == "fast" and (
        args.backend != "auto" or args.device != "cpu" or args.batch_size != ModelConfig().batch_size
    ):
        p.error(
            "--backend, --device and --batch-size choose the full tier's model; the fast tier's is the static"
            " one, on the CPU, reading a batch in parts itself"
        )
    if args.device == "cuda" and not _cuda_found():
        skipped = "no CUDA device here (torch.cuda.is_available() is False): nothing to time"
        print(json.dumps({"device": "cuda", "skipped": skipped}) if args.json else f"skipped: {skipped}")
        return 0
    if args.texts is not None:
        texts = json.loads(args.texts.read_text(encoding="utf-8"))
        if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
            p.error(f"{args.texts} is not a JSON list of strings")
    else:
        if not args.chunks_of.is_dir():
            p.error(f"{args.chunks_of} is not a directory")
        try:
            texts = chunk_texts(
                args.chunks_of.resolve(), args.index_dir.resolve() if args.index_dir else None
            )
        except PlaitError as exc:
            p.error(str(exc))
    texts = [t for t in texts if len(t) >= args.min_chars]
    texts = texts[: args.limit] if args.limit else texts
    if not texts:
        p.error("no texts to embed")
    compare = args.compare.resolve() if args.compare else None
    with tempfile.TemporaryDirectory(prefix="encoder-cache-") as tmp:
        cache = args.cache_dir.resolve() if args.cache_dir else Path(tmp)
        backend = "fast-tier" if args.tier == "fast" else args.backend
        data = run(texts, args.rounds, args.repeats, backend, compare, cache, args.device, args.batch_size)
    print_compared(data, args.json, lambda name, d: (
        f"{name}: {d['median_chunks_per_s']:.1f} chunks/s (median of {args.rounds} runs), {d['model_id']}"
        f" on {d['device']}, batches of {args.batch_size}"
    ))  # fmt: skip
    return 0


def _cuda_found() -> bool:
    """Whether the transformer would run on CUDA here with ``model.device = "auto"`` (the loader's own
    resolution: torch finds a GPU); a CUDA run is skipped where it would not."""
    from models import ModelConfig, load_embedder

    return load_embedder(ModelConfig(backend="torch", device="auto")).device == "cuda"


if __name__ == "__main__":
    sys.exit(main())
