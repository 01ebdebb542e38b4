"""Security battery, liveness (families D and E of issue 15): a FIFO, a socket, symlink loops and files
that vanish mid-walk in the workspace. Every tool answers — with its result or a clear refusal, never
by running into its deadline — the server keeps serving, its background reindex keeps indexing, and
the watcher keeps indexing. The counts are printed.
"""

from __future__ import annotations

import concurrent.futures as cf
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp.server.mcpserver.exceptions import ToolError
from security_harness import counts, make_secure_workspace, wait_for
from server_harness import SyncClient, build_index, connect, serve_args, server_env, text

from indexer import load_settings
from indexer.daemon import WatchOptions, start_background_watcher
from indexer.daemon_state import read_watcher_state
from indexer.index import Index
from search.frontends.server.boundary import tool_errors
from search.frontends.server.main import build

pytestmark = pytest.mark.slow

CHURN = r"""
import os, sys, time
folder, stop, max_rounds, max_seconds = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
os.makedirs(folder, exist_ok=True)
deadline = time.monotonic() + max_seconds
rounds = 0
print("ready", flush=True)
while rounds < max_rounds and time.monotonic() < deadline and not os.path.exists(stop):
    sub = os.path.join(folder, f"d{rounds % 7}")
    os.makedirs(sub, exist_ok=True)
    path = os.path.join(sub, f"f{rounds % 13}.py")
    with open(path, "w") as fh:
        fh.write(f"def churn_{rounds}():\n    return {rounds}\n")
    os.unlink(path)
    if rounds % 5 == 0:
        try:
            os.rmdir(sub)
        except OSError:
            pass
    rounds += 1
print("rounds", rounds, flush=True)
"""


def _hazards(root: Path) -> socket.socket:
    """A FIFO, a socket, two symlink loops and a link to the root itself in ``root/src``."""
    src = root / "src"
    os.mkfifo(src / "pipe.py")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(src / "sock.py"))
    (src / "loop_a").symlink_to("loop_b")
    (src / "loop_b").symlink_to("loop_a")
    (src / "self").symlink_to(".", target_is_directory=True)
    return sock


@pytest.fixture(scope="module")
def hazardous(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    base = tmp_path_factory.mktemp("liveness")
    root, _ = make_secure_workspace(base)
    sock = _hazards(root)
    build_index(root, base / "index")
    yield root, base / "index"
    sock.close()


@pytest.fixture(scope="module")
def mcp(hazardous: tuple[Path, Path]) -> Iterator[SyncClient]:
    root, index = hazardous
    state, server = build(serve_args([root]), env=server_env(index))
    with connect(server) as client:
        yield client
    state.close()


SPECIAL_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("read_file", {"path": "src/pipe.py"}),
    ("read_file", {"path": "src/sock.py"}),
    ("read_file", {"path": "src/loop_a"}),
    ("outline", {"path": "src/pipe.py"}),
    ("ast_query", {"query": "(identifier) @i", "path": "src/pipe.py"}),
    ("grep", {"pattern": "x", "path": "src/pipe.py"}),
    ("search", {"query": "serve", "mode": "text", "scope": "file:src/pipe.py"}),
    ("edit_insert", {"path": "src/pipe.py", "line": 1, "text": "x = 1\n"}),
    ("edit_replace", {"path": "src/pipe.py", "old_string": "a", "new_string": "b"}),
    ("edit_delete", {"path": "src/pipe.py", "start_line": 1, "end_line": 1}),
    ("write_file", {"path": "src/pipe.py", "content": "x = 1\n"}),
    ("write_file", {"path": "src/loop_a", "content": "x = 1\n"}),
    ("guard", {"target": "file:src/pipe.py"}),
]
WHOLE_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("file_info", {"path": "src/pipe.py"}),
    ("list_directory", {"path": "src"}),
    ("glob", {"pattern": "**/*.py"}),
    ("grep", {"pattern": "def "}),
    ("search", {"query": "serve port", "mode": "hybrid"}),
    ("search", {"query": "serve", "mode": "text", "glob": ["*.py"]}),
    ("ast_query", {"query": "(function_definition name: (identifier) @n)", "language": "python"}),
    ("guard", {"target": "ws", "rules": [{"id": "r", "type": "regex", "pattern": "never-there"}]}),
    ("find_symbol", {"name": "serve"}),
    ("index_status", {}),
    ("reindex", {}),
    ("server_info", {}),
]


