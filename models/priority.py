"""Background embedding yields the CPU to searches.

A server embeds the full tier behind the fast one, and ``plait watch`` re-embeds what changed, while
searches run beside them; on two cores the embedding threads would otherwise take the cores a
search's legs need (tokio, a hybrid search while the full tier embeds in the same process: p50
13.6 ms against 7.3–8.0 idle; with the embedding threads at nice +10, 8.4 ms: BENCHMARKS §9).
A process whose embedding is background work says so once (:func:`embed_in_background`); the
threads that then run a batch's texts take a nice value :data:`BACKGROUND_NICE` above the process's
own. A foreground ``plait index`` keeps its full priority.

Linux only (its nice values are per thread); elsewhere nothing changes. A thread's nice value
cannot be lowered again without privilege, so only threads that do nothing but embed take it.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Iterator

BACKGROUND_NICE = 10
"""How much lower than the process's own priority background embedding runs (nice: 0 to 19)."""

_background = threading.Event()
_calls = threading.local()


def embed_in_background(on: bool = True) -> None:
    """Mark this process's embedding as background work (the server, ``plait watch``): embedding
    threads started after this call run at lower priority."""
    if on:
        _background.set()
    else:
        _background.clear()


def in_background() -> bool:
    return _background.is_set()


@contextlib.contextmanager
def foreground() -> Iterator[None]:
    """Texts embedded on this thread within the block are a search's, waited on by a user: in a
    background process they run on threads of their own at full priority, not behind a build's batch
    on the lowered ones."""
    before = getattr(_calls, "foreground", False)
    _calls.foreground = True
    try:
        yield
    finally:
        _calls.foreground = before


def in_foreground() -> bool:
    """Whether this thread embeds for a search now (see :func:`foreground`)."""
    return bool(getattr(_calls, "foreground", False))


def lower_this_thread(step: int = BACKGROUND_NICE) -> bool:
    """Give the calling thread a nice value ``step`` above the process's (at most 19) when it is not
    already that low; returns whether the thread now runs at that priority. Never raises."""
    if not sys.platform.startswith("linux") or step <= 0:
        return False
    try:
        tid = threading.get_native_id()
        target = min(19, os.getpriority(os.PRIO_PROCESS, os.getpid()) + step)
        if os.getpriority(os.PRIO_PROCESS, tid) < target:
            os.setpriority(os.PRIO_PROCESS, tid, target)  # raising one's own nice needs no privilege
        return os.getpriority(os.PRIO_PROCESS, tid) >= target
    except OSError:
        return False


def start_embedding_thread() -> None:
    """Initializer of the threads that embed a batch's texts: lower priority in a background process."""
    if in_background():
        lower_this_thread()
