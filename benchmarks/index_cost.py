"""``index``: what building and keeping the index costs, on a private copy of the repository.

1. **full build** into an empty index: files/s and chunks/s over the whole build (parse, store and
   embed), the embedding phase's chunks/s, and the peak RSS of this process afterwards.
2. **model raw**: the same model embedding a seeded sample of the same chunk texts directly (no
   parsing, no store), in the same run -- the ceiling the build's embedding phase can approach.
3. **no-change rebuild**: the incremental build with nothing changed.
4. **one-file edit**: an empty line inserted in the middle of the largest file, then an incremental
   build: how many chunks were re-embedded versus reused from the embedding cache.
5. **freshness**: with the reindex daemon running in-process (``indexer.daemon``), the same file
   saved a few times; the time from each save until the index holds it (see
   :func:`measure_freshness`). ``python -m benchmarks freshness`` measures the daemon in depth
   (a real ``plait watch`` process, per-retriever findability, branch switches, idle CPU).
"""

from __future__ import annotations

import hashlib
import importlib.util
import random
import resource
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from benchmarks import report
from benchmarks.evalset import Corpus
from benchmarks.workspace import prepare_copy
from indexer import BuildReport, Index, Settings
from models import PlaitError


def peak_rss_mb() -> float:
    """Peak resident set size of this process so far, in MiB."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024  # bytes on macOS, KiB on Linux


def rate(count: int, seconds: float) -> float:
    return count / seconds if seconds > 0 else 0.0


@dataclass
class IndexCost:
    full: dict[str, Any] = field(default_factory=dict)
    model_raw: dict[str, Any] = field(default_factory=dict)
    no_change: dict[str, Any] = field(default_factory=dict)
    one_file_edit: dict[str, Any] = field(default_factory=dict)
    freshness: dict[str, Any] = field(default_factory=dict)
    setup: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "setup": self.setup,
            "full": self.full,
            "model_raw": self.model_raw,
            "no_change": self.no_change,
            "one_file_edit": self.one_file_edit,
            "freshness": self.freshness,
        }


def _build_row(rep: BuildReport, seconds: float) -> dict[str, Any]:
    return {
        "seconds": round(seconds, 3),
        "files": rep.files,
        "changed": rep.changed,
        "chunks_written": rep.chunks,
        "chunks_total": rep.chunks_total,
        "embedded": rep.embedded,
        "from_cache": rep.from_cache,
    }


def measure(
    corpus: Corpus,
    work: Path,
    env: Mapping[str, str],
    *,
    model: str | None = None,
    raw_sample: int = 512,
    seed: int = 0,
    freshness_edits: int = 3,
    tier: str = "full",
) -> IndexCost:
    """Run the measurements in the module docstring on a fresh copy under ``work``; builds embed
    ``tier`` (``fast``: the static model, as ``plait index``; ``full``: the transformer too)."""
    prepared = prepare_copy(corpus, work, env, model=model, blanked=False, build=False)
    index = prepared.index()
    cost = IndexCost(setup={"files": len(corpus.files), "model": prepared.settings.model.name, "tier": tier})

    from benchmarks.progress import BuildProgress, phase

    phase("index cost: full build")
    start = time.perf_counter()
    full = index.build(full=True, tier=tier, progress=BuildProgress("full build"))
    seconds = time.perf_counter() - start
    cost.full = {
        **_build_row(full, seconds),
        "files_per_s": round(rate(full.files, seconds), 2),
        "chunks_per_s": round(rate(full.chunks_total, seconds), 2),
        "embed_seconds": round(full.vector_seconds, 3),
        "embed_chunks_per_s": round(rate(full.embedded, full.vector_seconds), 2),
        "peak_rss_mb": round(peak_rss_mb(), 1),
        "tiers": full.tiers,
    }

    texts = index.store.read("chunks", ["text"]).column("text").to_pylist()
    sample = random.Random(seed).sample(texts, min(raw_sample, len(texts)))
    embedder = index.tier_embedder(tier)
    batch = prepared.settings.model.batch_size
    start = time.perf_counter()
    for i in range(0, len(sample), batch):
        embedder.embed_documents(sample[i : i + batch])
    raw_seconds = time.perf_counter() - start
    cost.model_raw = {
        "chunks": len(sample),
        "seconds": round(raw_seconds, 3),
        "chunks_per_s": round(rate(len(sample), raw_seconds), 2),
        "model_id": embedder.model_id,
    }

    start = time.perf_counter()
    phase("index cost: no-change build, then a one-file edit")
    noop = index.build(tier=tier)
    cost.no_change = _build_row(noop, time.perf_counter() - start)

    edited = _edit_largest(prepared.root, corpus)
    start = time.perf_counter()
    after = index.build(tier=tier)
    cost.one_file_edit = {"file": edited, **_build_row(after, time.perf_counter() - start)}

    if importlib.util.find_spec("indexer.daemon") is None:
        cost.freshness = {"measured": False, "why": "the reindex daemon (indexer.daemon) is not available"}
    elif freshness_edits > 0:
        cost.freshness = measure_freshness(prepared.settings, edited, edits=freshness_edits)
    else:
        cost.freshness = {"measured": False, "why": "--freshness-edits 0"}
    return cost


def measure_freshness(
    settings: Settings, path: str, *, edits: int = 3, deadline: float = 120.0
) -> dict[str, Any]:
    """Save ``path`` ``edits`` times with the reindex daemon running; time each save until the index has it.

    ``index_ms``: until the files manifest holds the new content (its symbols and chunks are committed
    before the manifest row); ``batch_ms``: until the daemon reports the batch done, vectors included.
    The daemon's debounce (``quiet_ms``) is part of both, as it is for a user.
    """
    from indexer import read_watcher_state, start_background_watcher

    def batches() -> int:
        state = read_watcher_state(settings) or {}
        return int(state.get("batches") or 0) if state.get("phase") == "watching" else -1

    stop = start_background_watcher(settings)
    index_ms: list[float] = []
    batch_ms: list[float] = []
    try:
        _wait_for(lambda: batches() >= 1, deadline, "the daemon's startup check")
        target = settings.root / path
        for _ in range(edits):
            done = batches()
            data = _with_empty_line(target.read_bytes())
            digest = hashlib.sha256(data).hexdigest()
            start = time.perf_counter()
            target.write_bytes(data)
            _wait_for(partial(_indexed_is, settings, path, digest), deadline, "the edit")
            index_ms.append((time.perf_counter() - start) * 1000)
            _wait_for(partial(lambda n: batches() > n, done), deadline, "the daemon's batch")
            batch_ms.append((time.perf_counter() - start) * 1000)
    finally:
        stop()
    return {
        "measured": True,
        "edits": edits,
        "index_ms": [round(v, 1) for v in index_ms],
        "batch_ms": [round(v, 1) for v in batch_ms],
        "latency_ms": round(max(batch_ms), 1),
    }


def _indexed_is(settings: Settings, path: str, digest: str) -> bool:
    """Whether the index holds content ``digest`` for ``path`` (a fresh handle: it must see new commits)."""
    entry = Index(settings).manifest().get(path)
    return entry is not None and entry[0] == digest


def _wait_for(ready: Callable[[], bool], deadline: float, what: str) -> None:
    end = time.monotonic() + deadline
    while not ready():
        if time.monotonic() > end:
            raise PlaitError(f"{what} did not reach the index within {deadline:.0f}s; see `plait status`.")
        time.sleep(0.01)


def _with_empty_line(data: bytes) -> bytes:
    """``data`` with an empty line inserted in the middle: a change that is valid in every language."""
    lines = data.split(b"\n")
    middle = len(lines) // 2
    return b"\n".join([*lines[:middle], b"", *lines[middle:]])


def _edit_largest(root: Path, corpus: Corpus) -> str:
    """Insert an empty line in the middle of the largest file; returns its path."""
    target = max(corpus.files, key=lambda f: (len(f.original), f.path))
    (root / target.path).write_bytes(_with_empty_line(target.original))
    return target.path


def render(cost: IndexCost, *, markdown: bool = False) -> str:
    f, raw, nc, ed = cost.full, cost.model_raw, cost.no_change, cost.one_file_edit
    rows: list[list[report.Cell]] = [
        ["full build", f["seconds"], f["changed"], f["chunks_written"], f["embedded"], f["from_cache"]],
        [
            "no-change rebuild",
            nc["seconds"],
            nc["changed"],
            nc["chunks_written"],
            nc["embedded"],
            nc["from_cache"],
        ],
        [
            "one-file edit",
            ed["seconds"],
            ed["changed"],
            ed["chunks_written"],
            ed["embedded"],
            ed["from_cache"],
        ],
    ]
    rates = {
        "files/s (full build)": f["files_per_s"],
        "chunks/s (full build)": f["chunks_per_s"],
        "chunks/s (embedding phase)": f["embed_chunks_per_s"],
        f"chunks/s (model raw, {raw['chunks']} chunks)": raw["chunks_per_s"],
        "peak RSS after full build (MiB)": f["peak_rss_mb"],
        "edited file": ed["file"],
        "freshness, save to indexed (ms)": _freshness_text(cost.freshness, "index_ms"),
        "freshness, save to batch done incl. vectors (ms)": _freshness_text(cost.freshness, "batch_ms"),
    }
    return "\n".join(
        [
            report.heading("Index cost", markdown=markdown),
            report.key_values(cost.setup, markdown=markdown),
            "",
            report.table(
                ["build", "seconds", "files changed", "chunks written", "embedded", "from cache"],
                rows,
                markdown=markdown,
            ),
            "",
            report.key_values(rates, markdown=markdown),
        ]
    )


def _freshness_text(freshness: Mapping[str, Any], key: str) -> str:
    if not freshness.get("measured"):
        return f"not measured ({freshness.get('why')})"
    values = freshness[key]
    return " / ".join(f"{v:,.0f}" for v in values)
