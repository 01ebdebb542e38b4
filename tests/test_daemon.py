"""The reindex daemon (issue 7): a real ``plait watch`` subprocess on a temporary repository.

Searches go through the library (``search.Engine``, a fresh one per poll, so each sees the latest
commits). Every wait polls with a deadline; the daemon's ``--verbose`` log and ``watcher.json``
say when a batch ran.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

from indexer import Index, IndexState, Settings, load_settings
from indexer.daemon import Watcher, WatcherRunningError, WatchOptions, start_background_watcher
from indexer.daemon_state import describe_watcher, read_watcher_state
from indexer.lock import writer_lock
from search import Engine, Query

pytestmark = pytest.mark.timeout(120)

T = TypeVar("T")
DEADLINE = 30.0

A_PY = 'def alpha_anchor(x):\n    """Stable: never touched by these tests."""\n    return x\n'
GITIGNORE = "ignored/\n*.log\n"


# -- helpers --------------------------------------------------------------------------------------
def wait_for(what: str, probe: Callable[[], T], timeout: float = DEADLINE) -> T:
    """Poll ``probe`` until it returns something truthy; fail with ``what`` at the deadline."""
    deadline = time.monotonic() + timeout
    last: T = probe()
    while not last:
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout:.0f}s waiting for {what} (last: {last!r})")
        time.sleep(0.05)
        last = probe()
    return last


def search(settings: Settings, text: str, mode: str) -> list[tuple[str, str | None]]:
    engine = Engine(settings)
    try:
        response = engine.search(Query(text, mode=mode, limit=10))  # type: ignore[arg-type]
    finally:
        engine.close()
    return [(r.path, r.symbol) for r in response.results]


def findable(settings: Settings, path: str, *, text: str, symbol: str, semantic: str) -> bool:
    """``path`` is found by all three retrievers (top hit for the semantic query)."""
    return (
        any(p == path for p, _ in search(settings, text, "text"))
        and (path, symbol) in search(settings, symbol, "symbol")
        and search(settings, semantic, "semantic")[:1] == [(path, symbol)]
    )


def gone(settings: Settings, path: str, *, text: str, symbol: str) -> bool:
    """No retriever returns ``path`` any more."""
    return (
        all(p != path for p, _ in search(settings, text, "text"))
        and all(p != path for p, _ in search(settings, symbol, "symbol"))
        and all(p != path for p, _ in search(settings, text, "semantic"))
    )


def assert_consistent(settings: Settings, *, fresh: bool = True) -> None:
    """No duplicates; manifest, symbols, chunks and vectors agree; (``fresh``) the files match."""
    index = Index(settings)
    status = index.status()
    assert status.state == IndexState.FRESH or not fresh, status.as_dict()
    store = index.store

    def column(table: str, *cols: str) -> list[tuple[Any, ...]]:
        data = store.read(table, list(cols))
        return list(zip(*(data.column(c).to_pylist() for c in cols), strict=True)) if data.num_rows else []

    symbols = column("symbols", "path", "qualified_name", "start_line")
    assert not [s for s, n in Counter(symbols).items() if n > 1], "duplicate symbols"
    chunk_ids = [c for (c,) in column("chunks", "chunk_id")]
    assert len(chunk_ids) == len(set(chunk_ids)), "duplicate chunks"
    manifest = set(index.manifest())
    assert {p for p, *_ in symbols} <= manifest and {p for (p,) in column("chunks", "path")} <= manifest
    vec_table = store.get_meta()["model"]["table"]
    assert sorted(c for (c,) in column(vec_table, "chunk_id")) == sorted(chunk_ids), "vectors != chunks"


def settings_for(root: Path, index_dir: Path) -> Settings:
    return load_settings(root, env={}, overrides={"index_dir": str(index_dir), "model_name": "hashing"})


def module(i: int, marker: str = "") -> str:
    return f"def batch_fn_{i}(x):\n    '''Item {i} {marker}.'''\n    return x + {i}\n"


class Daemon:
    """``plait --verbose watch ROOT`` as a subprocess, its stderr in a file."""

    def __init__(self, root: Path, index_dir: Path, log: Path) -> None:
        self.root, self.index_dir, self.log_path = root, index_dir, log
        env = {
            **os.environ,
            "PLAIT_MODEL": "hashing",
            "PLAIT_INDEX_DIR": str(index_dir),
            "HF_HUB_OFFLINE": "1",
        }
        self._log = log.open("ab")
        self.offset = log.stat().st_size
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "search.frontends.cli", "--verbose", "watch", str(root)],
            stdout=subprocess.DEVNULL, stderr=self._log, env=env,
        )  # fmt: skip

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")[self.offset :]

    def state(self) -> dict[str, Any]:
        state = read_watcher_state(settings_for(self.root, self.index_dir))
        return state if state and state.get("pid") == self.proc.pid else {}

    def batches(self) -> int:
        return int(self.state().get("batches", 0))

    def wait_batches(self, n: int) -> dict[str, Any]:
        wait_for(
            f"{n} batch(es) (log: {self.log()[-600:]!r})", lambda: self.batches() >= n or self.proc.poll()
        )
        assert self.proc.poll() is None, self.log()
        return self.state()

    def stop(self, sig: int = signal.SIGTERM) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout=DEADLINE)
        finally:
            self._log.close()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "a.py").write_text(A_PY)
    (root / ".gitignore").write_text(GITIGNORE)
    return root


@pytest.fixture
def daemons(tmp_path: Path) -> Iterator[Callable[..., Daemon]]:
    started: list[Daemon] = []

    def start(root: Path, index_dir: Path | None = None) -> Daemon:
        d = Daemon(root, index_dir or tmp_path / "index", tmp_path / "watch.log")
        started.append(d)
        return d

    yield start
    for d in started:
        if d.proc.poll() is None:
            d.proc.kill()
            d.proc.wait()
        d._log.close()


# -- subprocess tests -----------------------------------------------------------------------------
@pytest.mark.slow
def test_searches_follow_every_change_and_ignored_paths_never_trigger_work(
    repo: Path, daemons: Callable[..., Daemon]
) -> None:
    index_dir = repo / "idx"  # inside the root: the daemon's own writes must not feed back
    settings = settings_for(repo, index_dir)
    daemon = daemons(repo, index_dir)
    daemon.wait_batches(1)  # the startup check indexed a.py

    (repo / "ignored").mkdir()
    (repo / "ignored" / "x.py").write_text("def hidden(): pass\n")
    (repo / "debug.log").write_text("noise\n")
    (repo / ".git" / "objects").mkdir(parents=True)
    (repo / ".git" / "objects" / "ab").write_text("blob\n")
    (index_dir / "scratch.txt").write_text("inside the index dir\n")
    (repo / "b.py").write_text(
        'def bravo_widget():\n    return "saffron lighthouse"\n'
    )  # after them: a barrier
    wait_for("b.py findable", lambda: findable(
        settings, "b.py", text="saffron", symbol="bravo_widget", semantic="saffron lighthouse"))  # fmt: skip
    assert daemon.wait_batches(2)["last_batch"]["checked"] == 1, daemon.log()  # b.py alone

    (repo / "b.py").write_text('def bravo_gadget():\n    return "cobalt orchard"\n')
    wait_for("the edit findable", lambda: findable(
        settings, "b.py", text="cobalt", symbol="bravo_gadget", semantic="cobalt orchard"))  # fmt: skip
    assert ("b.py", "bravo_widget") not in search(settings, "bravo_widget", "symbol")

    (repo / "pkg").mkdir()
    (repo / "b.py").rename(repo / "pkg" / "c.py")
    wait_for("the renamed file findable", lambda: findable(
        settings, "pkg/c.py", text="cobalt", symbol="bravo_gadget", semantic="cobalt orchard"))  # fmt: skip
    wait_for("the old name gone", lambda: gone(settings, "b.py", text="cobalt", symbol="bravo_gadget"))

    (repo / "pkg").rename(repo / "lib")  # a directory move: one event for the directory only
    wait_for("the moved directory's file findable", lambda: findable(
        settings, "lib/c.py", text="cobalt", symbol="bravo_gadget", semantic="cobalt orchard"))  # fmt: skip
    wait_for(
        "the old directory gone", lambda: gone(settings, "pkg/c.py", text="cobalt", symbol="bravo_gadget")
    )
    moved = r"indexed \d+ file\(s\) \([^)]*pkg/c\.py[^)]*\): \d+ changed, 1 deleted"
    wait_for(
        "the move indexed", lambda: re.search(moved, daemon.log())
    )  # the deleted path: search drops it at once

    (repo / "lib" / "c.py").unlink()
    wait_for(
        "the deleted file gone", lambda: gone(settings, "lib/c.py", text="cobalt", symbol="bravo_gadget")
    )  # at once: a search drops hits in files the checkout no longer holds, before the daemon's batch
    deletion = r"indexed 1 file\(s\) \(lib/c\.py\): 0 changed, 1 deleted"
    wait_for("the deletion indexed", lambda: re.search(deletion, daemon.log()))
    assert ("a.py", "alpha_anchor") in search(settings, "alpha_anchor", "symbol")
    assert not [p for p, _ in search(settings, "hidden", "symbol") if p.startswith("ignored/")]

    state = daemon.state()
    assert state["running"] and state["phase"] == "watching" and state["last_batch"]["deleted"] == 1
    assert 0 <= state["lag"] < DEADLINE
    log = daemon.log()
    batches = re.findall(r"plait: indexing (.*)", log)
    assert batches[0] == "startup check" and batches[1] == "1 file(s) (b.py)", batches
    assert not [b for b in batches if re.search(r"ignored/|debug\.log|\.git/|idx/", b)], batches
    assert daemon.stop() == 0
    assert not read_watcher_state(settings)["running"]  # type: ignore[index]
    assert_consistent(settings)


@pytest.mark.slow
def test_sigterm_mid_batch_finishes_the_batch_and_exits_0(
    repo: Path, tmp_path: Path, daemons: Callable[..., Daemon]
) -> None:
    settings = settings_for(repo, tmp_path / "index")
    daemon = daemons(repo)
    daemon.wait_batches(1)
    for i in range(300):
        (repo / f"m{i}.py").write_text(module(i))
    wait_for("a batch to start", lambda: re.search(r"indexing \d+ file", daemon.log()))
    assert daemon.stop(signal.SIGTERM) == 0
    log = daemon.log()
    finished = re.search(r"indexed (\d+) file\(s\)[^\n]*\n[^\n]*stop requested during the batch", log)
    assert finished, log
    manifest = Index(settings).manifest()
    assert sum(1 for p in manifest if p.startswith("m")) >= int(finished[1])  # committed, not dropped
    assert "stopped by SIGTERM after the current batch" in log
    state = read_watcher_state(settings)
    assert state is not None and not state["running"] and state["phase"] == "stopped"
    assert_consistent(settings, fresh=False)  # whole; the next start adds whatever came after


@pytest.mark.slow
def test_sigkill_mid_batch_and_offline_changes_are_recovered_at_start(
    repo: Path, tmp_path: Path, daemons
) -> None:
    settings = settings_for(repo, tmp_path / "index")
    daemon = daemons(repo)
    daemon.wait_batches(1)
    for i in range(300):
        (repo / f"m{i}.py").write_text(module(i))
    wait_for("a batch to start", lambda: re.search(r"indexing \d+ file", daemon.log()))
    assert daemon.stop(signal.SIGKILL) == -signal.SIGKILL

    # while no watcher runs: edit, delete, add
    (repo / "m0.py").write_text("def tangerine_orchard():\n    return 'offline tangerine orchard'\n")
    (repo / "m1.py").unlink()
    (repo / "late.py").write_text("def late_arrival():\n    return 'quokka'\n")

    again = daemons(repo)
    first = again.wait_batches(1)
    assert first["last_batch"]["kind"] == "check"
    assert_consistent(settings)
    assert ("late.py", "late_arrival") in search(settings, "late_arrival", "symbol")
    assert search(settings, "offline tangerine orchard", "semantic")[:1] == [("m0.py", "tangerine_orchard")]
    assert not [p for p, _ in search(settings, "batch_fn_1", "symbol") if p == "m1.py"]
    assert again.stop() == 0


# -- in-process tests -----------------------------------------------------------------------------
FAST = WatchOptions(quiet_ms=100, max_batch_ms=500, lock_wait=0.2)


def test_daemon_waits_for_another_writer_then_indexes(
    repo: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    settings = settings_for(repo, tmp_path / "index")
    watcher = Watcher(settings, options=FAST)
    thread = threading.Thread(target=watcher.run, daemon=True)
    with writer_lock(settings.index_dir):  # `plait index` by hand holds the lock
        thread.start()
        wait_for("the watcher to wait", lambda: watcher.state["phase"] == "waiting for the writer lock")
        time.sleep(1.0)  # five more attempts of lock_wait 0.2 s each
        # it says so between attempts too, and once: not a warning every lock_wait
        assert watcher.state["phase"] == "waiting for the writer lock"
        assert sum("waits for it" in r.getMessage() for r in caplog.records) == 1
        assert watcher.state["batches"] == 0
    wait_for("the startup check after the lock is free", lambda: watcher.state["batches"] >= 1)
    with pytest.raises(WatcherRunningError, match=rf"pid {os.getpid()}"):
        start_background_watcher(settings)
    watcher.stop()
    thread.join(10)
    assert not thread.is_alive()
    assert_consistent(settings)


def test_readers_never_fail_and_untouched_files_stay_findable_during_batches(
    repo: Path, tmp_path: Path
) -> None:
    settings = settings_for(repo, tmp_path / "index")
    stop = start_background_watcher(settings)
    try:
        wait_for("the startup check", lambda: (read_watcher_state(settings) or {}).get("batches", 0) >= 1)
        misses: list[object] = []
        done = threading.Event()

        def reader() -> None:
            while not done.is_set():
                try:
                    if ("a.py", "alpha_anchor") not in search(settings, "alpha_anchor", "symbol"):
                        misses.append("symbol")
                    if not any(p == "a.py" for p, _ in search(settings, "alpha anchor stable", "semantic")):
                        misses.append("semantic")
                except Exception as exc:  # a reader must never see an error mid-batch
                    misses.append(exc)

        thread = threading.Thread(target=reader)
        thread.start()
        for word in ("amber", "birch", "cedar", "delta"):
            for i in range(20):
                (repo / f"churn{i}.py").write_text(module(i, word))
            wait_for(f"round {word} indexed", lambda: Index(settings).status().state == IndexState.FRESH)
        wait_for("the watcher idle", lambda: (read_watcher_state(settings) or {}).get("phase") == "watching")
        done.set()
        thread.join(30)
        assert misses == []
    finally:
        stop()
    assert not (read_watcher_state(settings) or {}).get("running")
    assert_consistent(settings)


def test_status_line_says_running_last_batch_lag_and_queue() -> None:
    state = {
        "running": True, "pid": 42, "phase": "watching", "lag": 0.71, "queue": 3, "last_error": None,
        "last_batch": {"kind": "files", "files": 2, "seconds": 0.4, "embedded": 1, "from_cache": 5, "finished": 90.0},
    }  # fmt: skip
    line = describe_watcher(state, now=100.0)
    assert line == (
        "running (pid 42), watching; last batch 2 file(s) in 0.40s, 1 embedded, 5 from cache, 10s ago; "
        "lag 0.71s; 3 path(s) queued"
    )
    assert describe_watcher({**state, "running": False}) == "not running"
    assert describe_watcher(None) == "not running"
