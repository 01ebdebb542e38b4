"""Freshness of the reindex daemon (issue 7) on a real corpus: ``python -m benchmarks.freshness``.

A copy of part of the CPython standard library (or ``--source``) is indexed, then ``plait watch``
runs as a real subprocess while this process edits files and searches through ``search.Engine``
(a fresh engine per poll, as a new CLI call would see the index):

1. **freshness**: ``--edits`` one-function edits (a function renamed and a probe comment added),
   each timed from the save until all three retrievers return it: text (ripgrep on the live file),
   symbol (the new name) and semantic (a vector hit on a *new* chunk of the edited function, found
   in a ``file:`` scope). p50/p95 over the edits, overall and per retriever.
2. **branch switch**: ``--switch-files`` files rewritten at once, as ``git checkout`` does: first to
   a new version (content never seen), then back (all content seen before, so embeddings come from
   the cache). Wall time from the first write until the daemon committed the last batch, batches,
   chunks embedded and reused (from the daemon's ``--verbose`` log).
3. **idle CPU**: the daemon process's CPU time (psutil) over ``--idle-seconds`` without changes.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import sysconfig
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import psutil

from benchmarks import report
from benchmarks.workspace import workdir
from indexer import Index, IndexState, Settings, load_settings, read_watcher_state
from search import Engine, Query, Scope

BATCH_LINE = re.compile(
    r"indexed (?P<what>.*?): (?P<changed>\d+) changed, (?P<deleted>\d+) deleted, (?P<chunks>\d+) chunks written, "
    r"(?P<embedded>\d+) embedded, (?P<cached>\d+) from cache, in (?P<seconds>[\d.]+)s"
)
FUNC = re.compile(r"^def (\w+)\(", re.MULTILINE)


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0..1) by linear interpolation, as numpy's default."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    pos = (len(ordered) - 1) * q
    lo, hi = int(pos), min(int(pos) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def wait_for(what: str, probe: Callable[[], object], timeout: float, step: float = 0.02) -> float:
    """Poll until ``probe()`` is truthy; the monotonic time it first was. Raises TimeoutError."""
    deadline = time.monotonic() + timeout
    while True:
        if probe():
            return time.monotonic()
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {timeout:.0f}s waiting for {what}")
        time.sleep(step)


# -- corpus and daemon ------------------------------------------------------------------------------
def copy_corpus(source: Path, dest: Path, files: int, seed: int) -> list[str]:
    """A seeded sample of ``source``'s Python files (no tests) copied under ``dest``."""
    found = sorted(
        p.relative_to(source).as_posix()
        for p in source.rglob("*.py")
        if "test" not in p.relative_to(source).as_posix() and "site-packages" not in p.parts
        and p.is_file() and 2_000 < p.stat().st_size < 150_000
    )  # fmt: skip
    chosen = sorted(random.Random(seed).sample(found, min(files, len(found))))
    for rel in chosen:
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source / rel, target)
    return chosen


@dataclass
class Daemon:
    """``plait --verbose watch`` as a subprocess (never through a shell), its log in a file."""

    root: Path
    settings: Settings
    log_path: Path
    env: Mapping[str, str]
    proc: subprocess.Popen[bytes] = field(init=False)

    def __post_init__(self) -> None:
        cmd = [sys.executable, "-m", "search.frontends.cli", "--verbose", "watch", str(self.root),
               "--index-dir", self.settings.index_dir, "--model", self.settings.model.name]  # fmt: skip
        with self.log_path.open("wb") as log:
            # A long-lived process: indexer.procs.run waits for exit, so Popen is used directly.
            self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=log, env=dict(self.env))

    def log(self, offset: int = 0) -> str:
        return self.log_path.read_text(errors="replace")[offset:]

    def state(self) -> dict[str, Any]:
        state = read_watcher_state(self.settings) or {}
        return state if state.get("pid") == self.proc.pid else {}

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout=120)


# -- 1. freshness of one-function edits -------------------------------------------------------------
def edit_function(root: Path, rel: str, k: int) -> tuple[str, str, int] | None:
    """Rename one top-level function of ``rel`` and add a probe comment; (new name, token, probe line)."""
    text = (root / rel).read_text(encoding="utf-8")
    names = FUNC.findall(text)
    if not names:
        return None
    name = names[k % len(names)]
    token = f"freshprobe{k}x{os.getpid()}"
    new = f"{name}_fresh{k}"
    match = re.search(rf"^def {re.escape(name)}\(", text, re.MULTILINE)
    assert match is not None
    line_end = text.index("\n", match.start())
    head = text[: match.start()] + f"def {new}(" + text[match.end() : line_end + 1]
    edited = head + f"# {token}: checks that the edited function is searchable again\n" + text[line_end + 1 :]
    (root / rel).write_text(edited, encoding="utf-8")
    return new, token, head.count("\n") + 1


