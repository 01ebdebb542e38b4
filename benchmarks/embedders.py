"""``python -m benchmarks embed``: the embedding backends side by side on real code.

For each backend (torch fp32, torch bf16, ONNX fp32, ONNX int8, and the static table distilled from
the model, on 128 tokens: the fast tier) of one model it measures, in one run on the same texts:

- **throughput**: chunks/s embedding ~600 function bodies from the CPython standard library
  (median of ``--repeats`` timed passes, the backends interleaved so that background load
  spreads over all of them);
- **cold start**: seconds from ``import models`` to the first vector, in a fresh process, with
  the ONNX export already cached (median of ``--cold-repeats``, after one discarded warm-up run);
- **load**: the first in-process load, which for the ONNX variants includes the one-time export
  (and quantization);
- **quality**: CodeSearchNet-style retrieval over ~300 stdlib functions with docstrings — the
  query is the docstring's first sentence, the document the function without its docstring;
  MRR@10 and Recall@10 of exact cosine search among all documents; plus the cosine of each
  document vector to torch fp32's.

It then names the default: the fastest variant whose MRR@10 is within ``--tolerance`` (0.01)
of torch fp32's. ``--out-dir`` writes ``embedders.json`` and ``embedders.md`` there.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import platform
import random
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import textwrap
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from models import DEFAULT_MODEL, ModelConfig, PlaitError, load_embedder

VARIANTS = ("torch", "torch-bf16", "onnx", "onnx-int8", "static")
#: The static backend reads this many tokens per text (the fast tier's setting, indexer/embedding.py).
STATIC_TOKENS = 128
_SKIP_DIRS = frozenset({"test", "tests", "idlelib", "site-packages", "lib2to3", "turtledemo", "__pycache__"})
_PACKAGES = ("torch", "sentence-transformers", "transformers", "onnxruntime", "onnx", "tokenizers", "numpy")
_COLD_START = (
    "import time\n"
    "t = time.perf_counter()\n"
    "import models\n"
    "e = models.load_embedder(models.ModelConfig(name={name!r}, backend={backend!r}, cache_dir={cache!r},"
    " max_seq_length={seq!r}))\n"
    "e.embed_query('read a file line by line')\n"
    "print(time.perf_counter() - t)\n"
)


@dataclass(frozen=True, slots=True)
class Function:
    """One stdlib function: where it is, its source, and (if any) its docstring's first sentence."""

    name: str  # path relative to the stdlib : qualified name
    source: str  # dedented, decorators excluded
    summary: str | None  # first sentence of the docstring
    body_without_doc: str | None  # the source with the docstring lines removed


@dataclass(frozen=True, slots=True)
class Result:
    backend: str
    model_id: str
    chunks_per_s: float
    pass_s: list[float]
    # per second of this process's CPU time (all its threads): steadier than wall time on a shared machine
    chunks_per_cpu_s: float
    pass_cpu_s: list[float]
    load_s: float
    cold_start_s: float | None
    mrr10: float
    recall10: float
    cosine_to_torch_mean: float | None
    cosine_to_torch_min: float | None


def stdlib_functions(root: Path | None = None) -> list[Function]:
    """Every function and method in the standard library's own modules (tests and IDLE excluded)."""
    base = Path(root or sysconfig.get_paths()["stdlib"])
    found: list[Function] = []
    for path in _python_files(base):
        try:
            text = path.read_text(encoding="utf-8")
            tree = ast.parse(text)
        except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
            continue
        lines = text.splitlines()
        rel = path.relative_to(base).as_posix()
        for qualname, node in _functions(tree):
            found.append(_function(f"{rel}:{qualname}", node, lines))
    return found


def throughput_texts(functions: Sequence[Function], count: int, seed: int) -> list[str]:
    """``count`` function bodies of chunk-like size (5–60 lines), sampled reproducibly."""
    pool = [f.source for f in functions if 5 <= f.source.count("\n") + 1 <= 60 and len(f.source) <= 4000]
    return random.Random(seed).sample(pool, min(count, len(pool)))


def eval_pairs(functions: Sequence[Function], count: int, seed: int) -> list[tuple[str, str]]:
    """``count`` (query, document) pairs with unique queries and documents, sampled reproducibly."""
    candidates = [
        (f.summary, f.body_without_doc)
        for f in functions
        if f.summary and f.body_without_doc and len(f.summary.split()) >= 4
    ]
    query_counts: dict[str, int] = {}
    doc_counts: dict[str, int] = {}
    for query, doc in candidates:
        query_counts[query] = query_counts.get(query, 0) + 1
        doc_counts[doc] = doc_counts.get(doc, 0) + 1
    unique = [(q, d) for q, d in candidates if query_counts[q] == 1 and doc_counts[d] == 1]
    return random.Random(seed).sample(unique, min(count, len(unique)))


