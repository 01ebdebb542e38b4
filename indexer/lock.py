"""Exclusive ``flock`` locks that name their holder, and the index's writer lock built on one.

:class:`PidLock` is the one flock+PID implementation: an advisory ``flock`` on a lock file whose
content says who holds it (``pid N``), so a refused process can name the holder. Two locks use it:

* the **writer lock** (:func:`writer_lock`): one writer at a time per index; readers never take it.
  For a local index the lock file lives beside the tables. An index on object storage (a URI) is
  guarded by a lease object beside its tables instead (:mod:`indexer.lease`), so writers on
  different machines exclude each other; its local lock path only names the watcher's lock file.
* the **watcher lock** (``watcher.lock``, :mod:`indexer.daemon`): one watcher per index.

The kernel drops an ``flock`` when its holder dies, so a killed process never leaves a lock behind.
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


class PidLock:
    """An exclusive ``flock`` on ``path`` held by this process, whose file names the holder.

    Not reentrant and not shared between threads: one holder at a time per object. ``acquire`` and
    ``release`` may be called again after a release.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def acquire(self, *, wait: float = 0.0, poll: float = 0.1) -> str | None:
        """Take the lock, waiting up to ``wait`` seconds; ``None`` once held (or already held by this
        object), else who holds it (``pid N``, or ``unknown process``). Raises OSError when the lock
        file cannot be created."""
        if self._fd is not None:
            return None
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    holder = os.pread(fd, 200, 0).decode("utf-8", "replace").strip() or "unknown process"
                    os.close(fd)
                    return holder
                time.sleep(poll)
            except BaseException:
                os.close(fd)
                raise
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"pid {os.getpid()}".encode(), 0)
        except BaseException:
            os.close(fd)  # closing drops the flock
            raise
        self._fd = fd
        return None

    def release(self) -> None:
        """Drop the lock (and the holder's name); does nothing when it is not held."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
        os.close(fd)  # closing drops the flock

    def held_elsewhere(self) -> bool:
        """Whether another holder has the lock now (a probe that takes and drops it at once)."""
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CLOEXEC)
        except OSError:
            return False  # no lock file: nobody ever held it here
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        except OSError:
            return False
        finally:
            os.close(fd)  # closing drops the probe's lock
        return False


def lock_path(index_dir: str) -> Path:
    """The writer lock file of ``index_dir``: beside its tables, or in the user cache for a URI."""
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
    lock = PidLock(lock_path(index_dir))
    holder = lock.acquire(wait=wait, poll=poll)
    if holder is not None:
        raise IndexLockedError(index_dir, holder)
    try:
        yield
    finally:
        lock.release()


def writer_active(index_dir: str) -> bool:
    """Whether some process holds the index's writer lock now (a build is running)."""
    if "://" in index_dir:
        from indexer.lease import ObjectLease

        return ObjectLease(index_dir).current() is not None
    return PidLock(lock_path(index_dir)).held_elsewhere()