def findable(settings: Settings, rel: str, new: str, token: str, probe_line: int) -> dict[str, bool]:
    """Which retrievers return the edited function now (a fresh engine: what a new caller sees)."""
    engine = Engine(settings)
    try:
        text = any(r.path == rel for r in engine.search(Query(token, mode="text")).results)
        symbol = any(
            (r.path, r.symbol) == (rel, new) for r in engine.search(Query(new, mode="symbol")).results
        )
        where = "path = '{}'".format(rel.replace("'", "''"))
        chunks = engine.index.store.read("chunks", ["start_line", "end_line", "text"], where)
        fresh = {
            (s, e)
            for s, e, t in zip(*(chunks.column(c).to_pylist() for c in ("start_line", "end_line", "text")), strict=True)
            if token in t and s <= probe_line <= e
        } if chunks.num_rows else set()  # fmt: skip
        semantic = bool(fresh) and any(
            (r.start_line, r.end_line) in fresh
            for r in engine.search(
                Query(f"{token} {new}", mode="semantic", limit=100), Scope("file", rel)
            ).results
        )
    finally:
        engine.close()
    return {"text": text, "symbol": symbol, "semantic": semantic}


def batches_after(daemon: Daemon, batches: int) -> bool:
    return int(daemon.state().get("batches", 0)) > batches