def retrieval_scores(queries: np.ndarray, documents: np.ndarray, k: int = 10) -> tuple[float, float]:
    """MRR@k and Recall@k of exact cosine search where query i's only relevant document is i."""
    similarity = queries @ documents.T
    target = similarity[np.arange(len(queries)), np.arange(len(queries))]
    rank = (similarity > target[:, None]).sum(axis=1) + 1  # ties count in the query's favour
    hit = rank <= k
    return float(np.where(hit, 1.0 / rank, 0.0).mean()), float(hit.mean())


def choose_default(results: Sequence[Result], tolerance: float) -> str:
    """The fastest backend whose MRR@10 is within ``tolerance`` of torch fp32 (or of the best)."""
    reference = next((r.mrr10 for r in results if r.backend == "torch"), max(r.mrr10 for r in results))
    eligible = [r for r in results if r.mrr10 >= reference - tolerance]
    return max(eligible, key=lambda r: r.chunks_per_s).backend


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; 0 on success, 2 on a usage or model error (one line on stderr)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = _parser().parse_args(argv)
    args.command = shlex.join(["python", "-m", "benchmarks", "embed", *argv])
    cache = Path(args.cache_dir) if args.cache_dir else Path(tempfile.mkdtemp(prefix="plait-embed-bench-"))
    try:
        report = _run(args, cache)
    except PlaitError as exc:
        print(f"benchmarks embed: {exc}", file=sys.stderr)
        return 2
    finally:
        if not args.cache_dir:
            shutil.rmtree(cache, ignore_errors=True)
    markdown = _markdown(report)
    print(json.dumps(report, indent=1) if args.json else markdown)
    if args.out_dir:
        out = Path(args.out_dir)
        out.mkdir(parents=True, exist_ok=True)
        (out / "embedders.json").write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
        (out / "embedders.md").write_text(markdown + "\n", encoding="utf-8")
    return 0


def _run(args: argparse.Namespace, cache: Path) -> dict[str, Any]:
    load_before = os.getloadavg()
    started = time.perf_counter()
    functions = stdlib_functions()
    texts = throughput_texts(functions, args.chunks, args.seed)
    if args.texts:  # e.g. the chunks of an index: the texts a build embeds
        given = json.loads(Path(args.texts).read_text(encoding="utf-8"))
        texts = random.Random(args.seed).sample(given, min(args.chunks, len(given)))
    pairs = eval_pairs(functions, args.pairs, args.seed)
    queries = [q for q, _ in pairs]
    documents = [d for _, d in pairs]
    _log(args, f"{len(functions)} stdlib functions; {len(texts)} chunks, {len(pairs)} query/document pairs")

    embedders = {}
    load_s = {}
    for backend in args.backends:
        config = ModelConfig(
            name=args.model,
            backend=backend,
            batch_size=args.batch_size,
            cache_dir=str(cache),
            max_seq_length=STATIC_TOKENS if backend == "static" else args.max_seq_length,
            punctuation=args.punctuation,
        )
        embedder = load_embedder(config)
        t0 = time.perf_counter()
        embedder.load()
        load_s[backend] = time.perf_counter() - t0
        embedder.embed_documents(texts[:16])  # warm-up: allocators, kernels, thread pools
        embedders[backend] = embedder
        _log(args, f"loaded {backend} in {load_s[backend]:.2f}s ({embedder.model_id})")

    passes: dict[str, list[float]] = {b: [] for b in args.backends}
    cpu: dict[str, list[float]] = {b: [] for b in args.backends}
    for repeat in range(args.repeats):
        for backend, embedder in embedders.items():
            t0, c0 = time.perf_counter(), time.process_time()
            embedder.embed_documents(texts)
            passes[backend].append(time.perf_counter() - t0)
            cpu[backend].append(time.process_time() - c0)
            _log(args, f"pass {repeat + 1}/{args.repeats} {backend}: {passes[backend][-1]:.2f}s")

    doc_vectors = {b: e.embed_documents(documents) for b, e in embedders.items()}
    query_vectors = {b: e.embed_documents(queries) for b, e in embedders.items()}
    cold = {
        b: _cold_start(args.model, b, cache, args.cold_repeats, args.max_seq_length) for b in args.backends
    }

    results = []
    for backend, embedder in embedders.items():
        mrr, recall = retrieval_scores(query_vectors[backend], doc_vectors[backend])
        agreement = None
        if "torch" in doc_vectors:
            agreement = (doc_vectors[backend] * doc_vectors["torch"]).sum(axis=1)
        results.append(
            Result(
                backend=backend,
                model_id=embedder.model_id,
                chunks_per_s=len(texts) / statistics.median(passes[backend]),
                pass_s=[round(p, 3) for p in passes[backend]],
                chunks_per_cpu_s=len(texts) / statistics.median(cpu[backend]),
                pass_cpu_s=[round(p, 3) for p in cpu[backend]],
                load_s=round(load_s[backend], 3),
                cold_start_s=cold[backend],
                mrr10=mrr,
                recall10=recall,
                cosine_to_torch_mean=None if agreement is None else float(agreement.mean()),
                cosine_to_torch_min=None if agreement is None else float(agreement.min()),
            )
        )
    return {
        "command": args.command,
        "model": args.model,
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": _machine(),
        "versions": _versions(),
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "wall_s": round(time.perf_counter() - started, 1),
        "corpus": {
            "chunks": len(texts),
            "chunk_chars_mean": round(statistics.fmean(len(t) for t in texts), 1),
            "pairs": len(pairs),
            "seed": args.seed,
            "batch_size": args.batch_size,
            "max_seq_length": args.max_seq_length,
            "punctuation": args.punctuation,
            "texts": args.texts or "stdlib function bodies",
            "repeats": args.repeats,
        },
        "results": [asdict(r) for r in results],
        "default": choose_default(results, args.tolerance),
        "tolerance": args.tolerance,
    }


