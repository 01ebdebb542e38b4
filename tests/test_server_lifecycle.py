"""An MCP server that looks after its index, through the ``mcp`` package's stdio client against a real
``plait serve`` subprocess (env passed explicitly: ``PLAIT_INDEX_DIR``, ``PLAIT_MODEL``).

A missing index is built in the background at start while search answers (the fast tier first,
then the full one behind it), an index with only the fast tier gets the full one; ``reindex`` returns at
once with a job, and with ``wait=true`` reports MCP progress notifications; ``server_info`` and
``index_status`` give one freshness answer; grep's file order is deterministic; structured content
is capped as the text is; the process exits 0 when stdin closes during preload and on SIGTERM.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest
from server_harness import build_index, connect, make_workspace, server_env, stdio_params, text

from indexer import Index, load_settings
from search.frontends.server.boundary import MAX_OUTPUT_CHARS
from search.frontends.server.jobs import needs_upgrade

pytestmark = pytest.mark.slow
T = TypeVar("T")


def poll(check: Callable[[], T], timeout: float = 120.0, what: str = "condition") -> T:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out waiting for {what}"


def test_a_missing_index_is_built_in_the_background_while_search_answers(tmp_path: Path) -> None:
    root = make_workspace(tmp_path)
    with connect(
        stdio_params(["--root", str(root), "--no-preload"], server_env(tmp_path / "index"))
    ) as client:
        found = client.ok("search", {"query": "RetryPolicy", "mode": "text"})
        assert found["results"], "text search must answer before the index exists"
        status = poll(
            lambda: (s := client.ok("index_status"))["jobs"] and s["jobs"][0]["state"] != "running" and s,
            what="the background build",
        )
        job = status["jobs"][0]
        assert status["roots"][0]["state"] == "fresh"
        assert (job["reason"], job["state"], job["scope"]) == ("missing", "done", "root")
        assert job["report"]["files"] > 0
        # a first build embeds the fast tier (vectors in seconds), then the full tier behind it
        chunks = job["report"]["chunks_total"]
        assert set(job["report"]["tiers"]) == {"fast", "full"}, job["report"]["tiers"]
        assert job["report"]["tiers"]["full"]["vectors"] == chunks > 0
        root_status = status["roots"][0]
        assert root_status["search_tier"] == "full"
        assert {t: (d["vectors"], d["complete"]) for t, d in root_status["tiers"].items()} == {
            "fast": (chunks, True),
            "full": (chunks, True),
        }
        assert client.ok("find_symbol", {"name": "RetryPolicy"})["symbols"]
        assert client.ok("server_info")["roots"][0]["index_state"] == "fresh"


def test_an_index_with_only_the_fast_tier_gets_the_full_tier_in_the_background(tmp_path: Path) -> None:
    root = make_workspace(tmp_path)
    settings = load_settings(
        root, env={}, overrides={"index_dir": str(tmp_path / "index"), "model_name": "hashing"}
    )
    Index(settings).build(tier="fast")  # what `plait index --tier fast` leaves
    before = Index(settings).status(check_files=True)
    assert before.state == "fresh" and before.search_tier == "fast"
    assert needs_upgrade(before) == "full tier incomplete"
    with connect(
        stdio_params(["--root", str(root), "--no-preload"], server_env(tmp_path / "index"))
    ) as client:
        status = poll(
            lambda: (s := client.ok("index_status"))["jobs"] and s["jobs"][0]["state"] != "running" and s,
            what="the background upgrade",
        )
        job = status["jobs"][0]
        assert (job["reason"], job["state"]) == ("full tier incomplete", "done"), job
        root_status = status["roots"][0]
        assert root_status["state"] == "fresh" and root_status["search_tier"] == "full"
        assert all(d["complete"] for d in root_status["tiers"].values()), root_status["tiers"]
    after = Index(settings).status(check_files=True)
    assert needs_upgrade(after) is None  # complete: the next start builds nothing


def test_reindex_returns_a_job_and_wait_reports_progress_notifications(tmp_path: Path) -> None:
    root = make_workspace(
        tmp_path, {f"pkg/mod{i}.py": f"def handler_{i}():\n    return {i}\n" for i in range(30)}
    )
    args = ["--root", str(root), "--no-preload", "--no-auto-index"]
    with connect(stdio_params(args, server_env(tmp_path / "index"))) as client:
        missing = client.ok("search", {"query": "handler_3"})
        assert "call reindex" in json.dumps(missing["degraded"]) and "plait index" not in json.dumps(missing)
        seen: list[tuple[float, float | None, str | None]] = []

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            seen.append((progress, total, message))

        result = client.portal.call(
            lambda: client.client.call_tool("reindex", {"wait": True}, progress_callback=on_progress)
        )
        assert not result.is_error, text(result)
        out = result.structured_content
        assert out is not None and out["jobs"][0]["state"] == "done" and out["started"] == [str(root)]
        assert len(seen) >= 2, seen
        assert any(m and ("parsing" in m or "embedding" in m) for _, _, m in seen), seen
        assert [p for p, _, _ in seen if p is not None] != [0.0] * len(seen)

        quick = client.ok("reindex")  # returns at once: the job is running or, for so small a tree, done
        assert quick["jobs"][0]["state"] in ("running", "done") and quick["jobs"][0]["reason"] == "reindex"
        poll(lambda: client.ok("index_status")["jobs"][0]["state"] == "done", what="the second job")


def test_server_info_and_index_status_agree_on_freshness(tmp_path: Path) -> None:
    root = make_workspace(tmp_path)
    build_index(root, tmp_path / "index")
    args = ["--root", str(root), "--no-preload", "--no-auto-index"]
    with connect(stdio_params(args, server_env(tmp_path / "index"))) as client:
        assert client.ok("server_info")["roots"][0]["index_state"] == "fresh"
        (root / "pkg" / "retry.py").write_text("def changed():\n    pass\n")
        (root / "pkg" / "extra.py").write_text("X = 1\n")
        status = client.ok("index_status")["roots"][0]
        info = client.ok("server_info")["roots"][0]
        assert status["state"] == info["index_state"] == "stale"
        assert status["changed_count"] == 2


def test_grep_file_order_is_deterministic_and_structured_content_is_capped(tmp_path: Path) -> None:
    files = {f"d{i % 7}/f{i:03d}.txt": f"needle {i}\n" for i in range(120)}
    files["big/lines.txt"] = "".join(f"needle {i:05d} {'y' * 180}\n" for i in range(3000))
    root = make_workspace(tmp_path, files)
    args = ["--root", str(root), "--no-preload", "--no-auto-index"]
    with connect(stdio_params(args, server_env(tmp_path / "index"))) as client:
        listing = [client.ok("grep", {"pattern": "needle", "output_mode": "files_with_matches", "head_limit": 500})
                   for _ in range(3)]  # fmt: skip
        paths = [f["path"] for f in listing[0]["files"]]
        assert paths == sorted(paths) and all([f["path"] for f in o["files"]] == paths for o in listing)
        result = client.call("grep", {"pattern": "needle", "head_limit": 5000, "path": "big"})
        assert result.structured_content is not None and result.structured_content["truncated"]
        structured = len(json.dumps(result.structured_content))
        assert structured + len(text(result)) <= MAX_OUTPUT_CHARS + 2000, (structured, len(text(result)))


def _spawn(root: Path, env: dict[str, str], *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "search.frontends.cli", "serve", "--root", str(root), *extra],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, **env}, text=True,
    )  # fmt: skip


def _wait_ready(proc: subprocess.Popen[str]) -> str:
    assert proc.stderr is not None
    for line in proc.stderr:  # the ready line comes before the transport reads anything
        if "MCP over stdio" in line:
            return line
    raise AssertionError(f"no ready line; exit {proc.wait()}")


@pytest.mark.model
@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="counts threads through /proc")
def test_stdin_closed_while_the_model_loads_exits_0(tmp_path: Path) -> None:
    """Regression: closing stdin while onnxruntime/torch start their thread pools aborted the process
    (SIGABRT, "terminate called without an active exception") as Python finalized under them. Stdin is
    closed as the loading threads appear (more threads each round), which reproduced the abort."""
    root = make_workspace(tmp_path)
    env = server_env(tmp_path / "index", model="all-MiniLM-L6-v2")
    build_index(root, tmp_path / "index", model="all-MiniLM-L6-v2")
    for more_threads in (0, 4, 8, 10, 12):
        proc = _spawn(root, env)  # preloads the real model in a background thread
        _wait_ready(proc)
        tasks = Path(f"/proc/{proc.pid}/task")
        base = len(list(tasks.iterdir()))
        deadline = time.monotonic() + 30
        while len(list(tasks.iterdir())) < base + more_threads and time.monotonic() < deadline:
            pass
        assert proc.stdin is not None
        proc.stdin.close()
        assert proc.wait(timeout=120) == 0, more_threads
        assert "terminate called" not in (proc.stderr.read() if proc.stderr else "")


def test_sigterm_ends_the_server_in_every_phase(tmp_path: Path) -> None:
    root = make_workspace(tmp_path, {f"m/f{i}.py": f"def f{i}():\n    pass\n" for i in range(200)})
    env = server_env(tmp_path / "index")
    # While the background build of a missing index runs, stdin open and silent.
    proc = _spawn(root, env)
    _wait_ready(proc)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 0
    assert not (tmp_path / "index" / "endpoint.json").exists()
    # Idle, with a fresh index, after a request was answered.
    build_index(root, tmp_path / "index")
    proc = _spawn(root, env, "--no-preload")
    _wait_ready(proc)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "t", "version": "0"},
                },
            }
        )
        + "\n"
    )
    proc.stdin.flush()
    assert '"id":1' in proc.stdout.readline().replace(" ", "")
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 0


def test_only_a_fresh_index_with_another_tiers_vectors_needs_the_full_tier() -> None:
    from indexer import IndexState, IndexStatus

    def status(state: IndexState, tiers: dict[str, tuple[int, bool]], chunks: int = 10) -> IndexStatus:
        st = IndexStatus(state, "/r", "/i", chunks=chunks)
        st.tiers = {t: {"model": t, "vectors": n, "complete": c} for t, (n, c) in tiers.items()}
        return st

    fresh = IndexState.FRESH
    assert needs_upgrade(status(fresh, {"fast": (10, True)})) == "full tier incomplete"
    assert needs_upgrade(status(fresh, {"fast": (10, True), "full": (4, False)})) == "full tier incomplete"
    assert needs_upgrade(status(fresh, {"fast": (10, True), "full": (10, True)})) is None
    assert needs_upgrade(status(fresh, {})) is None  # built without vectors: asked for that way
    assert needs_upgrade(status(fresh, {"fast": (3, False)})) is None  # a build of it was cut short
    assert needs_upgrade(status(IndexState.STALE, {"fast": (10, True)})) is None  # its build fills it
    assert needs_upgrade(status(fresh, {"fast": (0, False)}, chunks=0)) is None