def measure_freshness(daemon: Daemon, files: list[str], edits: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    samples: dict[str, list[float]] = {"all": [], "text": [], "symbol": [], "semantic": []}
    lags: list[float] = []
    k = 0
    while len(samples["all"]) < edits:
        rel = rng.choice(files)
        k += 1
        batches = int(daemon.state().get("batches", 0))
        saved = time.monotonic()
        edit = edit_function(daemon.root, rel, k)
        if edit is None:
            continue
        first: dict[str, float] = {}

        def probe(rel: str = rel, edit: tuple[str, str, int] = edit, first: dict[str, float] = first) -> bool:
            now = time.monotonic()
            for name, ok in findable(daemon.settings, rel, *edit).items():
                if ok:
                    first.setdefault(name, now)
            return len(first) == 3

        wait_for(f"edit {k} of {rel}", probe, timeout=120)
        for name, t in first.items():
            samples[name].append(t - saved)
        samples["all"].append(max(first.values()) - saved)
        wait_for("the batch state", partial(batches_after, daemon, batches), timeout=60)
        lags.append(float(daemon.state().get("lag") or 0.0))
        time.sleep(0.5)  # let the daemon settle: each edit is its own batch
    row = {f"{name}_{q}_ms": round(percentile(v, p) * 1000) for name, v in samples.items()
           for q, p in (("p50", 0.5), ("p95", 0.95))}  # fmt: skip
    return {"edits": edits, **row, "max_ms": round(max(samples["all"]) * 1000),
            "daemon_lag_p50_ms": round(percentile(lags, 0.5) * 1000)}  # fmt: skip


# -- 2. branch switch -------------------------------------------------------------------------------
def measure_switch(daemon: Daemon, files: list[str], count: int, seed: int) -> dict[str, Any]:
    chosen = sorted(random.Random(seed + 1).sample(files, min(count, len(files))))
    original = {rel: (daemon.root / rel).read_bytes() for rel in chosen}
    other = {
        rel: data.replace(b"\ndef ", b"\n\ndef ", 3)
        + f"\n\ndef branch_only_{i}():\n    return {i}\n".encode()
        for i, (rel, data) in enumerate(original.items())
    }  # a branch that shifts lines and adds a function: most chunk text is unchanged
    out: dict[str, Any] = {"files": len(chosen)}
    for label, content in (("new_branch", other), ("back_seen_before", original)):
        offset = len(daemon.log())
        start_wall, start = time.time(), time.monotonic()
        for rel, data in content.items():
            (daemon.root / rel).write_bytes(data)
        wrote = time.monotonic() - start

        def settled(start_wall: float = start_wall) -> bool:
            state = daemon.state()
            finished = (state.get("last_batch") or {}).get("finished", 0)
            return (state.get("phase") == "watching" and not state.get("queue") and finished > start_wall
                    and Index(daemon.settings).status().state == IndexState.FRESH)  # fmt: skip

        wait_for(f"the {label} batch", settled, timeout=1800, step=0.1)
        finished = float(daemon.state()["last_batch"]["finished"])
        lines = [m.groupdict() for m in BATCH_LINE.finditer(daemon.log(offset))]
        out[label] = {
            "wall_s": round(finished - start_wall, 2),
            "write_s": round(wrote, 2),
            "batches": len(lines),
            "files_changed": sum(int(m["changed"]) for m in lines),
            "chunks_written": sum(int(m["chunks"]) for m in lines),
            "embedded": sum(int(m["embedded"]) for m in lines),
            "from_cache": sum(int(m["cached"]) for m in lines),
            "build_s": round(sum(float(m["seconds"]) for m in lines), 2),
        }
    return out


# -- 3. idle CPU ------------------------------------------------------------------------------------
def measure_idle(daemon: Daemon, seconds: float) -> dict[str, Any]:
    proc = psutil.Process(daemon.proc.pid)
    before = proc.cpu_times()
    time.sleep(seconds)  # the measurement itself: nothing changes meanwhile
    after = proc.cpu_times()
    used = (after.user - before.user) + (after.system - before.system)
    return {"seconds": seconds, "cpu_s": round(used, 3), "cpu_percent": round(100 * used / seconds, 3),
            "threads": proc.num_threads(), "rss_mb": round(proc.memory_info().rss / 2**20, 1)}  # fmt: skip


# -- driver -----------------------------------------------------------------------------------------
def measure(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    root = work / "repo"
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    files = copy_corpus(args.source, root, args.files, args.seed)
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    overrides = {"index_dir": str(work / "index")} | ({"model_name": args.model} if args.model else {})
    settings = load_settings(root, env=env, overrides=overrides)
    start = time.perf_counter()
    built = Index(settings).build()
    result: dict[str, Any] = {
        "setup": {"source": str(args.source), "files": len(files), "chunks": built.chunks_total,
                  "model": Index(settings).embedder().model_id, "initial_build_s": round(time.perf_counter() - start, 1),
                  "cpus": os.cpu_count(), "load_avg_1m": round(os.getloadavg()[0], 2)},
    }  # fmt: skip
    daemon = Daemon(root, settings, work / "watch.log", env)
    try:
        wait_for(
            "the startup check", lambda: daemon.state().get("batches", 0) >= 1 or daemon.proc.poll(), 600
        )
        if daemon.proc.poll() is not None:
            raise RuntimeError(f"the daemon exited: {daemon.log()[-2000:]}")
        result["freshness"] = measure_freshness(daemon, files, args.edits, args.seed)
        result["branch_switch"] = measure_switch(daemon, files, args.switch_files, args.seed)
        result["idle"] = measure_idle(daemon, args.idle_seconds)
    finally:
        result["exit_code"] = daemon.stop()
    return result


def render(result: dict[str, Any], *, markdown: bool) -> str:
    parts = [report.heading("reindex daemon freshness", markdown=markdown),
             report.key_values(result["setup"], markdown=markdown), "",
             report.key_values(result["freshness"], markdown=markdown), ""]  # fmt: skip
    switch = result["branch_switch"]
    rows = [(label, *switch[label].values()) for label in ("new_branch", "back_seen_before")]
    headers = ["switch", *switch["new_branch"].keys()]
    parts += [f"branch switch: {switch['files']} files", report.table(headers, rows, markdown=markdown), ""]
    parts += [report.key_values(result["idle"], markdown=markdown)]
    return "\n".join(parts)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m benchmarks.freshness", description=__doc__.split("\n")[0])
    p.add_argument("--source", type=Path, default=Path(sysconfig.get_paths()["stdlib"]),
                   help="directory whose Python files make the corpus (default: this Python's stdlib)")  # fmt: skip
    p.add_argument("--files", type=int, default=300, help="files copied from --source (seeded sample)")
    p.add_argument("--edits", type=int, default=20, help="one-function edits timed")
    p.add_argument("--switch-files", type=int, default=200, help="files rewritten by the branch switch")
    p.add_argument("--idle-seconds", type=float, default=60.0)
    p.add_argument("--model", help="embedding model (default: PLAIT_MODEL, then plait's default)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workdir", type=Path, help="keep the copy and index here instead of a temp dir")
    p.add_argument("--keep", action="store_true")
    p.add_argument("--json", action="store_true")
    p.add_argument("--markdown", action="store_true")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if not args.source.is_dir():
        print(f"benchmarks: {args.source} is not a directory; pass --source DIR.", file=sys.stderr)
        return 2
    with workdir(args.workdir, keep=args.keep) as work:
        result = measure(args, work)
    print(json.dumps(result) if args.json else render(result, markdown=args.markdown))
    return 0


if __name__ == "__main__":
    sys.exit(main())
