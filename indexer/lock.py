"""One writer at a time per index: an advisory ``flock`` on a lock file; readers never take it.

For a local index the lock file lives beside the tables. An index on object storage (a URI) is
guarded by a lease object beside its tables instead (:mod:`indexer.lease`), so writers on different
machines exclude each other; its local lock path only names the watcher's lock file.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import time
from collections.abc import Iterator
from pathlib import Path

from platformdirs import user_cache_dir

from indexer.errors import IndexLockedError


def lock_path(index_dir: str) -> Path:
    if "://" not in index_dir:
        return Path(index_dir) / "writer.lock"
    digest = hashlib.sha256(index_dir.encode()).hexdigest()[:16]
    return Path(user_cache_dir("plait", appauthor=False)) / "locks" / f"{digest}.lock"


@contextlib.contextmanager
def writer_lock(index_dir: str, *, wait: float = 0.0, poll: float = 0.1) -> Iterator[None]:
    """Hold the index's writer lock; wait up to ``wait`` seconds, then raise IndexLockedError."""
    if "://" in index_dir:
        from indexer.lease import ObjectLease

        lease = ObjectLease(index_dir)
        lease.acquire(wait=wait, poll=max(poll, 0.5))
        try:
            yield
        finally:
            lease.release()
        return
    path = lock_path(index_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    deadline = time.monotonic() + wait
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    holder = os.pread(fd, 200, 0).decode("utf-8", "replace").strip() or "unknown process"
                    raise IndexLockedError(index_dir, holder) from None
                time.sleep(poll)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()}".encode(), 0)
        try:
            yield
        finally:
            os.ftruncate(fd, 0)
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def writer_active(index_dir: str) -> bool:
    """Whether some process holds the index's writer lock now (a build is running)."""
    if "://" in index_dir:
        from indexer.lease import ObjectLease

        return ObjectLease(index_dir).current() is not None
    path = lock_path(index_dir)
    try:
        fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        os.close(fd)  # closing drops the probe's lock
    return False