def _cold_start(model: str, backend: str, cache: Path, repeats: int, max_seq_length: int) -> float | None:
    if repeats <= 0:
        return None
    seq = STATIC_TOKENS if backend == "static" else max_seq_length
    code = _COLD_START.format(name=model, backend=backend, cache=str(cache), seq=seq)
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    times = []
    for _ in range(repeats + 1):  # the first run warms the page cache and is not counted
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300
        )
        if done.returncode != 0:
            raise PlaitError(f"the cold-start run of {backend} failed: {done.stderr.strip()[-400:]}")
        times.append(float(done.stdout.strip().splitlines()[-1]))
    return round(statistics.median(times[1:]), 3)


def _markdown(report: dict[str, Any]) -> str:
    corpus = report["corpus"]
    lines = [
        "## Embedding backends",
        "",
        f"Model `{report['model']}`; {corpus['chunks']} texts ({corpus['texts']}, mean "
        f"{corpus['chunk_chars_mean']:.0f} chars) for throughput, batch size {corpus['batch_size']}, "
        f"max_seq_length {corpus['max_seq_length']} (static: {STATIC_TOKENS}), median "
        f"of {corpus['repeats']} passes; {corpus['pairs']} docstring→function pairs for quality (exact cosine "
        "search among all of them). Cold start: `import models` → first vector in a fresh process, ONNX "
        "export cached. Load: first in-process load, in the order listed, so later torch variants reuse "
        "the imports (ONNX: includes the one-time export/quantization).",
        "",
        "| backend | chunks/s | chunks per CPU-s | cold start s | load s | MRR@10 | R@10 | cos to torch (mean / min) |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in report["results"]:
        cold = "-" if r["cold_start_s"] is None else f"{r['cold_start_s']:.2f}"
        cos = (
            "-"
            if r["cosine_to_torch_mean"] is None
            else (f"{r['cosine_to_torch_mean']:.5f} / {r['cosine_to_torch_min']:.5f}")
        )
        lines.append(
            f"| {r['backend']} | {r['chunks_per_s']:.1f} | {r['chunks_per_cpu_s']:.1f} | {cold} | {r['load_s']:.2f} | {r['mrr10']:.4f} | "
            f"{r['recall10']:.4f} | {cos} |"
        )
    machine = report["machine"]
    versions = ", ".join(f"{k} {v}" for k, v in report["versions"].items())
    lines += [
        "",
        f'Default (`backend = "auto"` on CPU): **{report["default"]}** — the fastest variant whose MRR@10 is '
        f"within {report['tolerance']} of torch fp32.",
        "",
        f"Command: `{report['command']}` ({report['date']}, {report['wall_s']} s).",
        f"Machine: {machine['cpu']}, {machine['usable_cores']} usable cores, {machine['isa']}; "
        f"{machine['python']} on {machine['platform']}.",
        f"Versions: {versions}.",
        f"Load average (1/5/15 min) before {report['load_average_before']}, after "
        f"{report['load_average_after']}: other processes shared the CPU when these exceed ~0.5.",
    ]
    return "\n".join(lines)


def _machine() -> dict[str, Any]:
    cpu, flags = platform.processor() or platform.machine(), set()
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name") and ":" in line:
                cpu = line.split(":", 1)[1].strip()
            elif line.startswith("flags") and ":" in line:
                flags = set(line.split(":", 1)[1].split())
    except OSError:
        pass
    isa = [f for f in ("avx2", "avx512f", "avx512_vnni", "avx512_bf16", "amx_bf16", "amx_int8") if f in flags]
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count() or 1
    return {
        "cpu": cpu,
        "usable_cores": cores,
        "isa": " ".join(isa) or "unknown",
        "python": platform.python_version(),
        "platform": platform.platform(terse=True),
    }


def _versions() -> dict[str, str]:
    found = {}
    for package in _PACKAGES:
        try:
            found[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            found[package] = "missing"
    return found


def _python_files(base: Path) -> Iterator[Path]:
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS)
        for filename in sorted(filenames):
            if filename.endswith(".py"):
                yield Path(dirpath) / filename


def _functions(tree: ast.AST) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    def walk(node: ast.AST, scope: str) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                name = f"{scope}{child.name}"
                yield name, child
                yield from walk(child, f"{name}.")
            elif isinstance(child, ast.ClassDef):
                yield from walk(child, f"{scope}{child.name}.")

    return walk(tree, "")


def _function(name: str, node: ast.FunctionDef | ast.AsyncFunctionDef, lines: list[str]) -> Function:
    end = node.end_lineno or node.lineno
    source = textwrap.dedent("\n".join(lines[node.lineno - 1 : end]))
    doc = ast.get_docstring(node)
    first = node.body[0] if node.body else None
    if not doc or first is None or first.end_lineno is None:
        return Function(name, source, None, None)
    kept = lines[node.lineno - 1 : first.lineno - 1] + lines[first.end_lineno : end]
    body = textwrap.dedent("\n".join(kept))
    return Function(name, source, _first_sentence(doc), body if body.count("\n") >= 2 else None)


def _first_sentence(doc: str) -> str | None:
    paragraph = doc.strip().split("\n\n", 1)[0]
    text = " ".join(paragraph.split())
    match = re.search(r"[.!?](?=\s|$)", text)
    text = text[: match.end()] if match else text
    return text or None


def _log(args: argparse.Namespace, message: str) -> None:
    if not args.quiet:
        print(message, file=sys.stderr, flush=True)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m benchmarks embed", description=__doc__.split("\n\n", 1)[0])
    p.add_argument(
        "--model", default=DEFAULT_MODEL, help=f"model name or directory (default {DEFAULT_MODEL})"
    )
    p.add_argument(
        "--backends", type=_backends, default=list(VARIANTS), help="comma-separated (default: all)"
    )
    p.add_argument("--chunks", type=int, default=600, help="function bodies for throughput (default 600)")
    p.add_argument("--pairs", type=int, default=300, help="query/document pairs for quality (default 300)")
    p.add_argument("--repeats", type=int, default=3, help="timed throughput passes (default 3)")
    p.add_argument("--cold-repeats", type=int, default=3, help="cold-start runs per backend, 0 to skip")
    p.add_argument("--batch-size", type=int, default=32, help="model.batch_size (default 32)")
    p.add_argument(
        "--max-seq-length", type=int, default=ModelConfig().max_seq_length,
        help="model.max_seq_length of the transformer backends (default 256; static: 128)",
    )  # fmt: skip
    p.add_argument(
        "--punctuation", choices=("keep", "drop"), default="keep",
        help="model.punctuation of the transformer backends (default keep)",
    )  # fmt: skip
    p.add_argument("--texts", help="a JSON list of chunk texts to time instead of stdlib function bodies")
    p.add_argument("--seed", type=int, default=0, help="sampling seed (default 0)")
    p.add_argument("--tolerance", type=float, default=0.01, help="MRR@10 allowed below torch fp32")
    p.add_argument("--cache-dir", help="ONNX export cache (default: a temporary directory, deleted)")
    p.add_argument("--out-dir", help="also write embedders.json and embedders.md here")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    return p


def _backends(value: str) -> list[str]:
    names = [v.strip() for v in value.split(",") if v.strip()]
    bad = [n for n in names if n not in VARIANTS]
    if bad or not names:
        raise argparse.ArgumentTypeError(
            f"unknown backend {', '.join(bad)}; choose from {', '.join(VARIANTS)}"
        )
    return names


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
