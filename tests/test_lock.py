"""The one flock+PID lock (indexer.lock.PidLock) behind the writer lock and the watcher's lock."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from indexer.daemon import Watcher, WatcherRunningError
from indexer.errors import IndexLockedError
from indexer.lock import PidLock, writer_active, writer_lock

HOLD = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from indexer.lock import PidLock
    lock = PidLock(Path(sys.argv[1]))
    assert lock.acquire() is None
    print("locked", flush=True)
    time.sleep(120)
    """
)


def hold_in_child(path: Path) -> subprocess.Popen[str]:
    child = subprocess.Popen([sys.executable, "-c", HOLD, str(path)], stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None and child.stdout.readline().strip() == "locked"
    return child


def test_a_second_holder_is_refused_with_the_first_ones_pid(tmp_path: Path) -> None:
    first, second = PidLock(tmp_path / "x.lock"), PidLock(tmp_path / "x.lock")
    assert first.acquire() is None and first.held
    assert (tmp_path / "x.lock").read_text() == f"pid {os.getpid()}"
    assert second.acquire(wait=0.05, poll=0.01) == f"pid {os.getpid()}"
    assert not second.held and second.held_elsewhere()
    first.release()
    assert (tmp_path / "x.lock").read_text() == ""  # the holder's name goes with the lock
    assert not second.held_elsewhere()
    assert second.acquire() is None
    second.release()


def test_a_killed_holder_leaves_the_lock_free(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "x.lock"
    child = hold_in_child(path)
    try:
        assert PidLock(path).acquire() == f"pid {child.pid}"
        assert PidLock(path).held_elsewhere()
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    lock = PidLock(path)
    assert lock.acquire() is None  # the kernel dropped the dead holder's flock
    lock.release()


def test_the_writer_lock_and_the_watcher_lock_name_their_holder_the_same_way(
    tmp_path: Path, settings_for, make_repo
) -> None:
    settings = settings_for(make_repo({"a.py": "x = 1\n"}))
    Path(settings.index_dir).mkdir(parents=True, exist_ok=True)
    with writer_lock(settings.index_dir):
        assert writer_active(settings.index_dir)
        with (
            pytest.raises(IndexLockedError, match=rf"\(pid {os.getpid()}\)"),
            writer_lock(settings.index_dir),
        ):
            pass
    assert not writer_active(settings.index_dir)
    first, second = Watcher(settings), Watcher(settings)
    first.claim()
    try:
        with pytest.raises(WatcherRunningError, match=rf"a watcher \(pid {os.getpid()}\)"):
            second.claim()
    finally:
        first.release()
    second.claim()  # free once released
    second.release()


def test_a_lock_file_that_cannot_be_created_raises_oserror(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(OSError):
        PidLock(blocker / "x.lock").acquire()  # its directory is a file
