"""``python -m benchmarks object-storage``: one index on local disk and on an S3 API, side by side.

Starts moto's S3 server on 127.0.0.1 in its own process (the dev extra ``moto[server]``; nothing leaves the machine),
copies ``--source`` to a temporary workspace, and for each location — a local folder and
``s3://bench/index`` — measures, in one run:

* the build, and the first search of a fresh engine in this process (``cold_search_ms``);
* a cold start in a fresh process: ``plait search`` (hybrid, ``--no-daemon``) from start to exit;
* the median and p90 of warm hybrid searches, and the object-store requests they made (counted in
  the server's request log); on S3 also with the snapshot re-check at 0 (one request per search);
* a one-file change published by this process and seen by a second reader process: the reader
  asks its index for the new definition every 20 ms; ``visible_s`` is from the start of the
  writer's build to the reader's first lookup that found it, beside the build's own time (which
  goes on after the publish: compaction, the BM25 index saved for the next readers).

Uses plait's public API (``Index``, ``Engine``) and CLI only.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

QUERIES = ("RetryPolicy", "merge per root ranked lists", "writer lease", "parse_scope", "ripgrep timeout")
BUCKET = "bench"
NEW_NAME = "plait_bench_published_marker"
NEW_FILE = "plait_bench_marker.py"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _start_s3(log: Path) -> tuple[subprocess.Popen[bytes], dict[str, str]]:
    """moto's S3 server in its own process (as a real store would be: not sharing plait's GIL), its
    request log (one line per request) written to ``log``."""
    import boto3

    port = _free_port()
    with log.open("wb") as sink:
        server = subprocess.Popen(
            [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
            stdout=sink, stderr=sink,
        )  # fmt: skip
    endpoint = f"http://127.0.0.1:{port}"
    env = {
        "AWS_ENDPOINT_URL": endpoint,
        "AWS_ACCESS_KEY_ID": "bench",
        "AWS_SECRET_ACCESS_KEY": "bench",
        "AWS_REGION": "us-east-1",
        "AWS_ALLOW_HTTP": "true",
    }
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(f"{endpoint}/moto-api/", timeout=5):
                break
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                server.kill()
                raise RuntimeError("moto's S3 server did not start") from None
            time.sleep(0.1)
    boto3.client(
        "s3",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id=env["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=env["AWS_SECRET_ACCESS_KEY"],
    ).create_bucket(Bucket=BUCKET)
    return server, env


class RequestCount:
    """Object-store requests seen by the S3 server between two points, from its request log."""

    def __init__(self, endpoint: str, log: Path) -> None:
        self.endpoint, self.log, self._marks = endpoint, log, 0

    def mark(self) -> int:
        """Requests logged so far; a marker request makes sure every earlier one is in the log."""
        self._marks += 1
        tag = f"marker-{self._marks}"
        with urllib.request.urlopen(f"{self.endpoint}/moto-api/?{tag}", timeout=30):
            pass
        deadline = time.monotonic() + 30
        while True:
            text = self.log.read_text(errors="replace")
            if tag in text or time.monotonic() > deadline:
                return sum(1 for line in text.splitlines() if "HTTP/1." in line and "/moto-api/" not in line)
            time.sleep(0.01)


def _warm(engine: Any, rounds: int) -> tuple[list[float], dict[str, float]]:
    """Seconds of each warm search (sorted), and the median milliseconds of each retriever."""
    from search import Query, parse_scope

    times, legs = [], defaultdict(list)
    for _ in range(rounds):
        for q in QUERIES:
            started = time.perf_counter()
            response = engine.search(Query(q, mode="hybrid", limit=10), parse_scope("ws"))
            times.append(time.perf_counter() - started)
            for name in ("text", "symbol", "vector"):
                legs[name].append(response.timings_ms.get(name, 0.0))
    return sorted(times), {name: round(statistics.median(ms), 1) for name, ms in legs.items()}


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 1)


def _cold_process(root: Path, location: str, model: str) -> float:
    """Seconds from start to exit of a fresh ``plait search`` process (hybrid, no warm server)."""
    env = {**os.environ, "PLAIT_MODEL": model, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    argv = [sys.executable, "-m", "search.frontends.cli", "search", "RetryPolicy", "--index-dir", location,
            "--no-daemon", "--json"]  # fmt: skip
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, timeout=600)
    elapsed = time.perf_counter() - started
    if done.returncode != 0 or not json.loads(done.stdout):
        raise RuntimeError(f"plait search failed on {location}: {done.stderr.strip()[-500:]}")
    return elapsed


def reader() -> None:
    """The second reader process (``python -c``; argv: root, location, model): prints ``ready`` after
    its first lookup, then asks its long-lived ``Index`` for :data:`NEW_NAME` every 20 ms and prints
    the wall-clock time of the first lookup that found it. The index is asked directly, not through a
    search: a search would also find the new file in the live checkout (ripgrep, the local delta)
    before any publish."""
    from indexer import Index, load_settings

    root, location, model = sys.argv[1:4]
    settings = load_settings(Path(root), env={}, overrides={"index_dir": location, "model_name": model})
    index = Index(settings)

    def found() -> bool:
        return any(m.symbol.path == NEW_FILE for m in index.lookup_symbols(NEW_NAME, limit=5))

    if found():
        raise SystemExit("the marker is indexed already")
    print("ready", flush=True)
    deadline = time.monotonic() + 300
    while not found():
        if time.monotonic() > deadline:
            raise SystemExit("not seen in 300 s")
        time.sleep(0.02)
    print(f"seen {time.time()}", flush=True)


def _publish_visible(root: Path, settings: Any) -> dict[str, float]:
    """A one-file change built and published here, seen by a second reader process."""
    from indexer import Index

    code = "from benchmarks.object_storage import reader; reader()"
    argv = [sys.executable, "-c", code, str(root), settings.index_dir, settings.model.name]
    cwd = Path(__file__).resolve().parent.parent  # where ``benchmarks`` is importable
    with subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, text=True) as proc:
        assert proc.stdout is not None
        if proc.stdout.readline().strip() != "ready":
            raise RuntimeError("the reader process did not start")
        (root / NEW_FILE).write_text(f"def {NEW_NAME}(attempt: int) -> int:\n    return attempt + 1\n")
        begun, started = time.time(), time.perf_counter()
        Index(settings).build()
        build_s = time.perf_counter() - started
        line = proc.stdout.readline().split()
        proc.wait(timeout=60)
    (root / NEW_FILE).unlink()
    Index(settings).build()  # back to the source as it was, for the next location
    if len(line) != 2 or line[0] != "seen":
        raise RuntimeError("the reader process did not see the change")
    return {"one_file_build_s": round(build_s, 2), "visible_s": round(float(line[1]) - begun, 2)}


def measure(source: Path, rounds: int, model: str) -> dict[str, Any]:
    from indexer import Index, load_settings
    from search import Engine, Query, parse_scope

    out: dict[str, Any] = {"source": str(source), "model": model, "rounds": rounds}
    with tempfile.TemporaryDirectory() as tmp:
        server, env = _start_s3(Path(tmp) / "s3.log")
        os.environ.update(env)  # LanceDB and obstore read the standard variables
        requests = RequestCount(env["AWS_ENDPOINT_URL"], Path(tmp) / "s3.log")
        try:
            root = Path(tmp) / "ws"
            shutil.copytree(source, root, ignore=shutil.ignore_patterns(".git", ".venv", "__pycache__"))
            for label, location in (("local", str(Path(tmp) / "index")), ("s3", f"s3://{BUCKET}/index")):
                settings = load_settings(root, env={}, overrides={"index_dir": location, "model_name": model})
                started = time.perf_counter()
                report = Index(settings).build()
                build_s = time.perf_counter() - started
                started = time.perf_counter()
                engine = Engine(settings)
                engine.search(Query("cold start", mode="hybrid", limit=10), parse_scope("ws"))
                cold_s = time.perf_counter() - started
                before = requests.mark()
                times, legs = _warm(engine, rounds)
                made = requests.mark() - before
                engine.close()
                row: dict[str, Any] = {
                    "files": report.files,
                    "chunks": report.chunks,
                    "build_s": round(build_s, 2),
                    "cold_search_ms": _ms(cold_s),
                    "cold_process_s": round(_cold_process(root, location, model), 2),
                    "recheck_s": settings.recheck,
                    "warm_median_ms": _ms(statistics.median(times)),
                    "warm_p90_ms": _ms(times[int(len(times) * 0.9)]),
                    "searches": len(times),
                    "requests_per_search": round(made / len(times), 2) if label == "s3" else None,
                    "retriever_median_ms": legs,
                }
                if label == "s3":  # the same searches asking for the latest snapshot every time
                    strict = load_settings(root, env={}, overrides={
                        "index_dir": location, "model_name": model, "snapshot_recheck": 0})  # fmt: skip
                    engine = Engine(strict)
                    engine.search(Query("cold start", mode="hybrid", limit=10), parse_scope("ws"))
                    before = requests.mark()
                    times, _ = _warm(engine, rounds)
                    made = requests.mark() - before
                    engine.close()
                    row["recheck_0_median_ms"] = _ms(statistics.median(times))
                    row["recheck_0_p90_ms"] = _ms(times[int(len(times) * 0.9)])
                    row["recheck_0_requests_per_search"] = round(made / len(times), 2)
                row.update(_publish_visible(root, settings))
                out[label] = row
        finally:
            server.terminate()
            server.wait(timeout=30)
    out["warm_ratio"] = round(out["s3"]["warm_median_ms"] / max(out["local"]["warm_median_ms"], 1e-6), 2)
    out["warm_p90_ratio"] = round(out["s3"]["warm_p90_ms"] / max(out["local"]["warm_p90_ms"], 1e-6), 2)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks object-storage", description=__doc__)
    p.add_argument("--source", type=Path, default=Path("search"), help="directory to index (copied)")
    p.add_argument("--rounds", type=int, default=4, help="rounds of the five warm queries")
    p.add_argument("--model", default="hashing", help="embedding model (default: the hashing embedder)")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    if not args.source.is_dir():
        print(f"benchmarks: {args.source} is not a directory; pass --source DIR.", file=sys.stderr)
        return 2
    result = measure(args.source, args.rounds, args.model)
    if args.json:
        print(json.dumps(result))
        return 0
    for label in ("local", "s3"):
        r = result[label]
        print(
            f"{label:5}  {r['files']} files, {r['chunks']} chunks  build {r['build_s']} s  "
            f"cold search {r['cold_search_ms']} ms  cold process {r['cold_process_s']} s  "
            f"warm median {r['warm_median_ms']} ms  p90 {r['warm_p90_ms']} ms ({r['searches']} searches, "
            f"re-check {r['recheck_s']} s; retrievers {r['retriever_median_ms']} ms)  1-file build {r['one_file_build_s']} s, "
            f"seen by another process {r['visible_s']} s after the build began"
        )
    s3 = result["s3"]
    print(
        f"S3 requests per warm search: {s3['requests_per_search']}; with re-check 0: "
        f"{s3['recheck_0_requests_per_search']}, median {s3['recheck_0_median_ms']} ms, "
        f"p90 {s3['recheck_0_p90_ms']} ms"
    )
    print(f"warm search on S3 / local: median {result['warm_ratio']}x, p90 {result['warm_p90_ratio']}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
