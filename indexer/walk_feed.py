"""A first build's walk on a thread, its files handed to the parse as they are found.

An incremental build must walk the whole tree before it knows what changed; a first build does not:
every file it finds is new. Its walk still reads each file's first block (to tell binary files and the
language), which on a large tree read from disk takes a while (the Linux tree: ~13 s cold, one core
two-thirds busy) while the parse workers, handed nothing yet, would idle. :class:`WalkFeed` walks on its
own thread instead, in the same order, and :meth:`WalkFeed.batches` hands the files on a batch at a
time as soon as that many are found, so parsing starts with the walk's first batch.
"""

from __future__ import annotations

import threading
from collections.abc import Generator

from indexer.workspace import Walker, WalkStats, WorkspaceFile


class WalkFeed:
    """``walker.walk(stats)`` run on a thread; ``stats`` is complete once :meth:`batches` has ended."""

    def __init__(self, walker: Walker, stats: WalkStats) -> None:
        self._files: list[WorkspaceFile] = []
        self._cond = threading.Condition()
        self._done = False
        self._stop = False
        self._error: BaseException | None = None
        self._thread = threading.Thread(
            target=self._run, args=(walker, stats), name="plait-walk", daemon=True
        )
        self._thread.start()

    def _run(self, walker: Walker, stats: WalkStats) -> None:
        try:
            for found in walker.walk(stats):
                with self._cond:
                    if self._stop:
                        break
                    self._files.append(found)
                    self._cond.notify_all()
        except BaseException as exc:  # handed to the reader, which raises it: this thread just ends
            with self._cond:
                self._error = exc
        finally:
            with self._cond:
                self._done = True
                self._cond.notify_all()

    @property
    def found(self) -> int:
        """Files found so far."""
        with self._cond:
            return len(self._files)

    @property
    def done(self) -> bool:
        """Whether the walk is over (every file found)."""
        with self._cond:
            return self._done

    def batches(self, size: int) -> Generator[list[WorkspaceFile], None, None]:
        """The files in walk order, ``size`` at a time (the last batch may hold fewer), each as soon as
        it is found. Raises what the walk raised, after the files found before it."""
        start = 0
        try:
            while True:
                with self._cond:
                    while not self._done and len(self._files) < start + size:
                        self._cond.wait()
                    batch = self._files[start : start + size]
                    error = self._error if self._done and len(batch) < size else None
                if batch:
                    start += len(batch)
                    yield batch
                if error is not None:
                    raise error
                if len(batch) < size:
                    return
        finally:
            self.close()

    def close(self) -> None:
        """Stop the walk where it is (a reader that gives up) and wait for its thread."""
        with self._cond:
            self._stop = True
        self._thread.join()
