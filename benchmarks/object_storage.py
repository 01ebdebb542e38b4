"""``python -m benchmarks object-storage``: one index on local disk and on an S3 API, side by side.

Starts moto's S3 server on 127.0.0.1 in its own process (the dev extra ``moto[server]``; nothing leaves the machine),
copies ``--source`` to a temporary workspace, and for each location — a local folder and
``s3://bench/index`` — times the build, the first search of a fresh engine (cold) and the median and
p90 of warm hybrid searches. Uses plait's public API only (``Index``, ``Engine``).
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
from collections.abc import Sequence
from pathlib import Path
from typing import Any

QUERIES = ("RetryPolicy", "merge per root ranked lists", "writer lease", "parse_scope", "ripgrep timeout")
BUCKET = "bench"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _start_s3() -> tuple[subprocess.Popen[bytes], dict[str, str]]:
    """moto's S3 server in its own process (as a real store would be: not sharing plait's GIL)."""
    import boto3

    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
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


def measure(source: Path, rounds: int, model: str) -> dict[str, Any]:
    from indexer import Index, load_settings
    from search import Engine, Query, parse_scope

    server, env = _start_s3()
    os.environ.update(env)  # LanceDB and obstore read the standard variables
    out: dict[str, Any] = {"source": str(source), "model": model, "rounds": rounds}
    try:
        with tempfile.TemporaryDirectory() as tmp:
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
                times = []
                for _ in range(rounds):
                    for q in QUERIES:
                        started = time.perf_counter()
                        engine.search(Query(q, mode="hybrid", limit=10), parse_scope("ws"))
                        times.append(time.perf_counter() - started)
                engine.close()
                times.sort()
                out[label] = {
                    "files": report.files,
                    "chunks": report.chunks,
                    "build_s": round(build_s, 2),
                    "cold_search_ms": round(cold_s * 1000, 1),
                    "warm_median_ms": round(statistics.median(times) * 1000, 1),
                    "warm_p90_ms": round(times[int(len(times) * 0.9)] * 1000, 1),
                    "searches": len(times),
                }
    finally:
        server.terminate()
        server.wait(timeout=30)
    out["warm_ratio"] = round(out["s3"]["warm_median_ms"] / max(out["local"]["warm_median_ms"], 1e-6), 2)
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
            f"cold search {r['cold_search_ms']} ms  warm median {r['warm_median_ms']} ms  "
            f"p90 {r['warm_p90_ms']} ms ({r['searches']} searches)"
        )
    print(f"warm search on S3 / local: {result['warm_ratio']}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
