"""Worker processes that end with the process that started them.

A process pool's workers wait on their task queue, whose write end they hold themselves: a parent
killed with SIGKILL (or by the OOM killer) cannot shut its pool down, and they would wait for work
forever, each holding the memory it had. Every pool plait spawns (the parse workers, the process that
saves a large build's BM25 file, that process's tokenising helpers) starts its workers with
:func:`watch_parent`, a thread that ends the worker once its parent is gone.
"""

from __future__ import annotations

import os
import threading
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

PARENT_POLL_SECONDS = 0.5  # how often a worker checks that its parent is still running


def watch_parent(parent: int) -> None:
    """In a worker (a pool's ``initializer``, with ``os.getpid()`` of the parent as its argument): end
    this process once ``parent`` is no longer its parent."""
    threading.Thread(target=_exit_with_parent, args=(parent,), name="plait-parent-watch", daemon=True).start()


def _exit_with_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(PARENT_POLL_SECONDS)
    os._exit(1)


def usable_cores() -> int:
    """The cores this process may run on (its affinity where the system says, else all)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def watched_pool(workers: int) -> ProcessPoolExecutor:
    """A pool of ``workers`` spawned processes (never forked: a build holds LanceDB threads) that end
    with this process."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    return ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=watch_parent,
        initargs=(os.getpid(),),
    )