def test_special_files_and_symlink_loops_are_refused_at_once_and_never_hang_a_tool(
    mcp: SyncClient, capsys: pytest.CaptureFixture[str]
) -> None:
    refused = 0
    for name, args in SPECIAL_CALLS:
        message = mcp.error(name, args)
        assert "did not answer" not in message, (name, message)
        refused += 1
    for name, args in WHOLE_CALLS:
        mcp.ok(name, args)  # the whole workspace, hazards included, answers normally
    info = mcp.ok("file_info", {"path": "src/pipe.py"})
    assert info["type"] == "other" and info["line_count"] is None
    listing = mcp.ok("list_directory", {"path": "src"})
    assert {"loop_a", "loop_b", "self", "pipe.py", "sock.py"} <= {e["name"] for e in listing["entries"]}

    # 45 concurrent reads of the FIFO cannot exhaust the workers: each is refused, the server answers.
    with cf.ThreadPoolExecutor(45) as pool:
        results = list(pool.map(lambda _: mcp.call("read_file", {"path": "src/pipe.py"}), range(45)))
    assert all(r.is_error and "FIFO" in text(r) for r in results)
    assert mcp.ok("server_info")["roots"]
    with capsys.disabled():
        print(
            "\n[security liveness] "
            + counts(special_refused=refused, whole_answered=len(WHOLE_CALLS), fifo_reads=45)
        )


def test_files_vanishing_mid_walk_are_skipped_and_the_server_keeps_indexing(
    hazardous: tuple[Path, Path], mcp: SyncClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root, _ = hazardous
    stop = tmp_path / "stop"
    churn = subprocess.Popen(
        [sys.executable, "-c", CHURN, str(root / "src" / "churn"), str(stop), "2000000", "240"],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert churn.stdout is not None and churn.stdout.readline().strip() == "ready"
    calls = errors = 0
    try:
        for _ in range(4):
            for name, args in WHOLE_CALLS:
                result = mcp.call(name, args)
                calls += 1
                if result.is_error:
                    errors += 1
                    assert "did not answer" not in text(result), text(result)
    finally:
        stop.write_text("stop\n")
        out, _ = churn.communicate(timeout=120)
    rounds = int(out.split()[-1])
    # The background reindex survived all of it: a write is indexed.
    mcp.ok(
        "write_file", {"path": "src/after_churn.py", "content": "def after_churn_marker():\n    return 3\n"}
    )
    wait_for(
        "the server's reindex of src/after_churn.py",
        lambda: mcp.ok("find_symbol", {"name": "after_churn_marker"})["symbols"],
    )
    with capsys.disabled():
        print("\n[security churn] " + counts(churn_rounds=rounds, calls=calls, errors=errors))
    assert errors == 0  # a vanished file is skipped, never an error
    assert rounds > 0


@pytest.mark.parametrize("polling", [False, True], ids=["events", "polling"])
def test_the_watcher_survives_symlink_loops_and_special_files_and_keeps_indexing(
    tmp_path: Path, polling: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    root, _ = make_secure_workspace(tmp_path)
    settings = load_settings(
        root, env={}, overrides={"index_dir": str(tmp_path / "index"), "model_name": "hashing"}
    )
    Index(settings).build()
    # Polling walks the tree following links: a symlink loop fails every poll (watchfiles raises
    # "Too many levels of symbolic links"), which used to end the watcher for good.
    stop = start_background_watcher(settings, options=WatchOptions(force_polling=polling, poll_delay_ms=100))
    try:
        sock = _hazards(root)  # created while the watcher runs
        (root / "src" / "deep").mkdir()
        (root / "src" / "deep" / "up").symlink_to("..", target_is_directory=True)
        for n in range(3):
            (root / "src" / f"after_{n}.py").write_text(f"def watched_after_{n}():\n    return {n}\n")
            wait_for(
                f"the watcher to index after_{n}.py",
                lambda n=n: f"src/after_{n}.py" in Index(settings).manifest(),
            )
        manifest = Index(settings).manifest()
        assert not any(p.startswith(("src/self/", "src/deep/up/", "src/race_link/")) for p in manifest)
        assert "src/pipe.py" not in manifest and "src/sock.py" not in manifest
        state = read_watcher_state(settings) or {}
        with capsys.disabled():
            print(
                f"\n[security watcher] polling={polling} batches={state.get('batches')} last_error={state.get('last_error')!r}"
            )
        sock.close()
    finally:
        stop()


def test_every_tool_call_has_a_deadline() -> None:
    release = threading.Event()

    def stuck() -> str:
        release.wait()  # a call that would block for ever
        return "late"

    guarded = tool_errors(stuck, deadline=0.5)
    try:
        with pytest.raises(ToolError, match=r"did not answer within its 0\.5s deadline"):
            guarded()
    finally:
        release.set()
    assert tool_errors(lambda: "on time", deadline=5.0)() == "on time"
